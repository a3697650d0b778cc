"""a deadline to repair granted at the authority's discretion (Tapurah Lei 406/2001 Art. 19)

- `sanctions.deadline_granted_by`: "agent" (chosen on the street, in the inspection's body) or
  "supervisor" (on the act's review); null: the law's own deadline (Art. 29 § único: 72 hours).
- `sanctions.deadline_grant_reason`: the reason written with the grant (required by the product
  owner's reading, December 2026); printed on the notice and the holder page.

Columns are added and dropped in place on SQLite (no batch copy of `sanctions`, which other
tables reference), as in 0021.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-02 00:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None

COLUMNS = (('sanctions', 'deadline_granted_by', 'VARCHAR(20)', sa.String(length=20)),
           ('sanctions', 'deadline_grant_reason', 'TEXT', sa.Text()))


def upgrade():
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for table, name, sql_type, sa_type in COLUMNS:
        if sqlite:
            op.execute(f'ALTER TABLE {table} ADD COLUMN {name} {sql_type}')
        else:
            op.add_column(table, sa.Column(name, sa_type, nullable=True))


def downgrade():
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for table, name, _, _ in reversed(COLUMNS):
        if sqlite:   # DROP COLUMN in place (SQLite >= 3.35)
            op.execute(f'ALTER TABLE {table} DROP COLUMN {name}')
        else:
            op.drop_column(table, name)
