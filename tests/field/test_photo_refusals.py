"""PUT /api/field/inspections/<uuid>/photos/<uuid> with a photo that cannot be evidence
(docs/sync.md §3): 422 with an action for the agent and the permanent
marker, no bytes stored; the refusal recorded on the photo (refused_at, refused_reason) and
audited in the same transaction, so the inspection no longer waits for it; the refusal is
final for that photo (a resend answers it again, writing nothing); the inspection and its
other photos kept; a resend of bytes stored before the check still 200.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import json
import random
import uuid
from io import BytesIO

import pytest
from PIL import Image
from sqlalchemy import select

from inspector import audit
from inspector.extensions import db
from inspector.inspections import evidence, evidence_store
from inspector.models import AuditEntry, Inspection, InspectionStatus, Photo
from tests import factories
from tests.support.field_api import Api, body, jpeg, photo_decl, sha


def _image(fmt: str, **options) -> bytes:
    img = Image.frombytes("RGB", (200, 150), random.Random(7).randbytes(200 * 150 * 3))
    out = BytesIO()
    img.save(out, fmt, **options)
    return out.getvalue()


def _apng() -> bytes:
    img = Image.new("RGB", (40, 30), "red")
    out = BytesIO()
    img.save(out, "PNG", save_all=True, append_images=[Image.new("RGB", (40, 30), "blue")])
    return out.getvalue()


def _bomb() -> bytes:
    """A PNG of a few hundred bytes claiming 200 megapixels."""
    out = BytesIO()
    Image.new("1", (20_000, 10_000)).save(out, "PNG")
    return out.getvalue()


ZIP = b"PK\x03\x04" + bytes(26) + b"PK\x05\x06" + bytes(18)
JPEG = _image("JPEG")
BROKEN = {  # kind -> (bytes, declared MIME type, problem)
    "truncated-jpeg": (JPEG[: len(JPEG) // 2], "image/jpeg", "damaged"),
    "jpeg+html": (JPEG + b"<html><script>alert(1)</script></html>", "image/jpeg", "extra_data"),
    "png+zip": (_image("PNG") + ZIP, "image/png", "extra_data"),
    "bomb": (_bomb(), "image/png", "pixels"),
    "apng": (_apng(), "image/png", "frames"),
}


@pytest.fixture
def agent_api(app, make, moto):
    """A Tapurah agent signed in, and a licensed moto-taxi."""
    vehicle = moto()
    agent = make(factories.user, "agent", "tapurah")
    client = app.test_client()
    assert client.login(agent.username).status_code == 302
    return Api(client), vehicle.id


@pytest.fixture
def supervisor_client(app, make):
    """A Tapurah supervisor signed in (the review pages)."""
    supervisor = make(factories.user, "supervisor", "tapurah")
    client = app.test_client()
    assert client.login(supervisor.username).status_code == 302
    return client


def _send_inspection(api: Api, vehicle_id: int, photos: list[tuple[bytes, str]]):
    """An inspection whose failed item declares these photos; its UUID and the declarations."""
    b = body(vehicle_id)
    decls = [photo_decl(data, mime) for data, mime in photos]
    b["items"].append({"item_id": "tank-sign", "result": "fail", "note": "Ausente",
                       "photos": decls})
    iid = str(uuid.uuid4())
    r = api.put_inspection(iid, b)
    assert r.status_code == 201, r.json
    return iid, decls


def _packed(app) -> set[str]:
    """The SHA-256 of every record in every pack of the app's evidence directory."""
    with app.app_context():
        folder = evidence_store.evidence_root() / "packs"
        return {digest for pack in (folder.glob("*.pack") if folder.exists() else [])
                for _, digest, _ in evidence_store.records(pack)}


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_photo_that_cannot_be_evidence_is_a_permanent_422_and_nothing_is_stored(
        app, agent_api, kind):
    api, vehicle_id = agent_api
    bad, mime, problem = BROKEN[kind]
    good = jpeg(2, size=(320, 240))
    iid, (bad_decl, good_decl) = _send_inspection(api, vehicle_id, [(bad, mime),
                                                                    (good, "image/jpeg")])
    with app.app_context():
        entries_before = db.session.scalar(select(db.func.count(AuditEntry.id)))

    r = api.put_photo(iid, bad_decl["id"], bad, mime=mime)
    assert r.status_code == 422, r.json
    assert r.json["permanent"] is True
    assert r.json["reason"] == "photo_refused" and r.json["problem"] == problem
    assert r.json["error"].endswith("Tire a foto de novo.")
    if problem == "damaged":
        assert r.json["error"] == "A foto está danificada ou incompleta. Tire a foto de novo."
    assert r.json["fields"]["foto"]
    first = r.json
    # the same bytes again: the same answer, and nothing written twice
    again = api.put_photo(iid, bad_decl["id"], bad, mime=mime)
    assert again.status_code == 422 and again.json == first

    # no longer awaited: the inspection waits only for the good photo
    r = api.get(f"/api/field/inspections/{iid}")
    assert r.json["missing_photos"] == [good_decl["id"]] and r.json["complete"] is False
    assert [p["id"] for p in r.json["refused_photos"]] == [bad_decl["id"]]
    # the rest of the inspection is kept: the good photo is taken and completes it
    r = api.put_photo(iid, good_decl["id"], good)
    assert r.status_code == 201, r.json
    assert r.json["missing_photos"] == [] and r.json["complete"] is True
    assert r.json["status"] == "awaiting_review"
    assert [p["id"] for p in r.json["refused_photos"]] == [bad_decl["id"]]

    assert sha(bad) not in _packed(app) and sha(good) in _packed(app)
    with app.app_context():
        photos = {p.uuid: p for p in db.session.scalars(select(Photo))}
        refused = photos[bad_decl["id"]]
        assert refused.received_at is None and refused.pack is None
        assert refused.refused_at is not None
        assert refused.refused_reason.startswith(evidence.REASONS[problem])
        assert photos[good_decl["id"]].received_at is not None
        assert photos[good_decl["id"]].refused_at is None
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        assert insp.status == InspectionStatus.AWAITING_REVIEW
        # the refusal once, then the good photo's arrival and the completion; chain whole;
        # then the proposals the completing request made, in a transaction of their own
        actions = db.session.scalars(select(AuditEntry).order_by(AuditEntry.seq)).all()
        actions = actions[entries_before:]
        assert [(e.action, e.entity_id) for e in actions[:3]] == [
            ("photo_refused", bad_decl["id"]), ("photo_received", good_decl["id"]),
            ("inspection_completed", iid)]
        assert {e.action for e in actions[3:]} == {"sanction_proposed"}
        assert json.loads(actions[0].after)["problem"] == problem
        assert audit.verify()[1] is None


def test_the_last_photo_refused_completes_the_inspection_and_the_queue_shows_it(
        app, agent_api, supervisor_client):
    """An inspection whose only awaited photo is refused for good leaves "Aguardando fotos":
    it is in the review queue awaiting review, and a resend changes nothing."""
    api, vehicle_id = agent_api
    bad = JPEG[: len(JPEG) // 2]
    iid, (decl,) = _send_inspection(api, vehicle_id, [(bad, "image/jpeg")])
    assert api.put_photo(iid, decl["id"], bad).status_code == 422
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        assert insp.status == InspectionStatus.AWAITING_REVIEW
        assert insp.completed_at is not None
        ident = insp.id
    r = api.get(f"/api/field/inspections/{iid}")
    assert r.json["complete"] is True and r.json["missing_photos"] == []
    assert r.json["status"] == "awaiting_review"
    (photo,) = r.json["photos"]
    assert photo["received"] is False and photo["refused"].startswith("imagem danificada")
    # the supervisor's queue: under "Aguardando revisão", not under "Aguardando fotos"
    waiting = supervisor_client.get("/revisao?situacao=incomplete").get_data(as_text=True)
    review = supervisor_client.get("/revisao?situacao=awaiting_review").get_data(as_text=True)
    assert f"/revisao/vistorias/{ident}" in review
    assert f"/revisao/vistorias/{ident}" not in waiting
    # the review page still answers, its data names the refusal
    assert supervisor_client.get(f"/revisao/vistorias/{ident}").status_code == 200


def test_the_agents_reviews_list_the_refused_photo(app, agent_api):
    """GET /api/field/reviews (the phone's "Minhas vistorias"): the inspection with its
    refused photo (item, when, why), in the full answer and in a delta after the refusal."""
    api, vehicle_id = agent_api
    before = api.get("/api/field/reviews").json["version"]
    bad = _image("PNG") + ZIP
    iid, (decl,) = _send_inspection(api, vehicle_id, [(bad, "image/png")])
    assert api.put_photo(iid, decl["id"], bad, mime="image/png").status_code == 422
    for answer in (api.get("/api/field/reviews").json,
                   api.get(f"/api/field/reviews?since={before}").json):
        (entry,) = [i for i in answer["inspections"] if i["id"] == iid]
        (refused,) = entry["refused_photos"]
        assert refused["id"] == decl["id"] and refused["item_id"] == "tank-sign"
        assert refused["reason"].startswith("outros dados depois da imagem")
        assert refused["refused_at"]
        assert entry["review"]["status"] == "awaiting_review"


def test_a_refusal_is_final_for_that_photo(app, agent_api, monkeypatch):
    """The same bytes are the only ones the photo can have (their SHA-256 was declared when
    it was taken): once refused they are answered the same refusal even by a server whose
    check would now take them, and the photo is never recorded as received."""
    api, vehicle_id = agent_api
    bad = JPEG[:-300]
    iid, (decl,) = _send_inspection(api, vehicle_id, [(bad, "image/jpeg")])
    first = api.put_photo(iid, decl["id"], bad)
    assert first.status_code == 422 and first.json["problem"] == "damaged"
    with monkeypatch.context() as m:  # a laxer check, one that reads only the header
        m.setattr(evidence, "decode_photo",
                  lambda data: evidence.ImageFacts("JPEG", 200, 150))
        r = api.put_photo(iid, decl["id"], bad)
    assert r.status_code == 422 and r.json["permanent"] is True
    assert r.json["problem"] == "damaged"
    assert sha(bad) not in _packed(app)
    with app.app_context():
        photo = db.session.scalar(select(Photo).filter_by(uuid=decl["id"]))
        assert photo.received_at is None and photo.refused_at is not None


def test_a_wrong_hash_on_the_way_is_not_permanent(agent_api):
    """Bytes damaged in transit (X-Content-SHA256 differs) are worth sending again."""
    api, vehicle_id = agent_api
    good = jpeg(4)
    iid, (decl,) = _send_inspection(api, vehicle_id, [(good, "image/jpeg")])
    r = api.put_photo(iid, decl["id"], good, declared=sha(b"other"))
    assert r.status_code == 422
    assert "permanent" not in r.json


def test_a_png_sent_for_a_declared_jpeg_is_refused_permanently(agent_api):
    api, vehicle_id = agent_api
    png = _image("PNG")
    iid, (decl,) = _send_inspection(api, vehicle_id, [(png, "image/jpeg")])
    r = api.put_photo(iid, decl["id"], png, mime="image/jpeg")
    assert r.status_code == 422 and r.json["problem"] == "format" and r.json["permanent"]


def test_bytes_stored_before_the_check_still_answer_200_when_resent(app, agent_api,
                                                                    monkeypatch):
    """A phone whose acknowledgement was lost resends what the server already holds: the
    answer stays 200, never a permanent refusal that would make it drop a stored photo."""
    api, vehicle_id = agent_api
    truncated = JPEG[:-300]
    iid, (decl,) = _send_inspection(api, vehicle_id, [(truncated, "image/jpeg")])
    with monkeypatch.context() as m:  # as a header-only check takes it
        m.setattr(evidence, "decode_photo",
                  lambda data: evidence.ImageFacts("JPEG", 200, 150))
        assert api.put_photo(iid, decl["id"], truncated).status_code == 201
    r = api.put_photo(iid, decl["id"], truncated)
    assert r.status_code == 200, r.json
    assert r.json["complete"] is True
