"""one booked vehicle per vistoria slot

A slot of the vistoria agenda holds one vehicle. Two people booking its last place at the same
moment (an admin, a holder from the holder page) both saw it free; a partial unique index over
the bookings still open keeps one of them. A database that already holds two open bookings of
one slot keeps the earliest and records the others as cancelled.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-06 08:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0033'
down_revision = '0032'
branch_labels = None
depends_on = None

BOOKED = sa.text("status = 'booked'")


def upgrade():
    op.execute(sa.text(
        "UPDATE vistoria_appointments SET status = 'cancelled' WHERE status = 'booked' AND id NOT IN "
        "(SELECT MIN(id) FROM vistoria_appointments WHERE status = 'booked' "
        "GROUP BY place_id, starts_at)"))
    with op.batch_alter_table('vistoria_appointments', schema=None) as batch_op:
        batch_op.create_index('uq_vistoria_appointments_booked_slot', ['place_id', 'starts_at'],
                              unique=True, sqlite_where=BOOKED, postgresql_where=BOOKED)


def downgrade():
    with op.batch_alter_table('vistoria_appointments', schema=None) as batch_op:
        batch_op.drop_index('uq_vistoria_appointments_booked_slot')
