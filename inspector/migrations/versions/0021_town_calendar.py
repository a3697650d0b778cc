"""the legal calendar's data: a town's own closures, the years it entered, how each deadline
was counted, and a vehicle's exact manufacture and first-licensing days

- `town_closures`: a day the town hall does not open by the town's own law or decree
  (reason, act number, act date, kind), one per town and day; `town_calendar_years`: the years
  whose closures the town has entered in full (../shared/DOMAIN.md, "Days without office":
  a year with no town data shows that the calendar is incomplete).
- `sanctions.appeal_explain`, `sanctions.deadline_explain`: the counting of `appeal_until` /
  `deadline_at` as issued (Lei 9.784/1999 Art. 66, or CPC Arts. 219/224 for Nortelândia Lei
  030/1998 Art. 16 § 2º): the rule, the span and the days skipped with their reason. Existing
  acts keep null (their dates were counted before the calendar: shown without explanation).
- `vehicles.manufactured_on`, `vehicles.first_licensed_on`: the exact days when known
  ("completarem 5 anos de fabricação", Nova Santa Helena Lei 535/2013 Art. 14; "no máximo 5
  anos de uso", Tapurah Lei 406/2001 Art. 13). Null: only the year is known.

Columns are added and dropped in place on SQLite (no batch copy of `sanctions` or
`vehicles`, which other tables reference).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02 09:00:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None

COLUMNS = (('sanctions', 'deadline_explain', 'TEXT', sa.Text()),
           ('sanctions', 'appeal_explain', 'TEXT', sa.Text()),
           ('vehicles', 'manufactured_on', 'DATE', sa.Date()),
           ('vehicles', 'first_licensed_on', 'DATE', sa.Date()))


def upgrade():
    op.create_table('town_closures',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('reason', sa.String(length=200), nullable=False),
    sa.Column('act', sa.String(length=200), nullable=False),
    sa.Column('act_date', sa.Date(), nullable=False),
    sa.Column('kind', sa.String(length=40), nullable=False),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
    sa.Column('municipality_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_town_closures_created_by_id_users')),
    sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'], name=op.f('fk_town_closures_municipality_id_municipalities')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_town_closures')),
    sa.UniqueConstraint('municipality_id', 'day', name=op.f('uq_town_closures_municipality_id_day'))
    )
    with op.batch_alter_table('town_closures', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_town_closures_municipality_id'), ['municipality_id'], unique=False)

    op.create_table('town_calendar_years',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('year', sa.Integer(), nullable=False),
    sa.Column('entered_by_id', sa.Integer(), nullable=True),
    sa.Column('entered_at', sa.DateTime(timezone=True), server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
    sa.Column('municipality_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['entered_by_id'], ['users.id'], name=op.f('fk_town_calendar_years_entered_by_id_users')),
    sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'], name=op.f('fk_town_calendar_years_municipality_id_municipalities')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_town_calendar_years')),
    sa.UniqueConstraint('municipality_id', 'year', name=op.f('uq_town_calendar_years_municipality_id_year'))
    )
    with op.batch_alter_table('town_calendar_years', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_town_calendar_years_municipality_id'), ['municipality_id'], unique=False)

    sqlite = op.get_bind().dialect.name == 'sqlite'
    for table, name, sql_type, sa_type in COLUMNS:
        if sqlite:
            op.execute(f'ALTER TABLE {table} ADD COLUMN {name} {sql_type}')
        else:
            op.add_column(table, sa.Column(name, sa_type, nullable=True))


def downgrade():
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for table, name, _, _ in reversed(COLUMNS):
        if sqlite:   # DROP COLUMN in place (SQLite >= 3.35)
            op.execute(f'ALTER TABLE {table} DROP COLUMN {name}')
        else:
            op.drop_column(table, name)
    with op.batch_alter_table('town_calendar_years', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_town_calendar_years_municipality_id'))
    op.drop_table('town_calendar_years')
    with op.batch_alter_table('town_closures', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_town_closures_municipality_id'))
    op.drop_table('town_closures')
