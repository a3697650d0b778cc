"""vehicles.vistoria_valid_until: a vistoria whose validity the inspector shortened
(Nova Santa Helena Lei 535/2013 Art. 32 § 3º, "A juízo do responsável pela vistoria,
poderá o prazo de validade desta, ser reduzido, se o estado do veículo tornar necessária
tal providência").

Nullable: null means the pack's normal validity (last vistoria + `vistoria_months`). Set
only where the town's rule pack allows it (`periodicity.vistoria_may_be_shortened`); the
service checks it is after `last_vistoria_on` and not later than the normal end. A check
keeps it after the vistoria it shortens (on SQLite a check on the column, added and dropped
in place: no copy of `vehicles`, which other tables' rows reference). Existing rows get null
(nothing was shortened); the downgrade drops the column (each change is also in the audit
log).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01 05:55:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


NAME = 'ck_vehicles_vistoria_valid_until_after_vistoria'
CHECK = ('vistoria_valid_until IS NULL OR (last_vistoria_on IS NOT NULL '
         'AND vistoria_valid_until > last_vistoria_on)')


def upgrade():
    if op.get_bind().dialect.name == 'sqlite':
        # The check goes on the new column: SQLite adds it in place. A batch copy of the
        # table would drop `vehicles`, which licences, policies, inspections ... rows reference
        # (foreign keys are on), and fail on any database with data.
        op.execute(f'ALTER TABLE vehicles ADD COLUMN vistoria_valid_until DATE '
                   f'CONSTRAINT {NAME} CHECK ({CHECK})')
        return
    op.add_column('vehicles', sa.Column('vistoria_valid_until', sa.Date(), nullable=True))
    op.create_check_constraint(op.f(NAME), 'vehicles', CHECK)


def downgrade():
    if op.get_bind().dialect.name == 'sqlite':
        # DROP COLUMN in place (SQLite >= 3.35): the column's own check goes with it.
        op.execute('ALTER TABLE vehicles DROP COLUMN vistoria_valid_until')
        return
    op.drop_constraint(op.f(NAME), 'vehicles', type_='check')
    op.drop_column('vehicles', 'vistoria_valid_until')
