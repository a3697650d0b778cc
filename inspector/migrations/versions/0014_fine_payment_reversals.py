"""fine payment reversals (estorno)

A payment recorded by mistake is never deleted or edited: it is reversed, with who, when and
why on the row itself (reversed_at, reversed_by_id, reversal_reason; a check keeps the moment
and the reason together). A reversed payment no longer counts, and its DAM or receipt number
may be recorded again (on the right fine, with the right amount): the per-town uniqueness of
the number becomes a partial unique index over the payments not reversed.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 02:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None

LIVE = sa.text('reversed_at IS NULL')


def upgrade():
    with op.batch_alter_table('fine_payments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reversed_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('reversed_by_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('reversal_reason', sa.Text(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_fine_payments_reversed_by_id_users'),
                                    'users', ['reversed_by_id'], ['id'])
        batch_op.create_check_constraint(
            'reversal_complete', '(reversed_at IS NULL) = (reversal_reason IS NULL)')
        batch_op.drop_constraint(batch_op.f('uq_fine_payments_municipality_id_receipt'),
                                 type_='unique')
        batch_op.create_index('ux_fine_payments_live_receipt', ['municipality_id', 'receipt'],
                              unique=True, sqlite_where=LIVE, postgresql_where=LIVE)


def downgrade():
    # Reversed payments are kept, as payments: their receipts may now repeat, so the
    # downgrade stops rather than lose a row if two share a number.
    with op.batch_alter_table('fine_payments', schema=None) as batch_op:
        batch_op.drop_index('ux_fine_payments_live_receipt')
        batch_op.create_unique_constraint(
            batch_op.f('uq_fine_payments_municipality_id_receipt'),
            ['municipality_id', 'receipt'])
        batch_op.drop_constraint(batch_op.f('ck_fine_payments_reversal_complete'), type_='check')
        batch_op.drop_constraint(batch_op.f('fk_fine_payments_reversed_by_id_users'),
                                 type_='foreignkey')
        batch_op.drop_column('reversal_reason')
        batch_op.drop_column('reversed_by_id')
        batch_op.drop_column('reversed_at')
