"""Evidence photos' original bytes move from inspection_photos.data to files named by their
SHA-256 under EVIDENCE_DIR (inspector/inspections/evidence_store.py)

Upgrade writes every stored photo to its file (fsynced, checked against the row's SHA-256
first: a row whose bytes do not match stops the migration, nothing dropped), then drops the
column. Downgrade reads the files back into the column.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 03:00:00

"""
import hashlib

import sqlalchemy as sa
from alembic import op

from inspector.inspections import evidence_store

# revision identifiers, used by Alembic.
revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None

photos = sa.table('inspection_photos', sa.column('id', sa.Integer),
                  sa.column('sha256', sa.String), sa.column('data', sa.LargeBinary))


def upgrade():
    conn = op.get_bind()
    last = 0
    while True:  # a few rows at a time: photos are large
        rows = conn.execute(sa.select(photos.c.id, photos.c.sha256, photos.c.data)
                            .where(photos.c.id > last, photos.c.data.is_not(None))
                            .order_by(photos.c.id).limit(50)).all()
        if not rows:
            break
        for row in rows:
            data = bytes(row.data)
            if hashlib.sha256(data).hexdigest() != row.sha256:
                raise RuntimeError(f"inspection_photos.id={row.id}: the stored bytes do not "
                                   "match their SHA-256; fix that row before migrating")
            evidence_store.put(row.sha256, data)
            last = row.id
    with op.batch_alter_table('inspection_photos', schema=None) as batch_op:
        batch_op.drop_column('data')


def downgrade():
    with op.batch_alter_table('inspection_photos', schema=None) as batch_op:
        batch_op.add_column(sa.Column('data', sa.LargeBinary(), nullable=True))
    conn = op.get_bind()
    received = sa.table('inspection_photos', sa.column('id', sa.Integer),
                        sa.column('sha256', sa.String), sa.column('received_at', sa.DateTime))
    for row in conn.execute(sa.select(received.c.id, received.c.sha256)
                            .where(received.c.received_at.is_not(None))).all():
        data = evidence_store.get(row.sha256)
        if data is not None:
            conn.execute(photos.update().where(photos.c.id == row.id).values(data=data))
