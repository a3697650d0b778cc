"""Evidence kept before the sync checked photos whole never breaks the review:
a cut-short JPEG stored through the evidence store, bypassing the check as old data did, is
shown as "imagem danificada" with its SHA-256 on the inspection page, as a placeholder in the
gallery and the zoom renditions, in words in the zoom panel, and its original bytes download
unchanged. Supervisors of the town only. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import hashlib
import random
import struct
import uuid
import zlib
from io import BytesIO

import pytest
from PIL import Image
from sqlalchemy import select

from inspector.extensions import db
from inspector.inspections import evidence, renditions
from inspector.models import Inspection, Photo
from tests import factories
from tests.support.field_api import Api, body, jpeg, photo_decl


def _noise_jpeg() -> bytes:
    img = Image.frombytes("RGB", (400, 300), random.Random(3).randbytes(400 * 300 * 3))
    out = BytesIO()
    img.save(out, "JPEG", quality=85)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


TRUNCATED = _noise_jpeg()[:9000]
# Whole as a structure (every CRC right), but its pixels do not decompress: only drawing it
# finds out.
UNDECODABLE_PNG = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 2,
                                                                       0, 0, 0))
                   + _chunk(b"IDAT", b"\x78\x9c" + bytes(50)) + _chunk(b"IEND", b""))


@pytest.fixture
def stored(app, make, moto, monkeypatch):
    """An inspection whose first photo is a cut-short JPEG, second an undecodable PNG, third
    a good JPEG, all stored through the sync under a header-only check, as data kept before every photo
    was checked whole."""
    vehicle = moto()
    agent = make(factories.user, "agent", "tapurah")
    good = jpeg(8, size=(320, 240))
    photos = [(TRUNCATED, "image/jpeg"), (UNDECODABLE_PNG, "image/png"), (good, "image/jpeg")]
    client = app.test_client()
    assert client.login(agent.username).status_code == 302
    api = Api(client)
    b = body(vehicle.id)
    decls = [photo_decl(data, mime) for data, mime in photos]
    b["items"].append({"item_id": "tank-sign", "result": "fail", "note": "x", "photos": decls})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    with monkeypatch.context() as m:  # the check as it was: header and EXIF only
        m.setattr(evidence, "decode_photo", lambda data: evidence.ImageFacts(
            "PNG" if data.startswith(b"\x89PNG") else "JPEG", 64, 64))
        for (data, mime), decl in zip(photos, decls):
            assert api.put_photo(iid, decl["id"], data, mime=mime).status_code == 201
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        ids = [p.id for p in sorted(insp.photos, key=lambda p: p.position)]
    renditions._cache.clear()
    renditions._damaged.clear()
    return {"id": insp.id, "photos": ids, "data": [p[0] for p in photos],
            "sha": [hashlib.sha256(p[0]).hexdigest() for p in photos]}


def _supervisor(app, make, town="tapurah"):
    user = make(factories.user, "supervisor", town)
    client = app.test_client()
    assert client.login(user.username).status_code == 302
    return client


def test_a_truncated_stored_jpeg_shows_as_damaged_with_its_hash_and_downloads_unchanged(
        app, make, stored):
    c = _supervisor(app, make)
    truncated, _, good = stored["photos"]
    page = c.get(f"/revisao/vistorias/{stored['id']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Imagem danificada" in html and stored["sha"][0] in html
    assert f"/revisao/fotos/{truncated}/original" in html
    assert f"/revisao/fotos/{truncated}/mini.jpg" not in html  # no image drawn for it
    assert f"/revisao/fotos/{good}/mini.jpg" in html  # the good one still is

    for size in ("mini", "zoom"):
        r = c.get(f"/revisao/fotos/{truncated}/{size}.jpg")
        assert r.status_code == 200 and r.mimetype == "image/svg+xml"
        svg = r.get_data(as_text=True)
        assert "imagem danificada" in svg and stored["sha"][0][:16] in svg
        r = c.get(f"/revisao/fotos/{good}/{size}.jpg")
        assert r.status_code == 200 and r.mimetype == "image/jpeg"

    for headers in ({}, {"HX-Request": "true"}):
        r = c.get(f"/revisao/fotos/{truncated}/ampliar", headers=headers)
        assert r.status_code == 200
        zoom = r.get_data(as_text=True)
        assert "Imagem danificada" in zoom and stored["sha"][0] in zoom
        assert f"/revisao/fotos/{truncated}/original" in zoom
        assert "não abre" in zoom  # the badge: the hash matches, the image does not open

    r = c.get(f"/revisao/fotos/{truncated}/original")
    assert r.status_code == 200
    assert r.data == stored["data"][0]
    assert hashlib.sha256(r.data).hexdigest() == stored["sha"][0]
    assert stored["sha"][0][:12] in r.headers["Content-Disposition"]


def test_a_photo_whole_in_structure_that_cannot_be_drawn_is_found_by_its_rendering(
        app, make, stored):
    """The page cannot tell without drawing it: its thumbnail is the placeholder, and from
    then on the page and the zoom say "imagem danificada"."""
    c = _supervisor(app, make)
    png = stored["photos"][1]
    first = c.get(f"/revisao/vistorias/{stored['id']}").get_data(as_text=True)
    assert f"/revisao/fotos/{png}/mini.jpg" in first
    r = c.get(f"/revisao/fotos/{png}/mini.jpg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    again = c.get(f"/revisao/vistorias/{stored['id']}").get_data(as_text=True)
    assert f"/revisao/fotos/{png}/mini.jpg" not in again
    assert stored["sha"][1] in again
    zoom = c.get(f"/revisao/fotos/{png}/ampliar").get_data(as_text=True)
    assert "Imagem danificada" in zoom and stored["sha"][1] in zoom


def test_the_zoom_finds_a_photo_that_cannot_be_drawn_on_its_own(app, make, stored):
    c = _supervisor(app, make)
    png = stored["photos"][1]
    zoom = c.get(f"/revisao/fotos/{png}/ampliar", headers={"HX-Request": "true"})
    assert zoom.status_code == 200
    assert "Imagem danificada" in zoom.get_data(as_text=True)


def test_only_the_towns_supervision_sees_a_damaged_photo(app, make, stored):
    truncated = stored["photos"][0]
    paths = [f"/revisao/fotos/{truncated}/mini.jpg", f"/revisao/fotos/{truncated}/ampliar",
             f"/revisao/fotos/{truncated}/original"]
    agent = app.test_client()
    assert agent.login(make(factories.user, "agent", "tapurah").username).status_code == 302
    other = _supervisor(app, make, "sapezal")
    for path in paths:
        assert agent.get(path).status_code == 403, path
        assert other.get(path).status_code == 404, path


def test_photo_rows_keep_their_hash_and_size(app, stored):
    """Nothing of the stored evidence was changed by showing it."""
    with app.app_context():
        rows = db.session.scalars(select(Photo).where(Photo.id.in_(stored["photos"]))
                                  .order_by(Photo.position)).all()
        assert [r.sha256 for r in rows] == stored["sha"]
        assert [r.size for r in rows] == [len(d) for d in stored["data"]]
