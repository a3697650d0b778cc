"""inspection_photos.pack, .pack_offset: where a received photo's bytes are in the evidence
packs (inspector/inspections/evidence_store.py).

Photos received from now on are appended to append-only pack files; their row says which
pack and where. Existing photos keep their loose files (named by their SHA-256) and get
null: the app reads both. Nothing is moved, so the upgrade is instant on any database.

The downgrade writes every packed photo back as a loose file (checked against its SHA-256
first: a photo whose bytes do not match, or are missing, stops the downgrade with its id,
nothing dropped), then drops the two columns. The packs themselves are left on disk.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01 11:30:00

"""
import hashlib

import sqlalchemy as sa
from alembic import op

from inspector.inspections import evidence_store

# revision identifiers, used by Alembic.
revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None

photos = sa.table('inspection_photos', sa.column('id', sa.Integer),
                  sa.column('sha256', sa.String), sa.column('size', sa.Integer),
                  sa.column('pack', sa.String), sa.column('pack_offset', sa.BigInteger))


def upgrade():
    # in place on both databases (SQLite's ADD COLUMN copies nothing)
    op.add_column('inspection_photos', sa.Column('pack', sa.String(length=64), nullable=True))
    op.add_column('inspection_photos', sa.Column('pack_offset', sa.BigInteger(),
                                                 nullable=True))


def downgrade():
    conn = op.get_bind()
    for row in conn.execute(sa.select(photos).where(photos.c.pack.is_not(None))
                            .order_by(photos.c.id)).all():
        data = evidence_store.read(evidence_store.Location(row.pack, row.pack_offset), row.size)
        if data is None or hashlib.sha256(data).hexdigest() != row.sha256:
            raise RuntimeError(f"inspection_photos.id={row.id}: its bytes are missing from "
                               f"{row.pack} or do not match their SHA-256; nothing was dropped")
        evidence_store.put(row.sha256, data)
    with op.batch_alter_table('inspection_photos', schema=None) as batch_op:
        batch_op.drop_column('pack_offset')
        batch_op.drop_column('pack')
