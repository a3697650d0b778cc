"""audit entries chained when their transaction commits: number and hashes may wait for the
commit (inspector/audit.py `sequence`), so the chain's lock is held only for that step

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-02 03:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None

UNCHAINED = sa.text('seq IS NULL')


def upgrade():
    # audit_entries is referenced by no other table: SQLite's copy-and-move of the table
    # (batch mode) keeps every foreign key of the database intact
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        for column, kind in (('seq', sa.Integer()), ('prev_hash', sa.String(length=64)),
                             ('hash', sa.String(length=64))):
            batch_op.alter_column(column, existing_type=kind, nullable=True)
    op.create_index('ix_audit_entries_unchained', 'audit_entries', ['id'], unique=False,
                    postgresql_where=UNCHAINED, sqlite_where=UNCHAINED)


def downgrade():
    op.drop_index('ix_audit_entries_unchained', table_name='audit_entries',
                  postgresql_where=UNCHAINED, sqlite_where=UNCHAINED)
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        for column, kind in (('seq', sa.Integer()), ('prev_hash', sa.String(length=64)),
                             ('hash', sa.String(length=64))):
            batch_op.alter_column(column, existing_type=kind, nullable=False)
