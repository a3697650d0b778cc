"""The field sync API (docs/sync.md): idempotent inspections and photos, the town snapshot,
roles, and the OpenAPI document. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import json
import os
import re
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select, update

from inspector import audit
from inspector.extensions import db
from inspector.inspections import records
from inspector.models import (
    AuditEntry,
    Inspection,
    InspectionItem,
    InspectionStatus,
    Licence,
    Photo,
    Status,
)
from tests import factories
from tests.support.field_api import Api, body, count, jpeg, photos_of, sha


# ------------------------------------------------------------------ session
def test_session_names_the_agent_and_gives_a_csrf_token(api, agent):
    r = api.get("/api/field/session")
    assert r.status_code == 200
    assert r.json["user"]["name"] == agent.name
    assert r.json["user"]["badge"] == "AG-07"
    assert r.json["user"]["town"]["slug"] == "tapurah"
    assert r.json["csrf_token"]


def test_put_without_csrf_header_is_refused(api, moto):
    v = moto()
    r = api.c.put(f"/api/field/inspections/{uuid.uuid4()}", json=body(v.id))
    assert r.status_code == 400 and r.json["status"] == 400


# ------------------------------------------------------------------ inspections
def test_first_put_stores_replay_is_200_and_different_content_is_409(app, api, moto):
    v = moto()
    iid = str(uuid.uuid4())
    b = body(v.id)
    first = api.put_inspection(iid, b)
    assert first.status_code == 201, first.json
    assert first.json == {"id": iid, "complete": True, "missing_photos": [],
                          "refused_photos": [], "status": "awaiting_review",
                          "registry_changed": False}
    again = api.put_inspection(iid, b)
    assert again.status_code == 200 and again.json == first.json
    changed = dict(b, items=[{"item_id": "mirrors", "result": "na", "photos": []}])
    conflict = api.put_inspection(iid, changed)
    assert conflict.status_code == 409
    assert "outro conteúdo" in conflict.json["error"]
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        assert insp.body_sha256 == sha(audit.canonical(b).encode())
        assert json.loads(insp.body) == b
        assert [(i.item_id, i.result.value) for i in insp.items] == [
            ("general-condition", "ok"), ("mirrors", "ok")]
        assert insp.items[0].citation["law"] == "Lei 406/2001"
        assert insp.ack_name == "Condutor de Teste" and insp.ack_signature.startswith(b"\x89PNG")
        assert insp.agent_id is not None and insp.lat == -12.7
        actions = db.session.scalars(select(AuditEntry.action).filter_by(
            entity="inspection", entity_id=iid)).all()
        assert actions == ["inspection_received"]


def test_key_order_and_spacing_do_not_make_a_replay_different(api, moto):
    v = moto()
    iid = str(uuid.uuid4())
    b = body(v.id)
    assert api.put_inspection(iid, b).status_code == 201
    reordered = json.dumps(dict(reversed(list(b.items()))), indent=2).encode()
    r = api.put(f"/api/field/inspections/{iid}", data=reordered,
                headers={"Content-Type": "application/json"})
    assert r.status_code == 200


@pytest.mark.parametrize("change, field, words", [
    ({"vehicle_id": 999999}, "vehicle_id", "não encontrado"),
    ({"items": [{"item_id": "asa-delta", "result": "ok", "photos": []}]}, "items[0].item_id",
     "não faz parte do checklist"),
    ({"items": [{"item_id": "tank-sign", "result": "fail", "photos": []}]}, "items[0].photos",
     "exige foto"),
    ({"items": [{"item_id": "mirrors", "result": "talvez", "photos": []}]}, "items[0].result",
     "ok, fail ou na"),
    ({"started_at": "ontem"}, "started_at", "data e hora"),
    ({"location": {"lat": 123, "lon": 0}}, "location.lat", "latitude"),
    ({"acknowledgement": {"name": "X", "signature_png": "data:image/png;base64,AAAA"}},
     "acknowledgement.signature_png", "Formato"),
])
def test_content_that_can_never_be_accepted_is_422_in_portuguese(app, api, moto, change, field,
                                                                   words):
    v = moto()
    r = api.put_inspection(str(uuid.uuid4()), dict(body(v.id), **change))
    assert r.status_code == 422, r.json
    assert field in r.json["fields"], r.json
    assert words in r.json["fields"][field]
    assert r.json["error"].startswith("A vistoria não pode ser aceita")
    assert count(app, Inspection) == 0


def test_failed_item_that_needs_no_photo_is_accepted_without_one(api, moto):
    v = moto()
    b = body(v.id)
    b["items"].append({"item_id": "sober", "result": "fail", "note": "hálito", "photos": []})
    assert api.put_inspection(str(uuid.uuid4()), b).status_code == 201


def test_another_towns_vehicle_is_refused_and_its_inspection_hidden(app, api, moto, make):
    foreign = moto("nortelandia")
    r = api.put_inspection(str(uuid.uuid4()), body(foreign.id))
    assert r.status_code == 422 and "vehicle_id" in r.json["fields"]
    # An inspection of another town is not found, and its UUID cannot be overwritten.
    other = make(factories.user, "agent", "nortelandia")
    c2 = app.test_client()
    c2.login(other.username)
    api2 = Api(c2)
    iid = str(uuid.uuid4())
    b = body(foreign.id, ok=("engine-size",))
    assert api2.put_inspection(iid, b).status_code == 201, api2.put_inspection(iid, b).json
    assert api.get(f"/api/field/inspections/{iid}").status_code == 404
    assert api.put_inspection(iid, b).status_code == 409
    assert api.put_photo(iid, str(uuid.uuid4()), jpeg()).status_code == 404


def test_not_json_is_422(api):
    r = api.put(f"/api/field/inspections/{uuid.uuid4()}", data=b"{not json",
                headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "body" in r.json["fields"]


# ------------------------------------------------------------------ photos
def test_photos_complete_the_inspection_and_keep_original_bytes_and_exif(app, api, moto):
    v = moto()
    p1, p2 = jpeg(1), jpeg(2)
    b = body(v.id, fail={"tank-sign": [p1], "mirrors": [p2]}, ok=("general-condition",))
    iid = str(uuid.uuid4())
    first = api.put_inspection(iid, b)
    decl = photos_of(b)
    assert first.status_code == 201
    assert first.json["complete"] is False and first.json["status"] == "incomplete"
    assert first.json["missing_photos"] == [decl[0]["id"], decl[1]["id"]]
    r1 = api.put_photo(iid, decl[0]["id"], p1)
    assert r1.status_code == 201
    assert r1.json == {"id": decl[0]["id"], "inspection": iid, "complete": False,
                       "missing_photos": [decl[1]["id"]], "refused_photos": [],
                       "status": "incomplete", "registry_changed": False}
    assert api.put_photo(iid, decl[0]["id"], p1).status_code == 200  # resend: same bytes
    r2 = api.put_photo(iid, decl[1]["id"], p2)
    assert r2.status_code == 201 and r2.json["complete"] is True
    assert r2.json["status"] == "awaiting_review"
    got = api.get(f"/api/field/inspections/{iid}").json
    assert got["complete"] and got["body_sha256"] == sha(audit.canonical(b).encode())
    with app.app_context():
        photos = db.session.scalars(select(Photo).order_by(Photo.position)).all()
        assert [records.photo_bytes(p) for p in photos] == [p1, p2]
        assert [p.sha256 for p in photos] == [sha(p1), sha(p2)]
        assert photos[0].exif_taken_at == "2026-11-30T09:05:00-04:00"
        assert photos[0].exif_lat == pytest.approx(-12.7083333, abs=1e-4)
        assert photos[0].exif_lon == pytest.approx(-56.5, abs=1e-4)
        assert photos[0].item.item_id == "tank-sign"
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        assert insp.status == InspectionStatus.AWAITING_REVIEW and insp.completed_at
        assert insp.failed_items == 2
        actions = db.session.scalars(select(AuditEntry.action).where(
            AuditEntry.entity != "sanction").order_by(AuditEntry.seq)).all()  # acts: the review's
        assert actions[-4:] == ["inspection_received", "photo_received", "photo_received",
                                "inspection_completed"]
        assert audit.verify()[1] is None


def test_photo_refusals(app, api, moto):
    v = moto()
    p1 = jpeg(1)
    b = body(v.id, fail={"tank-sign": [p1]})
    iid = str(uuid.uuid4())
    pid = photos_of(b)[0]["id"]
    api.put_inspection(iid, b)
    # The body is not what the header says: damaged on the way.
    r = api.put_photo(iid, pid, p1, declared=sha(b"other"))
    assert r.status_code == 422 and "SHA-256" in r.json["error"]
    # Other bytes than the ones declared in the inspection.
    other = jpeg(9)
    r = api.put_photo(iid, pid, other)
    assert r.status_code == 422 and "declarado" in r.json["error"]
    # A photo the inspection never declared.
    r = api.put_photo(iid, str(uuid.uuid4()), p1)
    assert r.status_code == 422 and "não foi declarada" in r.json["error"]
    # An unknown inspection.
    r = api.put_photo(str(uuid.uuid4()), pid, p1)
    assert r.status_code == 404
    # The bytes sent as a form (the CSRF check reads such a body as one): said so.
    forms = ("multipart/form-data; boundary=x", "application/x-www-form-urlencoded")
    for form in forms:
        r = api.put_photo(iid, pid, p1, mime=form)
        assert r.status_code == 415 and "não como formulário" in r.json["error"], form
    assert count(app, Photo, received_at=None) == 1
    assert api.put_photo(iid, pid, p1).status_code == 201
    # Now stored: other bytes under the same UUID are a conflict, the original stays.
    r = api.put_photo(iid, pid, other)
    assert r.status_code == 409
    # the same bytes again, but as a form: not "another content" (409), a form (415)
    assert {api.put_photo(iid, pid, p1, mime=f).status_code for f in forms} == {415}
    with app.app_context():
        assert records.photo_bytes(db.session.scalar(select(Photo))) == p1


@pytest.mark.parametrize("kind", ["junk", "png-as-jpeg", "bomb"])
def test_images_outside_the_allow_list_or_too_big_are_422(app, api, moto, kind):
    from io import BytesIO

    from PIL import Image

    from tests.support.field_api import photo_decl

    if kind == "junk":
        data = b"GIF89a" + bytes(200)
    else:
        size = (64, 48) if kind == "png-as-jpeg" else (12000, 12000)
        out = BytesIO()
        Image.new("1", size).save(out, "PNG")
        data = out.getvalue()
    v = moto()
    b = body(v.id)
    decl = photo_decl(data, "image/jpeg")
    b["items"].append({"item_id": "tank-sign", "result": "fail", "photos": [decl]})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    r = api.put_photo(iid, decl["id"], data)
    assert r.status_code == 422, r.json
    assert count(app, Photo, received_at=None) == 1


@pytest.mark.parametrize("fmt, mime", [("PNG", "image/png"), ("WEBP", "image/webp"),
                                       ("HEIF", "image/heic")])
def test_png_webp_and_iphone_heic_are_kept_as_sent(app, api, moto, fmt, mime):
    from io import BytesIO

    from PIL import ExifTags, Image

    from tests.support.field_api import photo_decl

    exif = Image.Exif()
    exif[ExifTags.IFD.Exif] = {0x9003: "2026:11:30 09:05:00"}
    out = BytesIO()
    Image.new("RGB", (40, 30), "blue").save(out, fmt, exif=exif.tobytes())
    data = out.getvalue()
    v = moto()
    b = body(v.id)
    decl = photo_decl(data, mime)
    b["items"].append({"item_id": "tank-sign", "result": "fail", "photos": [decl]})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    r = api.put_photo(iid, decl["id"], data, mime=mime)
    assert r.status_code == 201 and r.json["complete"], r.json
    with app.app_context():
        photo = db.session.scalar(select(Photo))
        assert records.photo_bytes(photo) == data
        assert (photo.width, photo.height) == (40, 30)
        if fmt != "PNG":
            assert photo.exif_taken_at == "2026-11-30T09:05:00"


def test_lost_acknowledgements_leave_one_inspection_and_one_photo(app, api, moto):
    """The server committed, the phone never heard: it sends everything again."""
    v = moto()
    p1 = jpeg(3)
    b = body(v.id, fail={"tank-sign": [p1]})
    iid, pid = str(uuid.uuid4()), photos_of(b)[0]["id"]
    assert api.put_inspection(iid, b).status_code == 201
    assert api.put_photo(iid, pid, p1).status_code == 201
    assert api.put_inspection(iid, b).status_code == 200
    r = api.put_photo(iid, pid, p1)
    assert r.status_code == 200 and r.json["complete"] is True
    assert count(app, Inspection) == 1 and count(app, Photo) == 1
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(AuditEntry).filter_by(
            action="photo_received")) == 1


def test_a_500_on_one_photo_keeps_the_others_and_the_retry_completes(app, api, moto,
                                                                     monkeypatch):
    v = moto()
    data = [jpeg(10 + i) for i in range(3)]
    b = body(v.id, fail={"tank-sign": data})
    iid = str(uuid.uuid4())
    decl = photos_of(b)
    api.put_inspection(iid, b)
    real = os.pwritev
    failed = []

    def flaky(fd, buffers, at):  # the disk is full once, for the second photo's record
        if not failed and bytes.fromhex(decl[1]["sha256"]) in buffers[0]:
            failed.append(at)
            raise OSError("disk full")
        return real(fd, buffers, at)

    monkeypatch.setattr(os, "pwritev", flaky)
    statuses = [api.put_photo(iid, d["id"], x).status_code for d, x in zip(decl, data)]
    assert statuses == [201, 500, 201]
    state = api.get(f"/api/field/inspections/{iid}").json
    assert state["missing_photos"] == [decl[1]["id"]] and not state["complete"]
    r = api.put_photo(iid, decl[1]["id"], data[1])
    assert r.status_code == 201 and r.json["complete"] is True
    assert count(app, Photo) == 3 and count(app, Inspection) == 1
    with app.app_context():   # the failed write left a hole: the retry went to a new pack
        stored = db.session.scalars(select(Photo).order_by(Photo.position)).all()
        assert [records.photo_bytes(p) for p in stored] == data
        assert stored[1].pack != stored[0].pack


def test_a_sibling_photo_arriving_meanwhile_still_completes_the_inspection(app, api, moto,
                                                                          monkeypatch):
    """The inspection's other photos are read before the write; one stored by another
    request in between must not be reported missing, nor keep the inspection incomplete."""
    v = moto()
    data = [jpeg(30), jpeg(31)]
    b = body(v.id, fail={"tank-sign": data})
    iid = str(uuid.uuid4())
    first, second = photos_of(b)
    assert api.put_inspection(iid, b).status_code == 201
    real = records._photo_row

    def meanwhile(*args):
        read = real(*args)
        with db.engine.begin() as other:  # another worker stores the second photo now
            other.execute(update(Photo).where(Photo.uuid == second["id"])
                          .values(received_at=datetime.now(UTC)))
        return read
    monkeypatch.setattr(records, "_photo_row", meanwhile)
    r = api.put_photo(iid, first["id"], data[0])
    assert r.status_code == 201
    assert r.json["complete"] is True and r.json["missing_photos"] == []
    assert r.json["status"] == "awaiting_review"


def test_two_hundred_inspections_in_a_row_are_all_stored_once(app, api, moto):
    v = moto()
    sent = {str(uuid.uuid4()): body(v.id, ok=("mirrors",), location=None) for _ in range(200)}
    assert {api.put_inspection(i, b).status_code for i, b in sent.items()} == {201}
    assert {api.put_inspection(i, b).status_code for i, b in sent.items()} == {200}
    assert count(app, Inspection) == 200 and count(app, InspectionItem) == 200
    with app.app_context():
        assert set(db.session.scalars(select(Inspection.uuid))) == set(sent)


# ------------------------------------------------------------------ registry changed meanwhile
def test_an_inspection_stamped_with_another_agent_is_refused_and_nothing_stored(
        app, api, moto, agent, make):
    other = make(factories.user, "agent", "tapurah", badge_number="AG-08")
    v = moto()
    theirs = body(v.id, ok=("mirrors",)) | {"agent_id": other.id}
    r = api.put_inspection(str(uuid.uuid4()), theirs)
    assert r.status_code == 403 and "feita por outro agente" in r.json["error"]
    assert r.json["reason"] == "other_author"
    assert count(app, Inspection) == 0 and count(app, AuditEntry) == 0
    assert api.put_inspection(str(uuid.uuid4()), body(v.id, ok=("mirrors",)) | {
        "agent_id": "um agente"}).status_code == 422
    mine = str(uuid.uuid4())
    assert api.put_inspection(mine, body(v.id, ok=("mirrors",)) | {
        "agent_id": agent.id}).status_code == 201
    with app.app_context():
        assert db.session.scalar(select(Inspection.agent_id)) == agent.id


def test_a_licence_revoked_after_the_snapshot_is_accepted_and_flagged(app, api, moto, agent):
    v = moto()
    version = api.get("/api/field/snapshot").json["version"]
    with app.app_context():
        from inspector.registry.records import change_status

        lic = db.session.scalar(select(Licence).filter_by(vehicle_id=v.id))
        change_status(lic, Status.REVOKED, "Cassado por falta de vistoria", actor=None)
        db.session.commit()
        lic_id = lic.id
    iid = str(uuid.uuid4())
    r = api.put_inspection(iid, body(v.id, version=version))
    assert r.status_code == 201 and r.json["registry_changed"] is True
    # A phone that already knew about it is not flagged.
    fresh = api.get("/api/field/snapshot").json["version"]
    r = api.put_inspection(str(uuid.uuid4()), body(v.id, version=fresh))
    assert r.json["registry_changed"] is False
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        changes = insp.registry_changes
        assert any(c["entity"] == "licence" and c["entity_id"] == str(lic_id) for c in changes)
        town, insp_id = insp.municipality_id, insp.id
    # the supervisor reads the change in words, in local time, linked to the record
    sup = app.test_client()
    with app.app_context():
        from inspector.models import Municipality
        slug = db.session.get(Municipality, town).slug
        sup_name = factories.user("supervisor", slug).username
        db.session.commit()
    assert sup.login(sup_name).status_code == 302
    page = sup.get(f"/revisao/vistorias/{insp_id}").get_data(as_text=True)
    box = page[page.index("Cadastro alterado"):page.index("</ul>", page.index("Cadastro alterado"))]
    assert f'<a href="/cadastro/alvaras/{lic_id}">Alvará: mudança de situação</a>' in box
    assert "status_changed" not in box and "licence" not in box
    assert re.search(r"\d\d/\d\d/\d{4} \d\d:\d\d · ", box)


# ------------------------------------------------------------------ roles
def test_roles(app, make, moto):
    v = moto()
    b = body(v.id)
    anon = app.test_client()
    assert anon.get("/api/field/snapshot").status_code == 401
    assert anon.get("/api/field/session").json["status"] == 401
    sup = make(factories.user, "supervisor", "tapurah")
    c = app.test_client()
    c.login(sup.username)
    sapi = Api(c)
    assert sapi.get("/api/field/snapshot").status_code == 200
    assert sapi.put_inspection(str(uuid.uuid4()), b).status_code == 403
    adm = make(factories.user, "admin", "tapurah")
    c2 = app.test_client()
    c2.login(adm.username)
    assert c2.get("/api/field/session").status_code == 403
    assert count(app, Inspection) == 0


# ------------------------------------------------------------------ OpenAPI
def test_openapi_documents_every_api_route(app, client):
    r = client.get("/api/openapi.json")
    assert r.status_code == 200
    doc = r.json
    assert doc["openapi"].startswith("3.1")
    documented = doc["paths"]
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/") and rule.rule != "/healthz":
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        assert path in documented, f"{rule.rule} is not in /api/openapi.json"
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert method.lower() in documented[path], f"{method} {rule.rule} undocumented"
    refs = re.findall(r'"#/components/(\w+)/(\w+)"', json.dumps(doc))
    for section, name in refs:
        assert name in doc["components"][section], f"dangling $ref {section}/{name}"
