"""The size the field app keeps photos at (docs/sync.md § photos), in Debian
Chromium against a real server: under the town's setting 1280 px, a 3000x2000 camera JPEG
(EXIF: turned a quarter, date, GPS) is kept at 1280 px on its longest side, upright, its
SHA-256 taken of the kept bytes, and the server's evidence check accepts it and reads the
camera's date and GPS from the EXIF copied into the new JPEG. A photo already small is kept
byte for byte. Server state is read from the database, never through the browser.
"""
from __future__ import annotations

import hashlib
import io
import random

import pytest
from PIL import ExifTags, Image, ImageDraw

from tests.browser.field_helpers import inspect_by_plate, jpeg_file, server_inspections, start_online

pytestmark = pytest.mark.browser


def camera_jpeg(path) -> bytes:
    """A 3000x2000 JPEG as a phone held upright writes it: pixels sideways, Orientation 6."""
    rnd = random.Random(7)
    small = Image.new("RGB", (300, 200))
    small.putdata([(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256))
                   for _ in range(300 * 200)])
    img = small.resize((3000, 2000), Image.BILINEAR)
    ImageDraw.Draw(img).rectangle((0, 0, 600, 2000), fill="red")  # the picture's top, sideways
    exif = Image.Exif()
    exif[0x0112] = 6                                    # rotate 90° clockwise to show
    exif[0x0132] = "2026:12:01 10:15:00"
    exif.get_ifd(ExifTags.IFD.Exif)[0x9003] = "2026:12:01 10:14:59"  # DateTimeOriginal
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[1], gps[2] = "S", (12.0, 30.0, 0.0)             # 12°30' S, 56°15' W (Tapurah's area)
    gps[3], gps[4] = "W", (56.0, 15.0, 0.0)
    img.save(path, "JPEG", quality=90, exif=exif)
    return path.read_bytes()


def test_a_photo_is_kept_at_the_towns_size_hashed_as_kept_and_accepted(
        browser, live_server, app, world, tmp_path):
    from inspector.extensions import db
    from inspector.models import Municipality, Photo

    with app.app_context():
        town = db.session.scalar(db.select(Municipality).filter_by(slug="tapurah"))
        town.photo_max_side, town.photo_quality = 1280, 85
        db.session.commit()

    big_path, small_path = tmp_path / "camera.jpg", tmp_path / "small.jpg"
    big = camera_jpeg(big_path)
    small = jpeg_file(small_path, 3)
    context, _guard, page = start_online(browser, live_server, world["agent"])
    assert page.evaluate("async () => (await window.fieldApp.store.getMeta('town')).photo") \
        == {"max_side": 1280, "quality": 85}
    inspect_by_plate(page, world["plate"], [big_path, small_path])
    page.get_by_role("button", name="Sincronizar").click()
    page.wait_for_function("() => document.querySelector('#pending-text').textContent"
                           ".startsWith('0 vistorias e 0 fotos')", timeout=30_000)

    [held] = server_inspections(app)
    assert held["status"] == "awaiting_review"          # every photo passed the evidence check
    by_data = {len(p["data"]): p for p in held["photos"]}
    kept = next(p for p in held["photos"] if p["data"] != small)
    assert small in [p["data"] for p in held["photos"]]  # small enough: the camera's bytes
    assert len(by_data) == 2 and len(kept["data"]) < len(big) / 3
    assert hashlib.sha256(kept["data"]).hexdigest() == kept["sha256"]
    with Image.open(io.BytesIO(kept["data"])) as img:
        assert img.format == "JPEG" and img.size == (853, 1280)   # upright: portrait
        assert img.getexif().get(0x0112) == 1                      # no second turn by viewers
        top = img.convert("RGB").getpixel((426, 40))
        assert top[0] > 180 and top[1] < 90 and top[2] < 90        # red band on top, as shown
    with app.app_context():
        row = db.session.scalar(db.select(Photo).filter_by(uuid=kept["uuid"]))
        assert (row.width, row.height) == (853, 1280)
        assert row.exif_taken_at.startswith("2026-12-01T10:14:59")
        assert round(row.exif_lat, 2) == -12.5 and round(row.exif_lon, 2) == -56.25
    context.close()


def _tiff(order: bytes, orientation: int, thumbnail: bytes = b"") -> bytes:
    """A minimal EXIF TIFF block: IFD0 with Orientation and Make, in either byte order, and
    an IFD1 with the camera's thumbnail at the end when one is given (as cameras write it)."""
    import struct

    e = "<" if order == b"II" else ">"
    make = b"Cam\0"
    head = order + struct.pack(e + "HI", 42, 8)
    ifd = struct.pack(e + "H", 2)
    ifd += struct.pack(e + "HHI", 0x010F, 2, len(make)) + make          # Make, inline
    ifd += struct.pack(e + "HHIH", 0x0112, 3, 1, orientation) + b"\0\0"  # SHORT, left-aligned
    if not thumbnail:
        return head + ifd + struct.pack(e + "I", 0)
    ifd1 = struct.pack(e + "H", 2) + struct.pack(e + "HHII", 0x0201, 4, 1, 68)
    ifd1 += struct.pack(e + "HHII", 0x0202, 4, 1, len(thumbnail)) + struct.pack(e + "I", 0)
    return head + ifd + struct.pack(e + "I", 38) + ifd1 + thumbnail     # IFD1 at 38, thumb at 68


@pytest.mark.parametrize("order", [b"II", b"MM"])   # Android phones write II, iPhones MM
def test_the_exif_copy_sets_orientation_1_and_drops_the_thumbnail_in_either_order(live_server, browser, order,
                                                               tmp_path):
    import base64

    thumbnail = jpeg_file(tmp_path / "t.jpg", 2)[:3000]   # its bytes only are counted
    segment_payload = b"Exif\0\0" + _tiff(order, 8, thumbnail)
    app1 = b"\xff\xe1" + (len(segment_payload) + 2).to_bytes(2, "big") + segment_payload
    plain = jpeg_file(tmp_path / "p.jpg", 1)
    camera = plain[:2] + app1 + plain[2:]
    with Image.open(io.BytesIO(camera)) as im:
        assert im.getexif()[0x0112] == 8 and im.getexif()[0x010F] == "Cam"
    page = browser.new_page(base_url=live_server.url)
    page.goto("/campo/sem-internet")
    out = page.evaluate("""async ([cam, plain]) => {
        const m = await import("/static/js/field/photo_size.js");
        const bytes = (b) => Uint8Array.from(atob(b), (c) => c.charCodeAt(0));
        const seg = m.exifSegment(bytes(cam).buffer);
        const none = m.exifSegment(bytes(plain).buffer);
        const kept = m.withExif(bytes(plain), m.withoutThumbnail(m.uprightExif(seg)));
        let s = ""; kept.forEach((v) => { s += String.fromCharCode(v); });
        return { none, length: seg.length, kept: btoa(s) };
    }""", [base64.b64encode(camera).decode(), base64.b64encode(plain).decode()])
    page.close()
    assert out["none"] is None and out["length"] == len(app1)
    kept = base64.b64decode(out["kept"])
    assert kept[:2] == b"\xff\xd8" and kept[2:4] == b"\xff\xe1"        # copied after the SOI
    # the thumbnail's bytes are gone, and the segment says its new length
    assert len(kept) == len(plain) + len(app1) - len(thumbnail)
    assert int.from_bytes(kept[4:6], "big") == len(app1) - 2 - len(thumbnail)
    with Image.open(io.BytesIO(kept)) as im:
        im.load()                                   # still one whole, decodable JPEG
        assert im.getexif()[0x0112] == 1 and im.getexif()[0x010F] == "Cam"
        assert im.size == (320, 240)
