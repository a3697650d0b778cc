"""The town snapshot for the field app: full and delta, standing, data minimisation, speed.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import gzip
import json
import re
import uuid

from sqlalchemy import select

from inspector import audit
from inspector.extensions import db
from inspector.models import Licence, Status
from tests import factories
from tests.support.field_api import body, jpeg

CPF_SHAPED = re.compile(r"(?<!\d)\d{3}\.?\d{3}\.?\d{3}-?\d{2}(?!\d)")


# ------------------------------------------------------------------ snapshot
def _strings(node, key=None):
    """Every (key, string value) in a JSON document."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v, key)
    elif isinstance(node, str):
        yield key, node


def _town_with_fleet(make):
    from inspector.credentials import issuing

    def build():
        out = []
        for i in range(3):
            v = factories.vehicle("tapurah", "mototaxi", last_vistoria_on=factories.date.today()
                                  - factories.timedelta(days=30))
            factories.insurance(v)
            d = factories.driver("tapurah", "mototaxista", holder=v.holder)
            d.vehicles.append(v)
            d.photo = jpeg(i, size=(480, 640))
            d.photo_mime = "image/jpeg"
            factories.licence(v)
            factories.permit(v.holder, "mototaxi")
            issuing.issue(v)
            out.append(v)
        factories.licence(out[2], status=Status.SUSPENDED, number=f"AL-SUSP-{out[2].id}",
                          valid_from=factories.date.today())
        factories.vehicle("nortelandia", "mototaxi")  # another town: never in the snapshot
        return out[0]
    return make(build)


def test_full_snapshot_has_the_town_and_nothing_personal(app, api, make):
    _town_with_fleet(make)
    r = api.get("/api/field/snapshot")
    assert r.status_code == 200 and r.mimetype == "application/json"
    s = r.json
    assert s["full"] is True and s["version"] > 0 and s["deleted"] == {}
    assert s["town"] == {"slug": "tapurah", "name": "Tapurah", "ibge": "5108006",
                         "fiscal_unit": "UFIM", "public_base_url": "http://127.0.0.1:5000",
                         "photo": {"max_side": 1600, "quality": 85}}  # the measured default
    assert len(s["vehicles"]) == 3 and len(s["drivers"]) == 3
    assert len(s["credentials"]) == 3 and {c["status"] for c in s["credentials"]} == {"active"}
    assert all(d["photo"].startswith("data:image/jpeg;base64,") for d in s["drivers"])
    assert all(len(d["photo"]) < 12_000 for d in s["drivers"])  # a thumbnail, not the photo
    assert all(d["vehicle_ids"] for d in s["drivers"])
    standing = {x["vehicle_id"]: x["status"] for x in s["standing"]}
    assert sorted(standing.values()) == ["regular", "regular", "suspended"]
    assert s["checklists"][0]["service"] == "mototaxi"
    assert s["checklists"][0]["law"] == "Lei 406/2001"
    assert any(i["id"] == "tank-sign" for i in s["checklists"][0]["items"])
    assert s["keys"] and s["keys"][0]["public_key"]
    # Data minimisation: no CPF or CNPJ, no address, no phone, no CNH number, no token.
    text = r.get_data(as_text=True)
    with app.app_context():
        from inspector.models import Credential, Driver, Holder

        secrets = [h.tax_id for h in db.session.scalars(select(Holder))]
        secrets += [d.cpf for d in db.session.scalars(select(Driver))]
        secrets += [d.cnh_number for d in db.session.scalars(select(Driver))]
        secrets += [h.address for h in db.session.scalars(select(Holder))]
        secrets += [c.token for c in db.session.scalars(select(Credential))]
    for secret in secrets:
        assert secret not in text
    opaque = {"token_hash", "public_key", "x", "photo"}  # hashes, keys, images
    for key, value in _strings(s):
        if key not in opaque:
            assert not CPF_SHAPED.search(value), f"CPF-shaped {key}: {value}"
    for key in ("cpf", "tax_id", "address", "phone", "email", "cnh_number", '"token"',
                "rg_number", "rg_issuer"):
        assert key not in text


def test_delta_returns_only_what_changed_and_what_was_deleted(app, api, make):
    v = _town_with_fleet(make)
    full = api.get("/api/field/snapshot").json
    same = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert same["full"] is False and same["version"] == full["version"]
    assert same["vehicles"] == same["drivers"] == same["standing"] == []
    with app.app_context():
        from inspector.models import Stand, Vehicle
        from inspector.registry.records import save_vehicle

        row = db.session.get(Vehicle, v.id)
        save_vehicle(row.municipality_id, {"colour": "Azul"}, actor=None, vehicle=row)
        gone = factories.stand("tapurah")
        audit.record("stand_created", "stand", gone.id, municipality_id=row.municipality_id)
        db.session.commit()
        db.session.delete(db.session.get(Stand, gone.id))
        audit.record("stand_deleted", "stand", gone.id, municipality_id=row.municipality_id)
        db.session.commit()
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert delta["full"] is False and delta["version"] == full["version"] + 3
    assert [x["id"] for x in delta["vehicles"]] == [v.id]
    assert delta["vehicles"][0]["colour"] == "Azul"
    assert delta["drivers"] == delta["licences"] == delta["credentials"] == []
    assert [x["vehicle_id"] for x in delta["standing"]] == [v.id]
    assert delta["deleted"] == {"stands": [gone.id]}
    assert delta["checklists"] and delta["keys"]


def test_snapshot_is_gzip_compressed_when_asked(api, make):
    _town_with_fleet(make)
    r = api.get("/api/field/snapshot", headers={"Accept-Encoding": "gzip"})
    assert r.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in r.headers["Vary"]
    assert json.loads(gzip.decompress(r.get_data()))["full"] is True


def test_snapshot_tells_the_last_inspection_of_each_vehicle(api, moto):
    v = moto()
    iid = str(uuid.uuid4())
    before = api.get("/api/field/snapshot").json
    api.put_inspection(iid, body(v.id))
    delta = api.get(f"/api/field/snapshot?since={before['version']}").json
    assert delta["last_inspections"] == [{"vehicle_id": v.id, "id": iid, "finished_at":
                                          delta["last_inspections"][0]["finished_at"],
                                          "status": "awaiting_review", "failed_items": 0}]


def test_bad_since_is_422(api):
    assert api.get("/api/field/snapshot?since=abc").status_code == 422


def test_standing_follows_a_revoked_licence_in_full_and_delta_snapshots(instant, app, api, make):
    v = _town_with_fleet(make)
    full = api.get("/api/field/snapshot").json
    assert {x["vehicle_id"]: x["status"] for x in full["standing"]}[v.id] == "regular"
    with app.app_context():
        from inspector.registry.records import change_status

        lic = db.session.scalar(select(Licence).filter_by(vehicle_id=v.id))
        change_status(lic, Status.REVOKED, "Cassado em processo administrativo", actor=None)
        db.session.commit()
        lic_id = lic.id
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert [x["id"] for x in delta["licences"]] == [lic_id]
    assert delta["licences"][0]["status"] == "revoked"
    assert [(x["vehicle_id"], x["status"]) for x in delta["standing"]] == [(v.id, "irregular")]
    again = api.get("/api/field/snapshot").json  # the cached standing was brought up to date
    assert {x["vehicle_id"]: x["status"] for x in again["standing"]}[v.id] == "irregular"


def test_snapshot_queries_do_not_grow_with_the_fleet(app, api, make):
    from sqlalchemy import event

    def queries() -> int:
        with app.app_context():
            seen = []
            listener = lambda *a: seen.append(1)  # noqa: E731
            event.listen(db.engine, "before_cursor_execute", listener)
            try:
                assert api.get("/api/field/snapshot").status_code == 200
            finally:
                event.remove(db.engine, "before_cursor_execute", listener)
            return len(seen)

    _town_with_fleet(make)
    app.extensions.pop("field_standing", None)
    few = queries()
    for _ in range(3):
        _town_with_fleet(make)
    app.extensions.pop("field_standing", None)
    assert queries() == few


def test_the_thumbnail_is_made_when_the_photo_is_stored_and_shipped_as_stored(app, api, make):
    """The phone gets the 96x128 JPEG kept beside the photo; a photo written around the ORM
    (a bulk load) without one still gets a thumbnail in the snapshot."""
    import base64
    from io import BytesIO

    from PIL import Image
    from sqlalchemy import update

    from inspector.models import Driver

    _town_with_fleet(make)
    with app.app_context():
        drivers = db.session.scalars(select(Driver).where(Driver.photo.is_not(None))
                                     .order_by(Driver.id)).all()
        stored = {d.id: d.photo_thumb for d in drivers}
        bulk = drivers[0].id
        db.session.execute(update(Driver).where(Driver.id == bulk).values(photo_thumb=None))
        db.session.commit()
    for thumb in stored.values():
        img = Image.open(BytesIO(thumb))
        assert img.format == "JPEG" and img.size[0] <= 96 and img.size[1] <= 128
    shipped = {d["id"]: base64.b64decode(d["photo"].split(",", 1)[1])
               for d in api.get("/api/field/snapshot").json["drivers"]}
    assert {k: v for k, v in shipped.items() if k != bulk} == \
        {k: v for k, v in stored.items() if k != bulk}
    assert Image.open(BytesIO(shipped[bulk])).size[1] <= 128


def test_snapshot_tells_the_phone_the_address_printed_in_the_qr_codes(app, api, make):
    """The phone flags a genuine token behind any other address (a swapped sticker): it needs
    the official one, PUBLIC_BASE_URL, path prefix included, in full and delta snapshots."""
    _town_with_fleet(make)
    app.config["PUBLIC_BASE_URL"] = "https://fiscaliza.tapurah.mt.gov.br/campo-publico/"
    full = api.get("/api/field/snapshot").json
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    for s in (full, delta):
        assert s["town"]["public_base_url"] == "https://fiscaliza.tapurah.mt.gov.br/campo-publico"
