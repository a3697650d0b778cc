"""driver photo thumbnails: the 96x128 JPEG the field snapshot ships, made once at upload

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 23:45:00

"""
from io import BytesIO

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('drivers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('photo_thumb', sa.LargeBinary(), nullable=True))
    _backfill()


def _backfill():
    """Thumbnails of the photos already stored (what services/photos.thumbnail makes)."""
    from PIL import Image

    conn = op.get_bind()
    drivers = sa.table('drivers', sa.column('id', sa.Integer), sa.column('photo', sa.LargeBinary),
                       sa.column('photo_thumb', sa.LargeBinary))
    ids = conn.execute(sa.select(drivers.c.id).where(drivers.c.photo.is_not(None))).scalars().all()
    for ident in ids:
        data = conn.execute(sa.select(drivers.c.photo).where(drivers.c.id == ident)).scalar()
        try:
            with Image.open(BytesIO(data), formats=["JPEG", "PNG", "WEBP"]) as img:
                img.draft("RGB", (96, 128))
                img = img.convert("RGB")
                img.thumbnail((96, 128))
                out = BytesIO()
                img.save(out, "JPEG", quality=60, optimize=True)
        except Exception:  # noqa: BLE001 - an unreadable photo keeps no thumbnail
            continue
        conn.execute(sa.update(drivers).where(drivers.c.id == ident)
                     .values(photo_thumb=out.getvalue()))


def downgrade():
    with op.batch_alter_table('drivers', schema=None) as batch_op:
        batch_op.drop_column('photo_thumb')
