"""Driver photos: only JPEG/PNG/WebP, no decompression bombs, a small JPEG without metadata."""
from __future__ import annotations

from io import BytesIO

import pytest
from PIL import Image

from inspector.errors import ValidationFailed
from inspector.registry import photos


def _image(fmt: str, size=(1000, 1500), mode="RGB", **save) -> bytes:
    out = BytesIO()
    Image.new(mode, size, "olive").save(out, fmt, **save)
    return out.getvalue()


@pytest.mark.parametrize("fmt, mode", [("JPEG", "RGB"), ("PNG", "RGBA"), ("PNG", "P"),
                                       ("WEBP", "RGB")])
def test_accepted_formats_become_a_small_jpeg(fmt, mode):
    out = Image.open(BytesIO(photos.normalise_photo(_image(fmt, mode=mode))))
    assert out.format == "JPEG" and out.mode == "RGB"
    assert out.size[0] <= photos.OUTPUT_BOX[0] and out.size[1] <= photos.OUTPUT_BOX[1]


def test_metadata_such_as_gps_does_not_survive():
    exif = Image.Exif()
    exif[0x010F] = "Camera Maker"  # Make
    exif[0x8825] = {2: (15.0, 30.0, 0.0)}  # GPSInfo: latitude
    jpeg = photos.normalise_photo(_image("JPEG", exif=exif.tobytes()))
    assert not Image.open(BytesIO(jpeg)).getexif()


@pytest.mark.parametrize("fmt", ["GIF", "BMP", "TIFF"])
def test_other_formats_are_refused(fmt):
    with pytest.raises(ValidationFailed) as e:
        photos.normalise_photo(_image(fmt, (50, 50)))
    assert "Formato não aceito" in e.value.errors["photo"]


def test_too_many_bytes_are_refused_before_decoding():
    with pytest.raises(ValidationFailed) as e:
        photos.normalise_photo(b"\xff\xd8" + b"0" * photos.PHOTO_MAX_BYTES)
    assert "5 MB" in e.value.errors["photo"]


def test_pillows_decompression_bomb_warning_is_an_error(monkeypatch):
    """Below our own cap, Pillow's warning threshold still refuses the image."""
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000 * 1000)
    with pytest.raises(ValidationFailed) as e:
        photos.normalise_photo(_image("PNG", (1100, 1000)))
    assert "pixels demais" in e.value.errors["photo"]


def test_truncated_file_is_refused():
    data = _image("JPEG")
    with pytest.raises(ValidationFailed):
        photos.normalise_photo(data[: len(data) // 2])
