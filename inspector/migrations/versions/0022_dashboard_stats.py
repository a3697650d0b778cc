"""the town's dashboard and open data: the fleet's standing per day, and indexes
that let a period's counts be read from index entries

- `fleet_standing_days`: one row per town, local day and service (vehicles, regular,
  irregular, suspended), written when that day's standing is first computed; the trend of
  the share of the fleet regular.
- `ix_inspections_town_finished_agent` (municipality_id, finished_at, agent_id, failed_items):
  inspections per local day and agent over a period without reading their rows (the body
  and the signature make them wide).
- `ix_inspection_items_result` (inspection_id, result, item_id): the failed answers of an
  inspection without the others.
- `ix_sanctions_town_proposed` (municipality_id, proposed_at, kind, status, notified_at,
  decided_at): a period's acts by kind and state, awaiting delivery included.
- `ix_fine_payments_town_paid`, `ix_passenger_reports_town_created`: a period's payments and
  passenger reports.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03 10:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None

INDEXES = (
    ('ix_inspections_town_finished_agent', 'inspections',
     ['municipality_id', 'finished_at', 'agent_id', 'failed_items']),
    ('ix_inspection_items_result', 'inspection_items', ['inspection_id', 'result', 'item_id']),
    ('ix_sanctions_town_proposed', 'sanctions',
     ['municipality_id', 'proposed_at', 'kind', 'status', 'notified_at', 'decided_at']),
    ('ix_fine_payments_town_paid', 'fine_payments', ['municipality_id', 'paid_on']),
    ('ix_passenger_reports_town_created', 'passenger_reports', ['municipality_id', 'created_at']),
)


def upgrade():
    op.create_table('fleet_standing_days',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('service', sa.Enum('taxi', 'mototaxi', name='service', native_enum=False, length=30), nullable=False),
    sa.Column('vehicles', sa.Integer(), nullable=False),
    sa.Column('regular', sa.Integer(), nullable=False),
    sa.Column('irregular', sa.Integer(), nullable=False),
    sa.Column('suspended', sa.Integer(), nullable=False),
    sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('municipality_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'], name=op.f('fk_fleet_standing_days_municipality_id_municipalities')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fleet_standing_days')),
    sa.UniqueConstraint('municipality_id', 'day', 'service', name=op.f('uq_fleet_standing_days_municipality_id_day_service'))
    )
    with op.batch_alter_table('fleet_standing_days', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_fleet_standing_days_municipality_id'), ['municipality_id'], unique=False)
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns, unique=False)


def downgrade():
    for name, table, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    with op.batch_alter_table('fleet_standing_days', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_fleet_standing_days_municipality_id'))
    op.drop_table('fleet_standing_days')
