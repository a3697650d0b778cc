"""status_changes.sanction_id: the legal act that made a registry row's status change (its
effect, or its undoing after an upheld appeal or a suspension's end); null for a change made by
hand or by an import. An act finds the change it made by this column, not by its reason text.

Added and dropped in place on SQLite (no batch copy), as in 0024.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-06 00:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0028'
down_revision = '0027'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE status_changes ADD COLUMN sanction_id INTEGER')
    else:
        op.add_column('status_changes', sa.Column('sanction_id', sa.Integer(), nullable=True))
    # the changes acts made before: their reason ends with "Ato nº <id>."
    rows = op.get_bind().execute(sa.text(
        "SELECT id, reason FROM status_changes WHERE reason LIKE '%Ato nº %'")).fetchall()
    for row_id, reason in rows:
        tail = reason.rsplit('Ato nº ', 1)[1].split('.', 1)[0].strip()
        if tail.isdigit():
            op.get_bind().execute(sa.text(
                'UPDATE status_changes SET sanction_id = :s WHERE id = :i'),
                {'s': int(tail), 'i': row_id})


def downgrade():
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE status_changes DROP COLUMN sanction_id')
    else:
        op.drop_column('status_changes', 'sanction_id')
