"""Builders for field-API tests: inspection bodies, real photos with EXIF, a signed-in JSON
client (Flask test client) and a raw HTTP client for the live server."""
from __future__ import annotations

import base64
import hashlib
import http.client
import json
import re
import uuid
from datetime import UTC, datetime, timedelta
from io import BytesIO
from urllib.parse import urlencode, urlsplit

from PIL import ExifTags, Image
from sqlalchemy import func, select

from inspector.extensions import db
from tests import factories

_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


def jpeg(seed: int = 0, size=(64, 48), gps=(-12.7083333, -56.5),
         taken="2026:11:30 09:05:00") -> bytes:
    """A small real JPEG with EXIF DateTimeOriginal and a GPS position."""
    img = Image.new("RGB", size, (seed * 37 % 256, seed * 91 % 256, 120))
    exif = Image.Exif()
    exif[ExifTags.IFD.Exif] = {0x9003: taken, 0x9011: "-04:00"}
    lat, lon = gps

    def dms(x):
        x = abs(x)
        d = int(x)
        m = int((x - d) * 60)
        return (float(d), float(m), round((x - d - m / 60) * 3600, 4))

    exif[ExifTags.IFD.GPSInfo] = {1: "S" if lat < 0 else "N", 2: dms(lat),
                                  3: "W" if lon < 0 else "E", 4: dms(lon)}
    out = BytesIO()
    img.save(out, "JPEG", exif=exif, quality=80)
    return out.getvalue()


def png_signature() -> str:
    img = Image.new("RGB", (60, 20), "white")
    out = BytesIO()
    img.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def photo_decl(data: bytes, mime: str = "image/jpeg", pid: str | None = None) -> dict:
    return {"id": pid or str(uuid.uuid4()), "sha256": sha(data), "mime": mime,
            "size": len(data), "taken_at": "2026-11-30T13:05:00Z"}


def body(vehicle_id: int, *, fail: dict[str, list[bytes]] | None = None,
         ok: tuple[str, ...] = ("general-condition", "mirrors"), version: int | None = 0,
         token: str | None = None, started: datetime | None = None, **extra) -> dict:
    """An inspection of a Tapurah moto-taxi: `ok` items pass, `fail` items fail with photos."""
    started = started or datetime.now(UTC) - timedelta(minutes=10)
    items = [{"item_id": i, "result": "ok", "note": "", "photos": []} for i in ok]
    for item_id, photos in (fail or {}).items():
        items.append({"item_id": item_id, "result": "fail", "note": "Ausente",
                      "photos": [photo_decl(p) for p in photos]})
    out = {"vehicle_id": vehicle_id, "credential_token": token,
           "started_at": started.isoformat().replace("+00:00", "Z"),
           "finished_at": (started + timedelta(minutes=7)).isoformat().replace("+00:00", "Z"),
           "snapshot_version": version,
           "location": {"lat": -12.7, "lon": -56.5, "accuracy_m": 12},
           "items": items,
           "acknowledgement": {"name": "Condutor de Teste", "signature_png": png_signature()}}
    out.update(extra)
    return out


def photos_of(b: dict) -> list[dict]:
    return [p for it in b["items"] for p in it["photos"]]


class Api:
    """A signed-in Flask test client speaking JSON with the CSRF header."""

    def __init__(self, client):
        self.c = client
        self.token = client.get("/api/field/session").json["csrf_token"]

    def put(self, path: str, payload=None, data: bytes | None = None, headers=None):
        h = {"X-CSRFToken": self.token, **(headers or {})}
        if payload is not None:
            data = json.dumps(payload).encode()
            h.setdefault("Content-Type", "application/json")
        return self.c.put(path, data=data, headers=h)

    def put_inspection(self, iid: str, payload: dict):
        return self.put(f"/api/field/inspections/{iid}", payload)

    def put_photo(self, iid: str, pid: str, data: bytes, declared: str | None = None,
                  mime: str = "image/jpeg"):
        return self.put(f"/api/field/inspections/{iid}/photos/{pid}", data=data,
                        headers={"Content-Type": mime,
                                 "X-Content-SHA256": declared or sha(data)})

    def get(self, path: str, **kw):
        return self.c.get(path, **kw)


class LiveClient:
    """http.client against the live server, keeping the session cookie by hand
    (the cookie is Secure, which a client on plain http would not send back)."""

    def __init__(self, base_url: str, username: str, password: str = factories.PASSWORD):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port
        self.cookie = ""
        page = self.request("GET", "/entrar")
        token = _TOKEN.search(page[2].decode()).group(1)
        status, _, _ = self.request("POST", "/entrar", urlencode(
            {"username": username, "password": password, "csrf_token": token}).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 302, status
        self.csrf = json.loads(self.request("GET", "/api/field/session")[2])["csrf_token"]

    def request(self, method: str, path: str, data: bytes | None = None, headers=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        h = dict(headers or {})
        if self.cookie:
            h["Cookie"] = self.cookie
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        payload = r.read()
        for name, value in r.getheaders():
            if name.lower() == "set-cookie" and value.startswith("inspector_session="):
                self.cookie = value.split(";", 1)[0]
        conn.close()
        return r.status, dict(r.getheaders()), payload

    def put_json(self, path: str, payload: dict):
        return self.request("PUT", path, json.dumps(payload).encode(),
                            {"Content-Type": "application/json", "X-CSRFToken": self.csrf})

    def put_bytes(self, path: str, data: bytes, mime: str = "image/jpeg"):
        return self.request("PUT", path, data, {"Content-Type": mime, "X-CSRFToken": self.csrf,
                                                "X-Content-SHA256": sha(data)})


def damage_evidence(photo, data: bytes | None) -> None:
    """Behind the app's back, overwrite a received photo's stored bytes with `data` (same
    length), or with None make its record unreadable (its header zeroed), as a disk fault or
    a hand on the file would."""
    from inspector.inspections import evidence_store

    if photo.pack is None:
        path = evidence_store.path_of(photo.sha256)
        path.write_bytes(data) if data is not None else path.unlink()
        return
    assert data is None or len(data) == photo.size
    with open(evidence_store.pack_path(photo.pack), "r+b") as f:
        if data is None:
            f.seek(photo.pack_offset - evidence_store.PACK_HEADER.size)
            f.write(bytes(evidence_store.PACK_HEADER.size))
        else:
            f.seek(photo.pack_offset)
            f.write(data)


def count(app, model, **where) -> int:
    """How many rows of `model` match `where`."""
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model).filter_by(**where))
