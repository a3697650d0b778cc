"""Driver photos: accept a few image formats, refuse decompression bombs, store a small JPEG.

Whatever a phone or a scanner sends is decoded once and re-encoded, so no metadata
(GPS position, camera serial) and no crafted payload survives into the database.
"""
from __future__ import annotations

import hashlib
import warnings
from io import BytesIO

from PIL import Image, ImageOps, UnidentifiedImageError
from sqlalchemy import event

from inspector import audit
from inspector.errors import ValidationFailed
from inspector.models import Driver

ALLOWED_FORMATS = ("JPEG", "PNG", "WEBP")
PHOTO_MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 40_000_000          # a 40-megapixel photo; anything larger is refused undecoded
OUTPUT_BOX = (480, 640)          # portrait ID-card photo, plenty for a phone screen
OUTPUT_MIME = "image/jpeg"
FIELD = "photo"
THUMB_BOX = (96, 128)    # what the field snapshot ships: a face is recognisable, ~3 KB
THUMB_QUALITY = 60


def _refuse(reason: str) -> ValidationFailed:
    return ValidationFailed({FIELD: reason})


def normalise_photo(data: bytes) -> bytes:
    """A small JPEG made from an uploaded JPEG, PNG or WebP; ValidationFailed otherwise."""
    if not data:
        raise _refuse("O arquivo está vazio.")
    if len(data) > PHOTO_MAX_BYTES:
        raise _refuse("A foto passa de 5 MB. Envie uma foto menor.")
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(BytesIO(data), formats=ALLOWED_FORMATS) as img:
                if img.width * img.height > MAX_PIXELS:
                    raise _refuse("A imagem tem pixels demais. Envie uma foto menor.")
                img.load()
                img = ImageOps.exif_transpose(img)
                img = _flatten(img)
                img.thumbnail(OUTPUT_BOX, Image.Resampling.LANCZOS)
                out = BytesIO()
                img.save(out, "JPEG", quality=82, optimize=True)
        except ValidationFailed:
            raise
        except (Image.DecompressionBombWarning, Image.DecompressionBombError):
            raise _refuse("A imagem tem pixels demais. Envie uma foto menor.") from None
        except UnidentifiedImageError:
            raise _refuse("Formato não aceito: envie uma foto JPEG, PNG ou WebP.") from None
        except (OSError, ValueError, SyntaxError):  # ours, but cut short or broken
            raise _refuse("A foto está corrompida ou incompleta. Envie a foto de novo.") from None
    return out.getvalue()


def _flatten(img: Image.Image) -> Image.Image:
    """RGB on a white background (transparent PNG/WebP would turn black in a JPEG)."""
    if img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        background = Image.new("RGB", rgba.size, "white")
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return img.convert("RGB")


def set_driver_photo(driver: Driver, jpeg: bytes, *, actor) -> None:
    """Store a normalised photo on a driver and record the change in the audit log."""
    old = driver.photo
    driver.photo = jpeg
    driver.photo_mime = OUTPUT_MIME
    audit.record("photo_changed", "driver", driver.id, actor=actor,
                 municipality_id=driver.municipality_id,
                 before={"photo_sha256": hashlib.sha256(old).hexdigest()} if old else None,
                 after={"photo_sha256": hashlib.sha256(jpeg).hexdigest(),
                        "photo_mime": OUTPUT_MIME})


def photo_thumbnail(data: bytes | None) -> bytes | None:
    """The 96x128 JPEG of a driver photo for the agents' phones (None when unreadable)."""
    if not data:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(BytesIO(data), formats=ALLOWED_FORMATS) as img:
                img.draft("RGB", THUMB_BOX)
                img = img.convert("RGB")
                img.thumbnail(THUMB_BOX)
                out = BytesIO()
                img.save(out, "JPEG", quality=THUMB_QUALITY, optimize=True)
    except Exception:  # noqa: BLE001 - a broken photo must not break a save or a snapshot
        return None
    return out.getvalue()


@event.listens_for(Driver.photo, "set")
def _thumbnail_follows_photo(driver: Driver, value, _old, _initiator) -> None:
    """Wherever a driver's photo is set through the ORM, its thumbnail is made once, there
    (the first snapshot of a big town would otherwise make thousands on the fly)."""
    driver.photo_thumb = photo_thumbnail(value)
