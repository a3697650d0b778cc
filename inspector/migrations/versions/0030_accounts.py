"""accounts that must choose their own password at first sign-in; the versions of the rule
packs a town's acts are judged under; and again the repair of revision 0027

- users.must_change_password: an account an admin or `users create` made signs in once with
  the password it was given, then must choose its own before any other page is served;
- rule_pack_versions: the SHA-256 of each rule pack in use, compared at start, at a restore
  and by `production check` with the pack on disk;
- repair(): the same checks as 0027, for a database stamped with the withdrawn revision 0027
  (Alembic takes it as already at 0027 and skips that migration); each step is skipped when
  already true.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-06 05:20:00

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0030'
down_revision = '0029'
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
    op.create_table('rule_pack_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('pack_id', sa.String(length=60), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('recorded_by', sa.String(length=40), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rule_pack_versions'))
    )
    with op.batch_alter_table('rule_pack_versions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rule_pack_versions_pack_id'), ['pack_id'], unique=False)

    # ADD COLUMN in place: users is referenced by other tables, which batch mode's
    # copy-and-move of the table would break on SQLite
    op.add_column('users', sa.Column('must_change_password', sa.Boolean(),
                                     server_default=sa.false(), nullable=False))


def downgrade():
    if op.get_bind().dialect.name == 'sqlite':   # DROP COLUMN in place (SQLite >= 3.35):
        # users is referenced by other tables, which batch mode's copy-and-move would break
        op.execute('ALTER TABLE users DROP COLUMN must_change_password')
    else:
        op.drop_column('users', 'must_change_password')

    with op.batch_alter_table('rule_pack_versions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rule_pack_versions_pack_id'))

    op.drop_table('rule_pack_versions')
