"""drivers.rg_number / rg_issuer (Nortelândia 127 Art. 10 III) and folded name columns for
accent-insensitive name search on drivers and holders

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 02:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade():
    pass  # schema to follow


def downgrade():
    pass
