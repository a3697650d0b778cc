"""driver photo thumbnails: the 96x128 JPEG the field snapshot ships, made once at upload

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 23:45:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('drivers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('photo_thumb', sa.LargeBinary(), nullable=True))


def downgrade():
    with op.batch_alter_table('drivers', schema=None) as batch_op:
        batch_op.drop_column('photo_thumb')
