"""Photo evidence from the field: decode it whole, refuse what is not one photo, read EXIF,
keep the bytes.

Unlike driver photos (registry/photos.py), evidence is never re-encoded: the stored bytes are
the ones the phone hashed when the photo was taken, so the SHA-256 printed on a notice can be
checked against the file years later. Before it becomes evidence a photo is checked whole
(docs/sync.md §3, "Photos"):

- the format's own structure is walked to the image's end (inspections/containers.py): a file
  cut short or broken is refused, and so is anything after the end (another file appended: a
  ZIP, an HTML page, a motion photo's video). Allowed after a JPEG's end: the images its MPF
  index declares (a phone's gain map or depth map), each a whole JPEG exactly where declared,
  and padding — one byte value, 0x00 or 0xFF, repeated, PADDING_LIMIT bytes at most (camera
  buffers rounded up; a run of one value carries nothing). After a PNG's IEND, a WebP's RIFF
  chunk or a HEIF's last box: nothing;
- every image in the file is decoded (Pillow `load()`), with ImageFile.LOAD_TRUNCATED_IMAGES
  off and Pillow's bomb warning an error. A JPEG is decoded at 1/8 scale in grey (`draft()`:
  libjpeg's DCT scaling): every entropy-coded segment of every component is still read and
  Huffman-decoded to its end — the bitstream cannot be skipped through — so a file cut short
  still fails exactly as at full scale, but only the DC of each block is turned into pixels
  (1/64 of the pixels, no colour conversion: 3–5 times cheaper, and 1/64 of the memory);
- more than one frame (an animated GIF/WebP/PNG, a HEIF with several images) is refused:
  one photo is expected;
- more than MAX_PIXELS is refused before a pixel is decoded.

Each refusal is a `PhotoRefused`: the same bytes would be refused forever, so the phone stops
sending them and shows the agent what to do (retake).
"""
from __future__ import annotations

import base64
import binascii
import struct
import threading
import warnings
from dataclasses import dataclass
from io import BytesIO

from PIL import ExifTags, Image, ImageFile, UnidentifiedImageError

from inspector.errors import ValidationFailed, error_body
from inspector.inspections import containers

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
# A JPEG with an MPF index of several images (a phone's gain map) is opened by Pillow as MPO.
SAME_FORMAT = {"MPO": "JPEG"}
MAX_PHOTO_BYTES = 15 * 1024 * 1024
MAX_PIXELS = 64_000_000          # a 64-megapixel phone photo; larger ones are refused undecoded
PADDING_LIMIT = 64 * 1024        # 0x00 or 0xFF repeated after a JPEG's end
MAX_SIGNATURE_BYTES = 300 * 1024
MAX_SIGNATURE_PIXELS = 4_000_000
_PNG_DATA_URI = "data:image/png;base64,"
_MAGIC = (b"\xff\xd8", b"\x89PNG", b"RIFF")  # JPEG, PNG, WebP; HEIF: "ftyp" at offset 4
# Decoding is CPU work (more at once than the machine has cores gains nothing) and holds the
# whole image in memory (64 MP: 192 MB in RGB): at most this many at once in a process.
DECODE_SLOTS = threading.BoundedSemaphore(2)
# Exceptions Pillow and its plugins raise for bytes they cannot decode.
_UNDECODABLE = (OSError, ValueError, SyntaxError, EOFError, struct.error, IndexError, KeyError,
                TypeError, ZeroDivisionError, RuntimeError)

RETAKE = "Tire a foto de novo."
# problem -> what the agent reads (the answer's "error"); the detail goes in "fields".
ACTIONS = {
    "damaged": f"A foto está danificada ou incompleta. {RETAKE}",
    "extra_data": "O arquivo da foto traz outros dados depois da imagem (por exemplo, uma foto "
                  f"com movimento). {RETAKE}",
    "frames": "O arquivo tem mais de uma imagem (animação ou sequência), e a prova é uma foto "
              f"só. {RETAKE}",
    "pixels": f"A foto tem pixels demais (mais de 64 megapixels). {RETAKE}",
    "format": f"O arquivo não é uma foto JPEG, PNG, WebP ou HEIC do tipo declarado. {RETAKE}",
    "size": f"A foto passa de 15 MB. {RETAKE}",
    "empty": f"O arquivo da foto está vazio. {RETAKE}",
}

# problem -> what the supervisor reads after "Foto recusada: " (Photo.refused_reason starts
# with it; the detail follows in parentheses).
REASONS = {
    "damaged": "imagem danificada ou incompleta",
    "extra_data": "outros dados depois da imagem",
    "frames": "mais de uma imagem no arquivo",
    "pixels": "pixels demais (mais de 64 megapixels)",
    "format": "não é uma foto do tipo declarado",
    "size": "arquivo com mais de 15 MB",
    "empty": "arquivo vazio",
}
REASON_LENGTH = 200  # inspection_photos.refused_reason


class PhotoRefused(ValidationFailed):
    """The photo's bytes can never be evidence: the same bytes are refused every time, so the
    sync marks the refusal permanent (docs/sync.md §3) and the phone stops sending them."""

    permanent = True

    def __init__(self, problem: str, detail: str):
        super().__init__({"foto": detail})
        self.problem = problem

    @property
    def action(self) -> str:
        """What the agent reads and can do."""
        return ACTIONS[self.problem]

    def answer(self) -> dict:
        """The JSON of the 422 answer."""
        return error_body(422, self.action, fields=dict(self.errors), reason="photo_refused",
                          problem=self.problem, permanent=True)


def refusal_reason(e: PhotoRefused) -> str:
    """What Photo.refused_reason keeps of a refusal: its reason, then the detail."""
    text = f"{REASONS[e.problem]} ({e.errors.get('foto', '')})"
    return text if len(text) <= REASON_LENGTH else text[:REASON_LENGTH - 2] + "…)"


def refusal_of(reason: str) -> PhotoRefused:
    """The refusal a stored Photo.refused_reason records, to answer it again."""
    problem = next((p for p, r in REASONS.items() if reason.startswith(r)), "damaged")
    detail = reason[len(REASONS[problem]):].strip().removeprefix("(").removesuffix(")")
    return PhotoRefused(problem, detail or REASONS[problem])


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
        except (UnidentifiedImageError, *_UNDECODABLE):
            raise ValidationFailed({field: "Formato de imagem não aceito ou arquivo "
                                           "corrompido."}) from None
    if img.width * img.height > max_pixels or img.width < 1 or img.height < 1:
        img.close()
        raise ValidationFailed({field: "A imagem tem pixels demais."})
    return img


def decode_photo(data: bytes) -> ImageFacts:
    """Facts about a photo checked whole (module docstring), in any accepted format;
    PhotoRefused when it cannot be evidence. Which format was declared is `expect_format`'s."""
    if not data:
        raise PhotoRefused("empty", "O arquivo está vazio.")
    if len(data) > MAX_PHOTO_BYTES:
        raise PhotoRefused("size", "A foto passa de 15 MB.")
    try:
        img = _open(data, sorted(set(MIME_FORMATS.values())), MAX_PIXELS, "foto")
    except ValidationFailed as e:
        detail = e.errors["foto"]
        if "pixels" in detail:
            raise PhotoRefused("pixels", detail) from None
        if data.startswith(_MAGIC) or data[4:8] == b"ftyp":  # ours, but it does not open
            raise PhotoRefused("damaged", "O arquivo não abre: cortado ou corrompido.") from None
        raise PhotoRefused("format", detail) from None
    with img:
        _check_structure(data, img)
        frames = getattr(img, "n_frames", 1)
        if img.format != "MPO" and (frames > 1 or getattr(img, "is_animated", False)):
            raise PhotoRefused("frames", f"O arquivo tem {frames} imagens; a prova é uma só.")
        fmt, width, height = img.format, img.width, img.height  # draft() shrinks img.size
        _decode_all(img, data)
        # after the decode: reading a PNG's EXIF loads the image, and _exif forgives errors
        taken, lat, lon = _exif(img)
        return ImageFacts(SAME_FORMAT.get(fmt, fmt), width, height, taken, lat, lon)


def expect_format(facts: ImageFacts, declared_mime: str) -> None:
    """PhotoRefused unless the photo is the format the inspection declared for it."""
    expected = MIME_FORMATS.get(declared_mime)
    if expected is None:
        raise ValidationFailed({"mime": f"Tipo de arquivo não aceito: {declared_mime}."})
    if facts.format != expected:
        raise PhotoRefused("format", f"O arquivo é {facts.format}, mas foi declarado como "
                                     f"{declared_mime}.")


def check_photo(data: bytes, declared_mime: str) -> ImageFacts:
    """Facts about an evidence photo checked whole; PhotoRefused unless it is one whole image
    of the declared format (ValidationFailed for a MIME type not accepted at all)."""
    if declared_mime not in MIME_FORMATS:
        raise ValidationFailed({"mime": f"Tipo de arquivo não aceito: {declared_mime}."})
    facts = decode_photo(data)
    expect_format(facts, declared_mime)
    return facts


_ENDS = {"JPEG": containers.jpeg_end, "MPO": containers.jpeg_end, "PNG": containers.png_end,
         "WEBP": containers.webp_end, "HEIF": containers.heif_end}


def image_end(data: bytes, fmt: str) -> int:
    """Where the (first) image of a file of this Pillow format ends; containers.Damaged when
    its structure is cut short or broken."""
    return _ENDS[fmt](data)


def is_whole(data: bytes, declared_mime: str) -> bool:
    """Whether a stored photo's structure reaches its image's end (no pixel decoded: cheap
    enough for every photo of a review page). Data after the end does not count here: such a
    photo still shows."""
    fmt = MIME_FORMATS.get(declared_mime)
    if fmt is None:
        return False
    try:
        image_end(data, fmt)
    except containers.Damaged:
        return False
    return True


def _check_structure(data: bytes, img: Image.Image) -> None:
    """PhotoRefused unless the file is whole and nothing but padding and, for a JPEG, the
    images its MPF index declares follow the image's end."""
    try:
        end = image_end(data, img.format)
        if img.format not in ("JPEG", "MPO"):
            if end != len(data):
                raise PhotoRefused("extra_data", f"{len(data) - end} bytes depois do fim da "
                                                 f"imagem {img.format}.")
            return
        pos, padding = end, 0
        for start, size in _mpf_images(data, img):
            if start < pos or start + size > len(data):
                raise containers.Damaged("índice MPF aponta para fora da ordem ou do arquivo")
            padding += _padding(data, pos, start)
            end = containers.jpeg_end(data, start)
            if end > start + size:
                raise containers.Damaged("imagem do índice MPF maior que o declarado")
            padding += _padding(data, end, start + size)
            pos = start + size
        padding += _padding(data, pos, len(data))
    except containers.Damaged as e:
        raise PhotoRefused("damaged", str(e)) from None
    if padding > PADDING_LIMIT:
        raise PhotoRefused("extra_data", f"{padding} bytes de preenchimento depois da imagem "
                                         f"(até {PADDING_LIMIT} são aceitos).")


def _mpf_images(data: bytes, img: Image.Image) -> list[tuple[int, int]]:
    """(offset, size) of the images after the first that a JPEG's MPF index declares."""
    if img.format != "MPO":
        return []
    base = containers.jpeg_mpf_offset(data)
    if base is None:
        raise containers.Damaged("JPEG com várias imagens sem índice MPF")
    entries = img.mpinfo[0xB002]
    return sorted((base + e["DataOffset"], e["Size"]) for e in entries[1:])


def _padding(data: bytes, start: int, end: int) -> int:
    """How many bytes lie between `start` and `end`, all one value, 0x00 or 0xFF;
    PhotoRefused when they are anything else."""
    if end <= start:
        return 0
    fill = data[start]
    if fill not in (0x00, 0xFF) or data.count(fill, start, end) != end - start:
        raise PhotoRefused("extra_data", f"{end - start} bytes de outros dados depois do fim "
                                         "da imagem.")
    return end - start


def _decode_all(img: Image.Image, data: bytes) -> None:
    """Decode every image of the file (an MPO's declared ones too, each opened as the JPEG it
    is: Pillow's MPO seek keeps the first image's draft scale); PhotoRefused when one cannot be
    decoded whole."""
    if ImageFile.LOAD_TRUNCATED_IMAGES:  # someone turned Pillow's guard off: refuse to judge
        raise RuntimeError("PIL.ImageFile.LOAD_TRUNCATED_IMAGES is on")
    declared = _mpf_images(data, img)  # checked whole by _check_structure
    with DECODE_SLOTS, warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        for n in range(1 + len(declared)):
            try:
                if n:
                    start, size = declared[n - 1]
                    with Image.open(BytesIO(data[start:start + size]), formats=["JPEG"]) as one:
                        _decode_one(one)
                else:
                    _decode_one(img)
            except (Image.DecompressionBombWarning, Image.DecompressionBombError):
                raise PhotoRefused("pixels", "A imagem tem pixels demais.") from None
            except (UnidentifiedImageError, *_UNDECODABLE) as e:
                raise PhotoRefused("damaged", f"A imagem não pôde ser decodificada ({e}).") from None


def _decode_one(img: Image.Image) -> None:
    """Decode one image: a JPEG at 1/8 scale in grey (module docstring: every entropy-coded
    segment is still read to its end), any other format whole."""
    if img.width * img.height > MAX_PIXELS:
        raise PhotoRefused("pixels", "Uma das imagens do arquivo tem pixels demais.")
    if img.format in ("JPEG", "MPO"):
        img.draft("L", (1, 1))  # (1, 1): the smallest scale libjpeg has, 1/8
    img.load()


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
    with _open(data, ["PNG"], MAX_SIGNATURE_PIXELS, field) as img:
        # whole, like a photo: a canvas never draws anything else, and a notice prints it
        try:
            if containers.png_end(data) != len(data):
                raise containers.Damaged("dados depois do fim da imagem")
            img.load()
        except (containers.Damaged, *_UNDECODABLE):
            raise ValidationFailed({field: "A imagem da assinatura está danificada ou "
                                           "incompleta."}) from None
    return data
