"""notice_company_copies: the company's copy of a rider's notice (Tapurah Lei 406/2001
Art. 27 I, "conseqüente remessa de cópia da notificação à empresa")

One row per notice whose measure in the rule pack asks for a copy to the company
(`copy_to_company` on the measure): the PDF made at issuance, marked "CÓPIA — remetida à
empresa ...", its SHA-256, and the remittance once recorded (day, means, reference, who,
and the in-app notification when the company's subscription was pushed). A check keeps
the day and the means together. Notices issued before this revision get no row (their
PDF cannot be re-made with the printed access code). The downgrade drops the table; each
remittance is also in the audit log (`notice_copy_remitted`).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01 05:35:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'notice_company_copies',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('notice_id', sa.Integer(), nullable=False),
        sa.Column('holder_id', sa.Integer(), nullable=True),
        sa.Column('company_name', sa.String(length=200), nullable=False),
        sa.Column('citation', sa.Text(), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('size', sa.Integer(), nullable=False),
        sa.Column('pdf', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('remitted_on', sa.Date(), nullable=True),
        sa.Column('remitted_via', sa.String(length=20), nullable=True),
        sa.Column('remittance_ref', sa.String(length=200), nullable=False),
        sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('recorded_by_id', sa.Integer(), nullable=True),
        sa.Column('notification_id', sa.Integer(), nullable=True),
        sa.Column('municipality_id', sa.Integer(), nullable=False),
        sa.CheckConstraint('(remitted_on IS NULL) = (remitted_via IS NULL)',
                           name=op.f('ck_notice_company_copies_remittance_complete')),
        sa.ForeignKeyConstraint(['holder_id'], ['holders.id'],
                                name=op.f('fk_notice_company_copies_holder_id_holders')),
        sa.ForeignKeyConstraint(['municipality_id'], ['municipalities.id'],
                                name=op.f('fk_notice_company_copies_municipality_id_municipalities')),
        sa.ForeignKeyConstraint(['notice_id'], ['notices.id'],
                                name=op.f('fk_notice_company_copies_notice_id_notices')),
        sa.ForeignKeyConstraint(['notification_id'], ['notifications.id'],
                                name=op.f('fk_notice_company_copies_notification_id_notifications')),
        sa.ForeignKeyConstraint(['recorded_by_id'], ['users.id'],
                                name=op.f('fk_notice_company_copies_recorded_by_id_users')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_notice_company_copies')),
        sa.UniqueConstraint('notice_id', name=op.f('uq_notice_company_copies_notice_id')),
    )
    with op.batch_alter_table('notice_company_copies', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_notice_company_copies_municipality_id'),
                              ['municipality_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_notice_company_copies_sha256'), ['sha256'],
                              unique=False)
        batch_op.create_index('ix_notice_company_copies_town_pending',
                              ['municipality_id', 'remitted_on'], unique=False)


def downgrade():
    with op.batch_alter_table('notice_company_copies', schema=None) as batch_op:
        batch_op.drop_index('ix_notice_company_copies_town_pending')
        batch_op.drop_index(batch_op.f('ix_notice_company_copies_sha256'))
        batch_op.drop_index(batch_op.f('ix_notice_company_copies_municipality_id'))
    op.drop_table('notice_company_copies')
