"""a town's own time zone, and a photo the server refused for good

- `municipalities.timezone`: the IANA name of the town's clock. Every town in
  Mato Grosso today is America/Cuiaba, the default; a town is created with its own.
- `inspection_photos.refused_at`, `refused_reason`: the server decoded the bytes and will
  never accept them (truncated, another file appended, a bomb). The inspection
  stops waiting for that photo and the review says why it is missing.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-01 23:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None


COLUMNS = (('municipalities', sa.Column('timezone', sa.String(length=40), nullable=False,
                                         server_default='America/Cuiaba')),
           ('inspection_photos', sa.Column('refused_at', sa.DateTime(timezone=True),
                                            nullable=True)),
           ('inspection_photos', sa.Column('refused_reason', sa.String(length=200),
                                            nullable=True)))


# Plain ADD/DROP COLUMN, never a batch copy: on SQLite a batch rebuild drops and recreates
# `municipalities`, which every town-scoped table references (FOREIGN KEY constraint failed).
def upgrade():
    for table, column in COLUMNS:
        op.add_column(table, column)


def downgrade():
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for table, column in reversed(COLUMNS):
        if sqlite:   # DROP COLUMN in place (SQLite >= 3.35)
            op.execute(f'ALTER TABLE {table} DROP COLUMN {column.name}')
        else:
            op.drop_column(table, column.name)
