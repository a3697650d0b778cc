"""drivers.rg_number / rg_issuer (Nortelândia 127 Art. 10 III) and folded name columns for
accent-insensitive name search on drivers and holders

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 02:00:00

"""
import unicodedata

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

BATCH = 2000


def _fold(value):
    """Same as inspector.models.registry.fold_name on the day of this revision."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", value or "")
                    if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())[:300]


def _backfill(table):
    conn = op.get_bind()
    rows = conn.execute(sa.text(f"SELECT id, name FROM {table}")).all()
    stmt = sa.text(f"UPDATE {table} SET name_folded = :f WHERE id = :i")
    for start in range(0, len(rows), BATCH):
        conn.execute(stmt, [{"f": _fold(name), "i": id_}
                            for id_, name in rows[start:start + BATCH]])


def upgrade():
    with op.batch_alter_table('drivers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('name_folded', sa.String(length=300), server_default='',
                                      nullable=False))
        batch_op.add_column(sa.Column('rg_number', sa.String(length=20), server_default='',
                                      nullable=False))
        batch_op.add_column(sa.Column('rg_issuer', sa.String(length=20), server_default='',
                                      nullable=False))
    with op.batch_alter_table('holders', schema=None) as batch_op:
        batch_op.add_column(sa.Column('name_folded', sa.String(length=300), server_default='',
                                      nullable=False))
    _backfill('drivers')
    _backfill('holders')
    op.create_index('ix_drivers_town_name_folded', 'drivers', ['municipality_id', 'name_folded'],
                    unique=False)
    op.create_index('ix_holders_town_name_folded', 'holders', ['municipality_id', 'name_folded'],
                    unique=False)


def downgrade():
    op.drop_index('ix_holders_town_name_folded', table_name='holders')
    op.drop_index('ix_drivers_town_name_folded', table_name='drivers')
    # Plain ALTER TABLE ... DROP COLUMN (SQLite 3.35+): a batch copy of holders or drivers
    # would trip the foreign keys that point at them once the tables hold rows.
    op.drop_column('holders', 'name_folded')
    for column in ('rg_issuer', 'rg_number', 'name_folded'):
        op.drop_column('drivers', column)
