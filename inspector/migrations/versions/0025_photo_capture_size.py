"""the size at which the field app keeps a photo

- `municipalities.photo_max_side`: the longest side in pixels the phone resizes a photo to
  before hashing and storing it; null keeps the camera's bytes (as before this revision).
- `municipalities.photo_quality`: the JPEG quality of that re-encode (50 to 95).
Existing towns get the measured default (1600 px, quality 85; docs/figures.md, "Photo size").

Columns are added and dropped in place on SQLite (no batch copy of `municipalities`, which
every table references), as in 0024.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-02 00:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE municipalities ADD COLUMN photo_max_side INTEGER DEFAULT 1600')
        op.execute('ALTER TABLE municipalities ADD COLUMN photo_quality INTEGER NOT NULL '
                   'DEFAULT 85')
    else:
        op.add_column('municipalities', sa.Column('photo_max_side', sa.Integer(), nullable=True,
                                                  server_default='1600'))
        op.add_column('municipalities', sa.Column('photo_quality', sa.Integer(), nullable=False,
                                                  server_default='85'))


def downgrade():
    for name in ('photo_quality', 'photo_max_side'):
        if op.get_bind().dialect.name == 'sqlite':   # DROP COLUMN in place (SQLite >= 3.35)
            op.execute(f'ALTER TABLE municipalities DROP COLUMN {name}')
        else:
            op.drop_column('municipalities', name)
