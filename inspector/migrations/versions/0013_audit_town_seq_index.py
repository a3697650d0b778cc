"""audit_entries (municipality_id, seq): a town's newest entry in one index seek (the
version of the field snapshot and of cached review pages) and its deltas as a range

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 00:45:00

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_entries_municipality_id'))
        batch_op.create_index('ix_audit_entries_municipality_id_seq',
                              ['municipality_id', 'seq'], unique=False)


def downgrade():
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_entries_municipality_id_seq')
        batch_op.create_index(batch_op.f('ix_audit_entries_municipality_id'),
                              ['municipality_id'], unique=False)
