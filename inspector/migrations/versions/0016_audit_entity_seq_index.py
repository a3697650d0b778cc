"""audit_entries (entity, entity_id, seq): one entity's history (a vehicle's or driver's page,
the registry changes a synced inspection missed) as index ranges instead of a walk over the
whole town's log

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01 03:25:00

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.create_index('ix_audit_entries_entity_entity_id_seq',
                              ['entity', 'entity_id', 'seq'], unique=False)


def downgrade():
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_entries_entity_entity_id_seq')
