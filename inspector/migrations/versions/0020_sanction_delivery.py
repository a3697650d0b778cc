"""sanctions: the delivery of a decided act to the offender (intimação / recebimento)

Time runs from delivery, not from the decision: Nova Santa Helena Lei 535/2013 Art. 27 § único
and Art. 28 § único ("Após o recebimento, pelo infrator e pelo permissionário, da
notificação ... terão prazo de 10 (dez) dias"), Nortelândia Lei 030/1998 Art. 16 § 2º ("no
prazo de 10 (dez) dias, contados a partir da intimação"). `notified_at` stays the moment time
starts; these columns say how it was delivered: `delivered_via` (hand, mail_ar, email,
edital, street), `delivery_ref` (AR number, who received it, e-mail address, edital),
`delivery_recorded_by_id` and `delivery_recorded_at` (who entered it, when).

All nullable: existing acts were notified with their decision (or on the street) and keep
`notified_at` as it was; they get no means (the history says how). On SQLite the columns are
added and dropped in place (a batch copy of `sanctions`, which notices, fines and appeals
reference, would fail on a database with data). The downgrade drops them; each delivery is
also in the audit log (`sanction_delivered`).

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01 14:20:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None

FK = 'fk_sanctions_delivery_recorded_by_id_users'
COLUMNS = ('delivery_recorded_at', 'delivery_recorded_by_id', 'delivery_ref', 'delivered_via')


def upgrade():
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE sanctions ADD COLUMN delivered_via VARCHAR(20)')
        op.execute('ALTER TABLE sanctions ADD COLUMN delivery_ref VARCHAR(200)')
        op.execute(f'ALTER TABLE sanctions ADD COLUMN delivery_recorded_by_id INTEGER '
                   f'CONSTRAINT {FK} REFERENCES users (id)')
        op.execute('ALTER TABLE sanctions ADD COLUMN delivery_recorded_at DATETIME')
        return
    op.add_column('sanctions', sa.Column('delivered_via', sa.String(length=20), nullable=True))
    op.add_column('sanctions', sa.Column('delivery_ref', sa.String(length=200), nullable=True))
    op.add_column('sanctions', sa.Column('delivery_recorded_by_id', sa.Integer(),
                                         nullable=True))
    op.add_column('sanctions', sa.Column('delivery_recorded_at', sa.DateTime(timezone=True),
                                         nullable=True))
    op.create_foreign_key(FK, 'sanctions', 'users', ['delivery_recorded_by_id'], ['id'])


def downgrade():
    if op.get_bind().dialect.name == 'sqlite':
        for name in COLUMNS:   # DROP COLUMN in place (SQLite >= 3.35)
            op.execute(f'ALTER TABLE sanctions DROP COLUMN {name}')
        return
    op.drop_constraint(FK, 'sanctions', type_='foreignkey')
    for name in COLUMNS:
        op.drop_column('sanctions', name)
