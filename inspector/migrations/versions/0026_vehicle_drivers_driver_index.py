"""vehicle_drivers driver index and inspection_photos waiting index: one town's requests
without reading every town's links or photos

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-02 00:00:00

"""
import sqlalchemy as sa
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
    # The review queue's "a photo still on its way" test: PostgreSQL answers it with a hash of
    # every such photo, which without this partial index meant reading every town's photos.
    waiting = sa.text('received_at IS NULL AND refused_at IS NULL')
    op.create_index('ix_inspection_photos_waiting', 'inspection_photos', ['inspection_id'],
                    unique=False, postgresql_where=waiting, sqlite_where=waiting)


def downgrade():
    op.drop_index('ix_inspection_photos_waiting', table_name='inspection_photos')
    op.drop_index('ix_vehicle_drivers_driver_id', table_name='vehicle_drivers')
