"""vistorias: the kind of each inspection (street, prior, periodic vistoria), the decided
result of each vistoria with its certificate, each town's vistoria settings, and the agenda
(places with their weekdays, hours and slots; appointments) and the reminders sent to holders

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-06 00:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0029'
down_revision = '0028'
branch_labels = None
depends_on = None


def upgrade():
    # every inspection before this one was a street inspection; added in place (a batch copy
    # of `inspections` on SQLite would drop a table that items and photos reference)
    op.add_column('inspections', sa.Column('kind', sa.Enum('street', 'prior', 'periodic',
                                                           name='inspectionkind',
                                                           native_enum=False, length=30),
                                           server_default='street', nullable=False))
    op.create_table(
        'vistorias',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('inspection_id', sa.Integer(), nullable=False),
        sa.Column('vehicle_id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.Enum('street', 'prior', 'periodic', name='inspectionkind',
                                  native_enum=False, length=30), nullable=False),
        sa.Column('performed_on', sa.Date(), nullable=False),
        sa.Column('result', sa.Enum('approved', 'rejected', name='vistoriaresult',
                                    native_enum=False, length=30), nullable=False),
        sa.Column('law', sa.String(length=60), nullable=False),
        sa.Column('article', sa.String(length=120), nullable=False),
        sa.Column('period_article', sa.String(length=120), nullable=True),
        sa.Column('normal_until', sa.Date(), nullable=True),
        sa.Column('valid_until', sa.Date(), nullable=True),
        sa.Column('shortened_reason', sa.Text(), nullable=True),
        sa.Column('return_on', sa.Date(), nullable=True),
        sa.Column('to_fix', sa.Text(), nullable=False),
        sa.Column('decided_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('certificate_number', sa.String(length=30), nullable=True),
        sa.Column('token', sa.String(length=200), nullable=True),
        sa.Column('token_hash', sa.String(length=64), nullable=True),
        sa.Column('pdf', sa.LargeBinary(), nullable=True),
        sa.Column('pdf_sha256', sa.String(length=64), nullable=True),
        sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('revoked_reason', sa.Text(), nullable=True),
        sa.Column('municipality_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['users.id'], name=op.f('fk_vistorias_agent_id_users')),
        sa.ForeignKeyConstraint(['inspection_id'], ['inspections.id'],
                                name=op.f('fk_vistorias_inspection_id_inspections')),
        sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'],
                                name=op.f('fk_vistorias_municipality_id_municipalities')),
        sa.ForeignKeyConstraint(['vehicle_id'], ['vehicles.id'],
                                name=op.f('fk_vistorias_vehicle_id_vehicles')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_vistorias')),
        sa.UniqueConstraint('inspection_id', name=op.f('uq_vistorias_inspection_id')),
        sa.UniqueConstraint('municipality_id', 'certificate_number',
                            name=op.f('uq_vistorias_municipality_id_certificate_number')),
        sa.UniqueConstraint('token_hash', name=op.f('uq_vistorias_token_hash')),
    )
    op.create_index(op.f('ix_vistorias_municipality_id'), 'vistorias', ['municipality_id'])
    op.create_index(op.f('ix_vistorias_vehicle_id'), 'vistorias', ['vehicle_id'])
    op.create_table(
        'vistoria_settings',
        sa.Column('municipality_id', sa.Integer(), nullable=False),
        sa.Column('return_days', sa.Integer(), nullable=False),
        sa.Column('reminder_days', sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'],
                                name=op.f('fk_vistoria_settings_municipality_id_municipalities')),
        sa.PrimaryKeyConstraint('municipality_id', name=op.f('pk_vistoria_settings')),
    )
    op.create_table(
        'vistoria_places',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=120), nullable=False),
        sa.Column('address', sa.String(length=200), nullable=False),
        sa.Column('weekdays', sa.String(length=20), nullable=False),
        sa.Column('start_hour', sa.Integer(), nullable=False),
        sa.Column('end_hour', sa.Integer(), nullable=False),
        sa.Column('slots_per_hour', sa.Integer(), nullable=False),
        sa.Column('active', sa.Boolean(), nullable=False),
        sa.Column('municipality_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'],
                                name=op.f('fk_vistoria_places_municipality_id_municipalities')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_vistoria_places')),
    )
    op.create_index(op.f('ix_vistoria_places_municipality_id'), 'vistoria_places',
                    ['municipality_id'])
    op.create_table(
        'vistoria_appointments',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('place_id', sa.Integer(), nullable=False),
        sa.Column('vehicle_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.Enum('street', 'prior', 'periodic', name='inspectionkind',
                                  native_enum=False, length=30), nullable=False),
        sa.Column('starts_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status', sa.Enum('booked', 'done', 'no_show', 'cancelled',
                                    name='appointmentstatus', native_enum=False, length=30),
                  nullable=False),
        sa.Column('booked_by_id', sa.Integer(), nullable=True),
        sa.Column('booked_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('municipality_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['booked_by_id'], ['users.id'],
                                name=op.f('fk_vistoria_appointments_booked_by_id_users')),
        sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'],
                                name=op.f('fk_vistoria_appointments_municipality_id_municipalities')),
        sa.ForeignKeyConstraint(['place_id'], ['vistoria_places.id'],
                                name=op.f('fk_vistoria_appointments_place_id_vistoria_places')),
        sa.ForeignKeyConstraint(['vehicle_id'], ['vehicles.id'],
                                name=op.f('fk_vistoria_appointments_vehicle_id_vehicles')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_vistoria_appointments')),
    )
    for column in ('municipality_id', 'place_id', 'starts_at', 'vehicle_id'):
        op.create_index(op.f(f'ix_vistoria_appointments_{column}'), 'vistoria_appointments',
                        [column])
    op.create_table(
        'vistoria_reminders',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('vehicle_id', sa.Integer(), nullable=False),
        sa.Column('holder_id', sa.Integer(), nullable=False),
        sa.Column('due_on', sa.Date(), nullable=False),
        sa.Column('lead_days', sa.Integer(), nullable=False),
        sa.Column('channel', sa.String(length=10), nullable=False),
        sa.Column('address', sa.String(length=200), nullable=False),
        sa.Column('sent_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('municipality_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['holder_id'], ['holders.id'],
                                name=op.f('fk_vistoria_reminders_holder_id_holders')),
        sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'],
                                name=op.f('fk_vistoria_reminders_municipality_id_municipalities')),
        sa.ForeignKeyConstraint(['vehicle_id'], ['vehicles.id'],
                                name=op.f('fk_vistoria_reminders_vehicle_id_vehicles')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_vistoria_reminders')),
        sa.UniqueConstraint('vehicle_id', 'due_on', 'lead_days', 'channel',
                            name=op.f('uq_vistoria_reminders_vehicle_id_due_on_lead_days_channel')),
    )
    op.create_index(op.f('ix_vistoria_reminders_municipality_id'), 'vistoria_reminders',
                    ['municipality_id'])
    op.create_index(op.f('ix_vistoria_reminders_vehicle_id'), 'vistoria_reminders',
                    ['vehicle_id'])


def downgrade():
    op.drop_index(op.f('ix_vistoria_reminders_vehicle_id'), table_name='vistoria_reminders')
    op.drop_index(op.f('ix_vistoria_reminders_municipality_id'), table_name='vistoria_reminders')
    op.drop_table('vistoria_reminders')
    for column in ('municipality_id', 'place_id', 'starts_at', 'vehicle_id'):
        op.drop_index(op.f(f'ix_vistoria_appointments_{column}'),
                      table_name='vistoria_appointments')
    op.drop_table('vistoria_appointments')
    op.drop_index(op.f('ix_vistoria_places_municipality_id'), table_name='vistoria_places')
    op.drop_table('vistoria_places')
    op.drop_table('vistoria_settings')
    op.drop_index(op.f('ix_vistorias_vehicle_id'), table_name='vistorias')
    op.drop_index(op.f('ix_vistorias_municipality_id'), table_name='vistorias')
    op.drop_table('vistorias')
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE inspections DROP COLUMN kind')  # in place (SQLite >= 3.35)
        return
    op.drop_column('inspections', 'kind')
