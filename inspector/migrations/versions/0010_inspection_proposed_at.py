"""inspections.proposed_at: when the enforcement worker made the proposals of a completed
inspection (null: still to do). The field sync no longer proposes inline.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 00:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.add_column(sa.Column('proposed_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f('ix_inspections_proposed_at'), ['proposed_at'], unique=False)
    # inspections completed before this revision had their proposals made inline
    op.execute("UPDATE inspections SET proposed_at = completed_at WHERE completed_at IS NOT NULL")


def downgrade():
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_inspections_proposed_at'))
        batch_op.drop_column('proposed_at')
