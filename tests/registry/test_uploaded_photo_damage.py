"""Photos that are re-encoded (a passenger report's, a driver's) and arrive damaged: cut short
anywhere, a byte flipped, compressed pixels that do not decompress. Each is refused as
ValidationFailed (a 4xx with a reason), never another exception (a 500)."""
from __future__ import annotations

import random
import struct
import zlib
from io import BytesIO

import pytest
from PIL import Image

from inspector.errors import ValidationFailed
from inspector.passenger import reports
from inspector.registry import photos


def _save(fmt: str, **options) -> bytes:
    img = Image.frombytes("RGB", (240, 180), random.Random(fmt).randbytes(240 * 180 * 3))
    out = BytesIO()
    img.save(out, fmt, **options)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _damaged() -> list[tuple[str, bytes]]:
    """(label, bytes) of damaged photos in every accepted format."""
    out = []
    for fmt, options in (("JPEG", {}), ("JPEG", {"progressive": True}), ("PNG", {}),
                         ("WEBP", {}), ("WEBP", {"lossless": True})):
        data = _save(fmt, **options)
        for share in (0.02, 0.1, 0.3, 0.5, 0.8, 0.97):
            out.append((f"{fmt}{options} cut at {share}", data[:int(len(data) * share)]))
        out.append((f"{fmt}{options} last byte cut", data[:-1]))
        rnd = random.Random(len(data))
        for k in range(4):
            flipped = bytearray(data)
            at = rnd.randrange(20, len(data))
            flipped[at] ^= 0xFF
            out.append((f"{fmt}{options} byte {at} flipped ({k})", bytes(flipped)))
    ihdr = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    out.append(("PNG pixels that do not decompress",
                b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
                + _chunk(b"IDAT", b"\x78\x9c" + bytes(50)) + _chunk(b"IEND", b"")))
    return out


DAMAGED = _damaged()


@pytest.mark.parametrize("label, data", DAMAGED, ids=[label for label, _ in DAMAGED])
def test_a_damaged_driver_photo_is_refused_or_taken_never_a_crash(label, data):
    try:
        out = photos.normalise_photo(data)
    except ValidationFailed as e:
        assert e.errors["photo"]
        return
    assert Image.open(BytesIO(out)).format == "JPEG"  # decoded whole enough to re-encode


@pytest.mark.parametrize("label, data", DAMAGED, ids=[label for label, _ in DAMAGED])
def test_a_damaged_report_photo_is_refused_or_taken_never_a_crash(app, label, data):
    with app.app_context():
        try:
            out = reports.sanitize_photo(data)
        except ValidationFailed as e:
            assert e.errors["foto"]
            return
    assert Image.open(BytesIO(out)).format == "JPEG"


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_a_photo_cut_in_half_is_refused_by_both(app, fmt):
    data = _save(fmt)
    half = data[:len(data) // 2]
    with pytest.raises(ValidationFailed):
        photos.normalise_photo(half)
    with app.app_context(), pytest.raises(ValidationFailed) as e:
        reports.sanitize_photo(half)
    assert "corrompida ou incompleta" in e.value.errors["foto"]
