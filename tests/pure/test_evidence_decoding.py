"""An evidence photo is checked whole before it is kept: files cut short or
broken, bytes after the image's end, another file appended, decompression bombs and several
frames are refused as PhotoRefused (permanent); a phone's photo with EXIF, padding or an MPF
gain map still passes, and nothing is ever re-encoded. Images are made here, in memory."""
from __future__ import annotations

import random
import struct
import zlib
from io import BytesIO

import pytest
from PIL import Image, ImageFile

from inspector.errors import ValidationFailed
from inspector.inspections import containers, evidence
from tests.support.field_api import jpeg

ZIP = (b"PK\x03\x04\x14\x00\x00\x00\x00\x00" + bytes(16) + b"\x05\x00\x00\x00a.txtPK\x05\x06"
       + bytes(18))
HTML = b"<html><body><script>alert(document.cookie)</script></body></html>"


def _noise(size=(320, 240)) -> Image.Image:
    return Image.frombytes("RGB", size, random.Random(size[0]).randbytes(size[0] * size[1] * 3))


def _save(img: Image.Image, fmt: str, **options) -> bytes:
    out = BytesIO()
    img.save(out, fmt, **options)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG of a few hundred bytes whose header claims width x height pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
            + _chunk(b"IDAT", zlib.compress(bytes(width + 1))) + _chunk(b"IEND", b""))


def _refused(data: bytes, mime: str = "image/jpeg") -> evidence.PhotoRefused:
    with pytest.raises(evidence.PhotoRefused) as e:
        evidence.check_photo(data, mime)
    assert e.value.permanent and isinstance(e.value, ValidationFailed)
    assert e.value.action.endswith("Tire a foto de novo.")
    return e.value


# ------------------------------------------------------------------ what still passes
def test_a_phone_like_jpeg_with_exif_and_gps_passes_with_its_facts():
    data = jpeg(3, size=(1600, 1200))
    facts = evidence.check_photo(data, "image/jpeg")
    assert (facts.format, facts.width, facts.height) == ("JPEG", 1600, 1200)
    assert facts.exif_taken_at == "2026-11-30T09:05:00-04:00"
    assert facts.lat == pytest.approx(-12.7083333, abs=1e-4)


@pytest.mark.parametrize("fmt, mime, options", [
    ("JPEG", "image/jpeg", {"progressive": True}),
    ("JPEG", "image/jpeg", {"restart_marker_blocks": 4}),  # RST markers inside the scan
    ("PNG", "image/png", {}),
    ("WEBP", "image/webp", {}),
    ("WEBP", "image/webp", {"lossless": True}),
    ("HEIF", "image/heic", {}),
])
def test_every_accepted_format_passes_whole(fmt, mime, options):
    data = _save(_noise(), fmt, **options)
    assert evidence.check_photo(data, mime).format == fmt


@pytest.mark.parametrize("tail", [bytes(4096), b"\xff" * 100])
def test_padding_of_one_byte_value_after_a_jpeg_passes(tail):
    data = _save(_noise(), "JPEG") + tail
    assert evidence.check_photo(data, "image/jpeg").width == 320


def test_a_jpeg_with_an_mpf_gain_map_passes_as_jpeg():
    """Phones write a second image (gain map, depth map) declared by the MPF index: Pillow
    opens such a file as MPO; it is the JPEG the phone declared."""
    data = _save(_noise(), "MPO", save_all=True, append_images=[_noise((80, 60))])
    assert Image.open(BytesIO(data)).format == "MPO"
    assert evidence.check_photo(data, "image/jpeg").format == "JPEG"


def test_the_check_never_changes_the_bytes():
    data = jpeg(5, size=(800, 600))
    copy = bytes(data)
    evidence.check_photo(data, "image/jpeg")
    assert data == copy


# ------------------------------------------------------------------ cut short, broken
@pytest.mark.parametrize("cut", [0.5, 0.9, -2, -1])
def test_a_truncated_jpeg_is_refused_as_damaged(cut):
    data = _save(_noise(), "JPEG")
    end = int(len(data) * cut) if cut > 0 else len(data) + cut
    e = _refused(data[:end])
    assert e.problem == "damaged"
    assert e.action == "A foto está danificada ou incompleta. Tire a foto de novo."
    assert e.answer()["permanent"] is True


@pytest.mark.parametrize("fmt, mime", [("PNG", "image/png"), ("WEBP", "image/webp"),
                                       ("HEIF", "image/heic")])
def test_other_formats_cut_short_are_refused(fmt, mime):
    data = _save(_noise(), fmt)
    assert _refused(data[:len(data) * 3 // 4], mime).problem == "damaged"


def test_a_png_with_a_flipped_byte_is_refused_by_its_crc():
    data = bytearray(_save(_noise(), "PNG"))
    data[len(data) // 2] ^= 0x5A
    assert _refused(bytes(data), "image/png").problem == "damaged"


def test_a_png_whose_pixels_do_not_decode_is_refused_even_with_good_crcs():
    """The structure is whole (every CRC right) but the compressed pixels are garbage: only
    decoding them finds it."""
    ihdr = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    data = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", b"\x78\x9c" + bytes(50))
            + _chunk(b"IEND", b""))
    containers.png_end(data)  # the walk finds nothing wrong
    assert _refused(data, "image/png").problem == "damaged"


# ------------------------------------------------------------------ bytes after the end
@pytest.mark.parametrize("fmt, mime, tail", [
    ("JPEG", "image/jpeg", HTML),         # JPEG + HTML
    ("JPEG", "image/jpeg", ZIP),
    ("PNG", "image/png", ZIP),            # PNG + ZIP
    ("PNG", "image/png", b"\x00"),        # nothing at all after IEND, not even padding
    ("WEBP", "image/webp", ZIP),
    ("HEIF", "image/heic", ZIP),
])
def test_another_file_after_the_image_is_refused(fmt, mime, tail):
    data = _save(_noise(), fmt) + tail
    Image.open(BytesIO(data)).load()  # what a decoder alone would have accepted
    e = _refused(data, mime)
    assert e.problem == "extra_data"
    assert "outros dados depois da imagem" in e.action


@pytest.mark.parametrize("tail", [b"\x00\xff" * 50, bytes(evidence.PADDING_LIMIT + 1)])
def test_padding_that_is_not_one_byte_value_or_too_long_is_refused(tail):
    assert _refused(_save(_noise(), "JPEG") + tail).problem == "extra_data"


def test_data_after_an_mpf_image_or_an_mpf_image_cut_short_is_refused():
    data = _save(_noise(), "MPO", save_all=True, append_images=[_noise((80, 60))])
    assert _refused(data + HTML).problem == "extra_data"
    assert _refused(data[:-40]).problem == "damaged"


# ------------------------------------------------------------------ bombs, frames, formats
def test_a_tiny_png_claiming_200_megapixels_is_refused_undecoded():
    data = _png_claiming(20_000, 10_000)
    assert len(data) < 25_000
    assert _refused(data, "image/png").problem == "pixels"


def test_more_than_our_cap_is_refused_below_pillows_own_threshold():
    assert 8_000 * 8_001 < Image.MAX_IMAGE_PIXELS
    assert _refused(_png_claiming(8_000, 8_001), "image/png").problem == "pixels"


@pytest.mark.parametrize("fmt, mime", [("PNG", "image/png"), ("WEBP", "image/webp"),
                                       ("HEIF", "image/heic")])
def test_several_frames_are_refused(fmt, mime):
    """An APNG, an animated WebP, a HEIF holding two images: a photo is one image."""
    data = _save(_noise(), fmt, save_all=True, append_images=[_noise().rotate(90)])
    e = _refused(data, mime)
    assert e.problem == "frames"
    assert "mais de uma imagem" in e.action


@pytest.mark.parametrize("fmt", ["GIF", "TIFF"])
def test_animated_gif_and_multi_page_tiff_are_not_accepted_formats(fmt):
    data = _save(_noise(), fmt, save_all=True, append_images=[_noise().rotate(90)])
    assert _refused(data).problem == "format"


def test_a_png_declared_as_jpeg_is_refused_as_the_wrong_format():
    e = _refused(_save(_noise(), "PNG"), "image/jpeg")
    assert e.problem == "format" and "PNG" in e.errors["foto"]


def test_empty_and_oversized_files_are_refused_before_opening():
    assert _refused(b"").problem == "empty"
    assert _refused(b"\xff\xd8" + bytes(evidence.MAX_PHOTO_BYTES)).problem == "size"


def test_a_mime_type_never_accepted_is_a_plain_validation_error():
    with pytest.raises(ValidationFailed) as e:
        evidence.check_photo(_save(_noise(), "JPEG"), "image/gif")
    assert not isinstance(e.value, evidence.PhotoRefused)


def test_pillows_truncated_image_switch_stays_off():
    """The whole check relies on it (and refuses to judge when someone turned it on)."""
    assert ImageFile.LOAD_TRUNCATED_IMAGES is False


def test_the_answer_names_the_problem_and_marks_it_permanent():
    e = _refused(_save(_noise(), "PNG") + ZIP, "image/png")
    body = e.answer()
    assert body["status"] == 422 and body["permanent"] is True
    assert body["reason"] == "photo_refused" and body["problem"] == "extra_data"
    assert body["fields"]["foto"]


# ------------------------------------------------------------------ the decode at 1/8 scale
@pytest.mark.parametrize("progressive", [False, True])
@pytest.mark.parametrize("cut", [0.3, 0.8, 0.99])
def test_the_scaled_decode_alone_still_refuses_a_jpeg_cut_short(monkeypatch, progressive, cut):
    """A JPEG is decoded at 1/8 scale (draft): libjpeg still entropy-decodes every segment, so
    a file cut short inside its compressed data fails in the decode itself — here with the
    structure walk switched off, so that nothing else could catch it."""
    data = _save(_noise((640, 480)), "JPEG", progressive=progressive, quality=90)
    monkeypatch.setattr(evidence, "_check_structure", lambda data, img: None)
    assert evidence.decode_photo(data).width == 640  # whole: it decodes
    e = _refused(data[:int(len(data) * cut)])
    assert e.problem == "damaged" and "decodificada" in e.errors["foto"]


def test_a_gain_map_cut_short_fails_in_the_decode_too(monkeypatch):
    """The images an MPF index declares are each decoded (as the JPEG each is)."""
    data = _save(_noise(), "MPO", save_all=True, append_images=[_noise((160, 120))])
    monkeypatch.setattr(evidence, "_check_structure", lambda data, img: None)
    assert evidence.decode_photo(data).format == "JPEG"
    with Image.open(BytesIO(data)) as img:
        ((start, size),) = evidence._mpf_images(data, img)
    e = _refused(data[:start + size // 2])  # the file ends inside the gain map's scan
    assert e.problem == "damaged" and "decodificada" in e.errors["foto"]


def test_the_facts_keep_the_photos_own_size():
    """draft() shrinks the image Pillow holds; the facts stored are the photo's."""
    facts = evidence.check_photo(_save(_noise((1000, 750)), "JPEG"), "image/jpeg")
    assert (facts.width, facts.height) == (1000, 750)
