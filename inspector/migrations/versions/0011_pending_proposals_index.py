"""pending proposals index: the enforcement worker's look-up of a town's unproposed inspections

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 01:00:00

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade():
    # (proposed_at, town, completed_at) answers both look-ups: a review page's (one town,
    # oldest completed first) and the tick's (every town); the single-column index it
    # replaces left SQLite walking every inspection of the town on each review page.
    op.drop_index('ix_inspections_proposed_at', table_name='inspections')
    op.create_index('ix_inspections_pending', 'inspections',
                    ['proposed_at', 'municipality_id', 'completed_at'], unique=False)


def downgrade():
    op.drop_index('ix_inspections_pending', table_name='inspections')
    op.create_index('ix_inspections_proposed_at', 'inspections', ['proposed_at'], unique=False)
