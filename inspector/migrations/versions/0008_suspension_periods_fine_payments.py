"""suspension periods and fine payments

A confirmed suspension is a period of days (the rule pack bounds its length): the act keeps
its length, first and last day, the registry change it made and when the tick lifted it; the
registry rows (drivers, permits, licences) keep the last day of the suspension in force, for
the passenger page and the agents. A fine's payments are recorded as the town's treasury
reports them (day, amount in BRL, DAM or receipt number, unique per town).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 09:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

REGISTRY = ('drivers', 'permits', 'licences')


def upgrade():
    op.create_table('fine_payments',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('fine_id', sa.Integer(), nullable=False),
    sa.Column('paid_on', sa.Date(), nullable=False),
    sa.Column('amount_brl', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('receipt', sa.String(length=40), nullable=False),
    sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('recorded_by_id', sa.Integer(), nullable=True),
    sa.Column('municipality_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['fine_id'], ['fines.id'], name=op.f('fk_fine_payments_fine_id_fines')),
    sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'], name=op.f('fk_fine_payments_municipality_id_municipalities')),
    sa.ForeignKeyConstraint(['recorded_by_id'], ['users.id'], name=op.f('fk_fine_payments_recorded_by_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fine_payments')),
    sa.UniqueConstraint('municipality_id', 'receipt', name=op.f('uq_fine_payments_municipality_id_receipt'))
    )
    with op.batch_alter_table('fine_payments', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_fine_payments_fine_id'), ['fine_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_fine_payments_municipality_id'), ['municipality_id'], unique=False)

    with op.batch_alter_table('sanctions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('effect_change_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('suspension_days', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('suspension_start', sa.Date(), nullable=True))
        batch_op.add_column(sa.Column('suspension_end', sa.Date(), nullable=True))
        batch_op.add_column(sa.Column('effect_lifted_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f('ix_sanctions_suspension_end'), ['suspension_end'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_sanctions_effect_change_id_status_changes'), 'status_changes', ['effect_change_id'], ['id'])

    for table in REGISTRY:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('suspended_until', sa.Date(), nullable=True))


def downgrade():
    for table in reversed(REGISTRY):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('suspended_until')

    with op.batch_alter_table('sanctions', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_sanctions_effect_change_id_status_changes'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_sanctions_suspension_end'))
        batch_op.drop_column('effect_lifted_at')
        batch_op.drop_column('suspension_end')
        batch_op.drop_column('suspension_start')
        batch_op.drop_column('suspension_days')
        batch_op.drop_column('effect_change_id')

    with op.batch_alter_table('fine_payments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_fine_payments_municipality_id'))
        batch_op.drop_index(batch_op.f('ix_fine_payments_fine_id'))

    op.drop_table('fine_payments')
