"""Photo evidence from the field: check the format, refuse bombs, read EXIF, keep the bytes.

Unlike driver photos (services/photos.py), evidence is never re-encoded: the stored
bytes are the ones the phone hashed when the photo was taken, so the SHA-256 printed
on a notice can be checked against the file years later. Only the header is parsed
(no full decode), which is enough to know the format and the pixel count.
"""
from __future__ import annotations

import base64
import binascii
import warnings
from dataclasses import dataclass
from io import BytesIO

from PIL import ExifTags, Image, UnidentifiedImageError

from inspector.errors import ValidationFailed

try:  # iPhone photos; the wheel bundles libheif
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF = True
except ImportError:  # pragma: no cover - pinned in pyproject
    HEIF = False

# MIME type the phone declares -> the Pillow format the bytes must turn out to be.
MIME_FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG", "image/webp": "WEBP"}
if HEIF:
    MIME_FORMATS |= {"image/heic": "HEIF", "image/heif": "HEIF"}
MAX_PHOTO_BYTES = 15 * 1024 * 1024
MAX_PIXELS = 64_000_000          # a 64-megapixel phone photo; larger ones are refused undecoded
MAX_SIGNATURE_BYTES = 300 * 1024
MAX_SIGNATURE_PIXELS = 4_000_000
_PNG_DATA_URI = "data:image/png;base64,"


@dataclass(frozen=True)
class ImageFacts:
    """What the header and EXIF of an image say."""

    format: str
    width: int
    height: int
    exif_taken_at: str | None = None  # "YYYY-MM-DDTHH:MM:SS[+hh:mm]" as the camera wrote it
    lat: float | None = None
    lon: float | None = None


def _open(data: bytes, formats: list[str], max_pixels: int, field: str) -> Image.Image:
    """Open an image header with an allow-list of formats; bombs and junk are refused."""
    # The explicit pixel check below is the real guard (catch_warnings is process-wide and
    # not thread-safe); MAX_PIXELS is under Pillow's own warning threshold.
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            img = Image.open(BytesIO(data), formats=formats)
        except (Image.DecompressionBombWarning, Image.DecompressionBombError):
            raise ValidationFailed({field: "A imagem tem pixels demais."}) from None
        except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
            raise ValidationFailed({field: "Formato de imagem não aceito ou arquivo "
                                           "corrompido."}) from None
    if img.width * img.height > max_pixels or img.width < 1 or img.height < 1:
        img.close()
        raise ValidationFailed({field: "A imagem tem pixels demais."})
    return img


def check_photo(data: bytes, declared_mime: str) -> ImageFacts:
    """Facts about an evidence photo; ValidationFailed unless it is the declared format."""
    expected = MIME_FORMATS.get(declared_mime)
    if expected is None:
        raise ValidationFailed({"mime": f"Tipo de arquivo não aceito: {declared_mime}."})
    if not data:
        raise ValidationFailed({"foto": "O arquivo está vazio."})
    if len(data) > MAX_PHOTO_BYTES:
        raise ValidationFailed({"foto": "A foto passa de 15 MB."})
    img = _open(data, sorted(set(MIME_FORMATS.values())), MAX_PIXELS, "foto")
    with img:
        if img.format != expected:
            raise ValidationFailed({"foto": f"O arquivo é {img.format}, mas foi declarado "
                                            f"como {declared_mime}."})
        taken, lat, lon = _exif(img)
        return ImageFacts(img.format, img.width, img.height, taken, lat, lon)


def _exif(img: Image.Image) -> tuple[str | None, float | None, float | None]:
    """DateTimeOriginal (with OffsetTimeOriginal) and the GPS position, when present."""
    try:
        exif = img.getexif()
        sub = exif.get_ifd(ExifTags.IFD.Exif)
        gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    except Exception:  # noqa: BLE001 - broken EXIF is not a reason to refuse evidence
        return None, None, None
    taken = None
    raw = sub.get(0x9003) or exif.get(0x0132)  # DateTimeOriginal, else DateTime
    if isinstance(raw, str) and len(raw) >= 19:
        taken = raw[:10].replace(":", "-") + "T" + raw[11:19]
        offset = sub.get(0x9011)  # OffsetTimeOriginal, e.g. "-04:00"
        if isinstance(offset, str) and len(offset) == 6 and offset[0] in "+-":
            taken += offset
    lat = _degrees(gps.get(2), gps.get(1), "S")
    lon = _degrees(gps.get(4), gps.get(3), "W")
    if lat is None or lon is None or not (-90 <= lat <= 90 and -180 <= lon <= 180):
        lat = lon = None
    return taken, lat, lon


def _degrees(value, ref, negative: str) -> float | None:
    """EXIF (degrees, minutes, seconds) rationals as signed decimal degrees."""
    try:
        d, m, s = (float(x) for x in value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    out = d + m / 60 + s / 3600
    if isinstance(ref, bytes):
        ref = ref.decode("ascii", "replace")
    return round(-out if (ref or "").strip().upper() == negative else out, 7)


def decode_signature(value: str) -> bytes:
    """The PNG bytes of an on-screen signature sent as a data: URI; ValidationFailed if not."""
    field = "acknowledgement.signature_png"
    if not isinstance(value, str) or not value.startswith(_PNG_DATA_URI):
        raise ValidationFailed({field: "A assinatura deve ser uma imagem PNG (data:image/png)."})
    encoded = value[len(_PNG_DATA_URI):]
    if len(encoded) > MAX_SIGNATURE_BYTES * 4 // 3 + 4:
        raise ValidationFailed({field: "A imagem da assinatura é grande demais."})
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationFailed({field: "A assinatura não pôde ser lida."}) from None
    _open(data, ["PNG"], MAX_SIGNATURE_PIXELS, field).close()
    return data
