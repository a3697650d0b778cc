"""repair: a database whose schema went through a migration since withdrawn reaches what the
models need

Two schemas left by development builds are brought to the one the models describe, after
checking what the database holds (each step is skipped when already true):
- the audit chain's columns (seq, prev_hash, hash) are NOT NULL, without the partial index
  ix_audit_entries_unchained: a database that ran the withdrawn revision 0027
  ("audit entries chained when their transaction commits") had them nullable, with that index;
- inspection_photos has the partial index ix_inspection_photos_waiting: a database migrated
  to 0026 before 0026 gained that index lacks it.
The same repair runs again in 0030, because a database stamped with the withdrawn 0027 is
already at this revision for Alembic and never runs this one.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06 05:00:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None

CHAIN = (('seq', sa.Integer()), ('prev_hash', sa.String(length=64)),
         ('hash', sa.String(length=64)))
WAITING = sa.text('received_at IS NULL AND refused_at IS NULL')


def repair():
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    audit_indexes = {i['name'] for i in inspector.get_indexes('audit_entries')}
    if 'ix_audit_entries_unchained' in audit_indexes:
        op.drop_index('ix_audit_entries_unchained', table_name='audit_entries')
    nullable = [name for name, _ in CHAIN
                if next(c for c in inspector.get_columns('audit_entries')
                        if c['name'] == name)['nullable']]
    if nullable:
        unchained = bind.execute(sa.text(
            'SELECT count(*) FROM audit_entries WHERE seq IS NULL OR prev_hash IS NULL '
            'OR hash IS NULL')).scalar()
        if unchained:
            raise RuntimeError(
                f'{unchained} registro(s) de auditoria sem número ou hash na cadeia: o '
                'programa que os escreveu não terminou a transação; restaure o backup '
                'anterior ou fale com o suporte (docs/releases.md, "Revisão 0027")')
        with op.batch_alter_table('audit_entries', schema=None) as batch_op:
            for column, kind in CHAIN:
                if column in nullable:
                    batch_op.alter_column(column, existing_type=kind, nullable=False)
    photo_indexes = {i['name'] for i in sa.inspect(bind).get_indexes('inspection_photos')}
    if 'ix_inspection_photos_waiting' not in photo_indexes:
        op.create_index('ix_inspection_photos_waiting', 'inspection_photos', ['inspection_id'],
                        unique=False, postgresql_where=WAITING, sqlite_where=WAITING)


def upgrade():
    repair()


def downgrade():
    # 0026 itself now creates the photo index and a NOT NULL chain: nothing to undo
    pass
