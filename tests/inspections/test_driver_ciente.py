"""The driver's "ciente" (Tapurah Lei 406/2001, Art. 27, I) and who was driving, server side:
a signature is never lost for want of a name (older apps' queued bodies are accepted and shown
"nome não informado"), no <img> is drawn for a signature that does not exist, the notice's
ciente and "Condutor" say what the review page says. Runs on SQLite and PostgreSQL."""
from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

from sqlalchemy import select

from inspector import enforcement
from inspector.documents.content import build_sheet
from inspector.documents.pdf import Rows, Signature, Text
from inspector.extensions import db
from inspector.models import Inspection, Notice, Sanction, User
from tests import factories
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg, png_signature

FIRST, SECOND = "Ana Primeira Mototaxista", "Bruno Segundo Mototaxista"
SIG_IMG = re.compile(r'<img class="signature"[^>]*>')


def _moto_two_riders(town: str = "tapurah"):
    """QBX6R89, a moto-taxi with two linked riders."""
    h = factories.holder(town, company=True, name="Moto Dupla Ltda")
    factories.permit(h)
    v = factories.vehicle(town, "mototaxi", holder=h, plate="QBX6R89", prefix="0201")
    riders = []
    for name in (FIRST, SECOND):
        d = factories.driver(town, "mototaxista", holder=h, name=name)
        d.vehicles.append(v)
        riders.append(d)
    factories.licence(v)
    factories.insurance(v)
    return v, riders


def _vehicle(app) -> tuple[int, list[tuple[int, str]]]:
    """The vehicle's id and its riders' (id, name), committed."""
    with app.app_context():
        v, riders = _moto_two_riders()
        db.session.commit()
        return v.id, [(d.id, d.name) for d in riders]


def _sync(app, make, ack, **extra):
    """An agent syncs a failed-mirror inspection with `ack`; a supervisor confirms the notice.
    Returns (inspection id, notice id, supervisor, riders)."""
    agent = make(factories.user, "agent", "tapurah")
    sup = make(factories.user, "supervisor", "tapurah")
    vid, riders = _vehicle(app)
    client = app.test_client()
    assert client.login(agent.username).status_code == 302
    api = Api(client)
    iid = str(uuid.uuid4())
    photo = jpeg(3)
    extra = {k: (val(riders) if callable(val) else val) for k, val in extra.items()}
    b = body(vid, ok=("general-condition", "tank-sign"), fail={"mirrors": [photo]},
             acknowledgement=ack, **extra)
    r = api.put_inspection(iid, b)
    assert r.status_code == 201, r.json
    assert api.put_photo(iid, b["items"][-1]["photos"][0]["id"], photo).status_code == 201
    enforcement_worker(app)
    with app.app_context():
        insp = db.session.scalar(select(Inspection).where(Inspection.uuid == iid))
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id,
                                                       Sanction.kind == "notice"))
        decision = enforcement.confirm(act, db.session.get(User, sup.id), datetime.now(UTC))
        db.session.commit()
        return insp.id, decision.notice.id, sup, riders


def _sheet(app, notice_id: int):
    """The notice's sections by title: {title: [blocks]}."""
    with app.app_context():
        notice = db.session.get(Notice, notice_id)
        sheet = build_sheet(notice, url="https://x.example/d", access_code=None)
        return {s.title: list(s.blocks) for s in sheet.sections}


def _rows(blocks) -> dict:
    out = {}
    for b in blocks:
        if isinstance(b, (Rows, Signature)):
            out.update(dict(b.rows))
    return out


def _review(app, sup, insp_id: int) -> str:
    client = app.test_client()
    client.login(sup.username)
    r = client.get(f"/revisao/vistorias/{insp_id}")
    assert r.status_code == 200
    return " ".join(r.get_data(as_text=True).split())


def test_old_app_signature_without_name_is_accepted_and_shown_as_signed(app, make):
    """An older app saved the signature with an empty name (the reported case): the server
    accepts it (it may wait in a phone's outbox) and nothing hides that the rider signed."""
    insp_id, notice_id, sup, _ = _sync(app, make, {"name": "", "signature_png": png_signature()})
    html = _review(app, sup, insp_id)
    assert "sem ciente" not in html
    assert "assinado (nome não informado)" in html
    img = SIG_IMG.findall(html)
    assert len(img) == 1 and f"/revisao/vistorias/{insp_id}/assinatura.png" in img[0]
    client = app.test_client()
    client.login(sup.username)
    png = client.get(f"/revisao/vistorias/{insp_id}/assinatura.png")
    assert png.status_code == 200 and png.data.startswith(b"\x89PNG")
    sections = _sheet(app, notice_id)
    ciente = sections.get("Ciente do condutor") or sections["Ciente"]
    sigs = [b for b in ciente if isinstance(b, Signature)]
    assert len(sigs) == 1 and sigs[0].png and sigs[0].png.startswith(b"\x89PNG")
    assert dict(sigs[0].rows)["Nome"] == "nome não informado"


def test_name_without_signature_draws_no_image(app, make):
    """A name and no signature: the name, no <img> (which would answer 404)."""
    insp_id, notice_id, sup, _ = _sync(app, make, {"name": FIRST, "signature_png": None})
    html = _review(app, sup, insp_id)
    assert f"{FIRST} (sem assinatura)" in html
    assert not SIG_IMG.findall(html) and "assinatura.png" not in html
    ciente = _sheet(app, notice_id)
    blocks = ciente.get("Ciente do condutor") or ciente["Ciente"]
    assert not [b for b in blocks if isinstance(b, Signature) and b.png]
    assert any(isinstance(b, Text) and FIRST in b.text for b in blocks) \
        or _rows(blocks).get("Nome") == FIRST


def test_the_driver_the_agent_chose_is_the_notices_condutor(app, make):
    """Two riders on the vehicle: the agent picked the second; the act, the notice's
    "Condutor" and the review page name her, and the ciente carries the name and signature."""
    insp_id, notice_id, sup, riders = _sync(
        app, make, {"name": SECOND, "signature_png": png_signature()},
        driver=lambda rs: {"id": rs[1][0], "name": rs[1][1]})
    with app.app_context():
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp_id))
        assert act.driver_id == riders[1][0]
    facts = _rows(next(v for k, v in _sheet(app, notice_id).items() if k.startswith("Fatos")
                       or any(isinstance(b, Rows) and "Condutor" in dict(b.rows) for b in v)))
    assert facts["Condutor"].startswith(SECOND)
    html = _review(app, sup, insp_id)
    assert f"Condutor na vistoria</dt><dd>{SECOND}" in html
    assert len(SIG_IMG.findall(html)) == 1


def test_a_driver_not_registered_is_named_on_the_notice(app, make):
    insp_id, notice_id, sup, _ = _sync(
        app, make, {"name": "Zé Sem Cadastro", "signature_png": png_signature()},
        driver={"id": None, "name": "Zé Sem Cadastro"})
    with app.app_context():
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp_id))
        assert act.driver_id is None  # not guessed among the two riders
    sections = _sheet(app, notice_id)
    facts = next(_rows(v) for v in sections.values() if "Condutor" in _rows(v))
    assert facts["Condutor"].startswith("Zé Sem Cadastro — não cadastrado")
    assert "Zé Sem Cadastro (não cadastrado" in _review(app, sup, insp_id)


def test_a_malformed_driver_field_is_refused_in_portuguese(app, make):
    agent = make(factories.user, "agent", "tapurah")
    vid, _ = _vehicle(app)
    client = app.test_client()
    client.login(agent.username)
    api = Api(client)
    r = api.put_inspection(str(uuid.uuid4()), body(vid, driver={"id": None, "name": " "}))
    assert r.status_code == 422
    assert "informe o nome de quem conduzia" in r.json["error"]
    r = api.put_inspection(str(uuid.uuid4()), body(vid, driver={"id": "dois"}))
    assert r.status_code == 422 and "condutor inválida" in r.json["error"]


def test_openapi_documents_the_optional_driver(client):
    spec = client.get("/api/openapi.json").json["components"]["schemas"]
    inspection = next(s for s in spec.values() if "acknowledgement" in s.get("properties", {}))
    driver = inspection["properties"]["driver"]
    assert driver["type"] == ["object", "null"] and set(driver["properties"]) == {"id", "name"}
    assert "driver" not in inspection.get("required", [])
