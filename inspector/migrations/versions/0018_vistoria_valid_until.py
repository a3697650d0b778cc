"""vehicles.vistoria_valid_until: a vistoria whose validity the inspector shortened
(Nova Santa Helena Lei 535/2013 Art. 32 § 3º, "A juízo do responsável pela vistoria,
poderá o prazo de validade desta, ser reduzido, se o estado do veículo tornar necessária
tal providência").

Nullable: null means the pack's normal validity (last vistoria + `vistoria_months`). Set
only where the town's rule pack allows it (`periodicity.vistoria_may_be_shortened`); the
service checks it is after `last_vistoria_on` and not later than the normal end. A check
keeps it after the vistoria it shortens. Existing rows get null (nothing was shortened);
the downgrade drops the column (each change is also in the audit log).

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


def upgrade():
    with op.batch_alter_table('vehicles', schema=None) as batch_op:
        batch_op.add_column(sa.Column('vistoria_valid_until', sa.Date(), nullable=True))
        batch_op.create_check_constraint(
            op.f('ck_vehicles_vistoria_valid_until_after_vistoria'),
            'vistoria_valid_until IS NULL OR (last_vistoria_on IS NOT NULL '
            'AND vistoria_valid_until > last_vistoria_on)')


def downgrade():
    with op.batch_alter_table('vehicles', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_vehicles_vistoria_valid_until_after_vistoria'),
                                 type_='check')
        batch_op.drop_column('vistoria_valid_until')
