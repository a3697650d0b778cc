"""pending proposals index: the enforcement worker's look-up of a town's unproposed inspections

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 01:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
