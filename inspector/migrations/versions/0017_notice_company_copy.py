"""notice company copy (Tapurah Lei 406/2001 Art. 27 I) — schema being written

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01 05:35:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
