"""review queue indexes: the queue's filters and its newest-first order, by town

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 00:30:00

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

# In the queue's order (finished_at, id; its date filters are ranges of finished_at) after
# each filter, with the other filter's column at the end: a page of the queue reads index
# entries only, whatever combination of filters it has.
INDEXES = {
    'ix_inspections_town_finished': ['municipality_id', 'finished_at', 'id'],
    'ix_inspections_town_status_finished': ['municipality_id', 'status', 'finished_at', 'id',
                                            'agent_id'],
    'ix_inspections_town_agent_finished': ['municipality_id', 'agent_id', 'finished_at', 'id',
                                           'status'],
}


def upgrade():
    for name, columns in INDEXES.items():
        op.create_index(name, 'inspections', columns, unique=False)


def downgrade():
    for name in INDEXES:
        op.drop_index(name, table_name='inspections')
