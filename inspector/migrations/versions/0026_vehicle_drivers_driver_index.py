"""vehicle_drivers driver index: a driver's vehicles without reading every town's links

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-02 00:00:00

"""
from alembic import op

# revision identifiers, used by Alembic.
revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade():
    # The primary key (vehicle_id, driver_id) only answers "the drivers of a vehicle". The
    # snapshot's links (drivers of one town -> their vehicles) and the passenger page of a
    # rider's badge ask the other way round; without this index both read every link of
    # every town (bench/many_towns.py).
    op.create_index('ix_vehicle_drivers_driver_id', 'vehicle_drivers', ['driver_id', 'vehicle_id'],
                    unique=False)


def downgrade():
    op.drop_index('ix_vehicle_drivers_driver_id', table_name='vehicle_drivers')
