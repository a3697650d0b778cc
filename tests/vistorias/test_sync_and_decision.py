"""A vistoria synced from the field app (docs/vistoria.md, docs/sync.md): its kind travels with
the inspection, old bodies are street inspections, and the result is decided from the answers:
approved sets the vehicle's vistoria through the registry's writer and issues the certificate;
rejected lists what to fix with its article and a return date, and proposes no sanction.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from inspector.clock import default_day
from inspector.enforcement import pending
from inspector.extensions import db
from inspector.models import (
    AuditEntry,
    Inspection,
    InspectionKind,
    Sanction,
    Vehicle,
    Vistoria,
    VistoriaResult,
)
from inspector.rules import add_months
from tests import factories
from tests.support.field_api import Api, body, jpeg
from tests.support.vistorias import plan_items, snapshot_items, vistoria_body


def _actions(app, entity: str, entity_id) -> list[tuple[str, dict]]:
    with app.app_context():
        return [(e.action, json.loads(e.after) if e.after else {}) for e in db.session.scalars(
            select(AuditEntry).filter_by(entity=entity, entity_id=str(entity_id))
            .order_by(AuditEntry.seq))]


def test_a_body_without_kind_is_a_street_inspection_as_before(app, api, moto):
    v = moto()
    iid = str(uuid.uuid4())
    r = api.put_inspection(iid, body(v.id))
    assert r.status_code == 201 and "vistoria" not in r.json
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        assert insp.kind == InspectionKind.STREET
        assert db.session.scalar(select(Vistoria)) is None
    assert api.get(f"/api/field/inspections/{iid}").json["kind"] == "street"


def test_tapurah_periodic_vistoria_all_conforming_is_approved_for_6_months(instant, app, api,
                                                                           moto):
    """Lei 406/2001 Art. 23 X: every 6 months; the day is Mato Grosso's."""
    v = moto()
    iid = str(uuid.uuid4())
    b = vistoria_body(v.id, "tapurah", "mototaxi", "periodic")
    day = default_day()
    r = api.put_inspection(iid, b)
    assert r.status_code == 201, r.json
    got = r.json["vistoria"]
    assert got["result"] == "approved" and got["kind"] == "periodic"
    assert got["performed_on"] == day.isoformat()
    assert got["valid_until"] == add_months(day, 6).isoformat()
    assert got["certificate"]["number"] == f"CV-{day.year}/000001"
    assert got["certificate"]["url"].split("/v/")[1]
    assert got["certificate"]["status"] == "active"
    assert api.put_inspection(iid, b).json["vistoria"] == got  # a replay answers the same
    with app.app_context():
        vehicle = db.session.get(Vehicle, v.id)
        assert vehicle.last_vistoria_on == day and vehicle.vistoria_valid_until is None
    recorded = _actions(app, "vehicle", v.id)[-1]
    assert recorded[0] == "vehicle_vistoria_recorded"
    assert recorded[1]["last_vistoria_on"] == day.isoformat()
    assert recorded[1]["reason"] == "Vistoria periódica aprovada"


def test_a_rejected_vistoria_lists_what_to_fix_sets_a_return_day_and_proposes_nothing(
        app, api, moto):
    v = moto()
    with app.app_context():
        before = db.session.get(Vehicle, v.id).last_vistoria_on
    iid = str(uuid.uuid4())
    photo = jpeg(3)
    b = vistoria_body(v.id, "tapurah", "mototaxi", "periodic", fail={"mirrors": photo})
    r = api.put_inspection(iid, b)
    assert r.status_code == 201, r.json
    got = r.json["vistoria"]
    assert got["result"] == "rejected" and got["certificate"] is None
    assert got["return_on"] == (default_day() + timedelta(days=15)).isoformat()
    assert got["to_fix"] == [{"item_id": "mirrors", "label": got["to_fix"][0]["label"],
                              "law": "Lei 406/2001", "article": "Art. 15",
                              "note": "Quebrado"}]
    pid = b["items"][[i["item_id"] for i in b["items"]].index("mirrors")]["photos"][0]["id"]
    assert api.put_photo(iid, pid, photo).status_code == 201
    with app.app_context():
        pending.propose_pending(datetime.now(UTC))
        db.session.commit()
        assert db.session.scalar(select(Sanction)) is None  # a failed vistoria is no infraction
        assert db.session.get(Vehicle, v.id).last_vistoria_on == before
        row = db.session.scalar(select(Vistoria))
        assert row.result == VistoriaResult.REJECTED and row.valid_until is None


def test_a_kind_the_law_does_not_set_is_refused_naming_why(app, client, make):
    """Nortelândia Lei 127/2009 sets no vistoria; Lei 030/1998 only the prior one (Art. 2)."""
    agent = make(factories.user, "agent", "nortelandia")
    taxi = make(factories.vehicle, "nortelandia", "taxi")
    moto = make(factories.vehicle, "nortelandia", "mototaxi")
    assert client.login(agent.username).status_code == 302
    api = Api(client)
    b = body(taxi.id, ok=("stripe",), kind="periodic")
    r = api.put_inspection(str(uuid.uuid4()), b)
    assert r.status_code == 422
    assert "Lei 127/2009 não prevê vistoria" in r.json["fields"]["kind"]
    b = body(moto.id, ok=("brakes",), kind="periodic")
    r = api.put_inspection(str(uuid.uuid4()), b)
    assert r.status_code == 422
    assert "não prevê vistoria periódica" in r.json["fields"]["kind"]
    ok = vistoria_body(moto.id, "nortelandia", "mototaxi", "prior")
    r = api.put_inspection(str(uuid.uuid4()), ok)
    assert r.status_code == 201, r.json
    # no period of its own: the certificate lasts the Alvará's year (Art. 6)
    assert r.json["vistoria"]["valid_until"] == add_months(default_day(), 12).isoformat()


def test_a_vistoria_answers_every_item_of_its_kind_and_no_other(app, api, moto):
    v = moto()
    b = vistoria_body(v.id, "tapurah", "mototaxi", "prior")
    short = dict(b, items=b["items"][1:])
    r = api.put_inspection(str(uuid.uuid4()), short)
    assert r.status_code == 422
    assert f"faltam {b['items'][0]['item_id']}" in r.json["fields"]["items"]
    extra = dict(b, items=b["items"] + [{"item_id": "uniform", "result": "ok", "photos": []}])
    r = api.put_inspection(str(uuid.uuid4()), extra)
    assert r.status_code == 422
    bad = [k for k in r.json["fields"] if k.endswith(".item_id")]
    assert bad and "não é verificado na vistoria prévia" in r.json["fields"][bad[0]]
    assert "uniform" not in plan_items("tapurah", "mototaxi", "prior")


def test_shortening_only_where_the_law_allows_it_with_a_reason(app, client, make):
    """Nova Santa Helena Lei 535/2013 Art. 32 § 3º allows it; Tapurah's law does not."""
    make(factories.town, "nova-santa-helena", seat=8_000)  # a seat under 10 mil: no taximeter
    agent = make(factories.user, "agent", "nova-santa-helena", badge_number="NSH-3")
    taxi = make(factories.vehicle, "nova-santa-helena", "taxi")
    assert client.login(agent.username).status_code == 302
    api = Api(client)
    day = default_day()
    until = day + timedelta(days=90)
    items = snapshot_items(api, "taxi", "periodic")  # the town's conditions (no taximeter)
    assert "taximeter" not in items and "extinguisher" in items
    b = vistoria_body(taxi.id, "nova-santa-helena", "taxi", "periodic", items=items,
                      vistoria={"shorten_until": until.isoformat(),
                                "reason": "Pneus no limite do desgaste"})
    r = api.put_inspection(str(uuid.uuid4()), b)
    assert r.status_code == 201, r.json
    assert r.json["vistoria"]["valid_until"] == until.isoformat()
    assert r.json["vistoria"]["shortened"] is True
    with app.app_context():
        vehicle = db.session.get(Vehicle, taxi.id)
        assert (vehicle.last_vistoria_on, vehicle.vistoria_valid_until) == (day, until)
    assert _actions(app, "vehicle", taxi.id)[-1][1]["reason"] == "Pneus no limite do desgaste"
    # beyond the year (Art. 13 II) is refused, as is a reason too short
    too_long = vistoria_body(taxi.id, "nova-santa-helena", "taxi", "periodic", items=items,
                             vistoria={"shorten_until": add_months(day, 12).isoformat(),
                                       "reason": "Pneus no limite do desgaste"})
    r = api.put_inspection(str(uuid.uuid4()), too_long)
    assert r.status_code == 422 and "antes de" in r.json["fields"]["vistoria.shorten_until"]
    no_reason = vistoria_body(taxi.id, "nova-santa-helena", "taxi", "periodic", items=items,
                              vistoria={"shorten_until": until.isoformat(), "reason": "x"})
    assert api.put_inspection(str(uuid.uuid4()), no_reason).status_code == 422


def test_tapurah_cannot_shorten_and_a_rejected_vistoria_has_nothing_to_shorten(app, api, moto):
    v = moto()
    day = default_day()
    b = vistoria_body(v.id, "tapurah", "mototaxi", "periodic",
                      vistoria={"shorten_until": (day + timedelta(days=30)).isoformat(),
                                "reason": "Estado geral ruim, retornar antes"})
    r = api.put_inspection(str(uuid.uuid4()), b)
    assert r.status_code == 422
    assert "não prevê reduzir" in r.json["fields"]["vistoria.shorten_until"]
    street = body(v.id, vistoria={"shorten_until": (day + timedelta(days=30)).isoformat(),
                                  "reason": "Estado geral ruim, retornar antes"})
    r = api.put_inspection(str(uuid.uuid4()), street)
    assert r.status_code == 422 and "vistoria" in r.json["fields"]


def test_the_openapi_document_says_the_kind_and_its_default(app, client):
    doc = client.get("/api/openapi.json").json
    schemas = doc["components"]["schemas"]
    body_schema = next(s for name, s in schemas.items() if name.startswith("InspectionBody"))
    kind = body_schema["properties"]["kind"]
    assert kind["enum"] == ["street", "prior", "periodic"] and kind["default"] == "street"
    assert "vistoria" in body_schema["properties"]


def test_the_registry_shows_a_rejected_vistorias_return_day_and_what_to_fix(app, api, moto,
                                                                           make):
    v = moto()
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(
        v.id, "tapurah", "mototaxi", "prior", fail={"mirrors": jpeg(4)}))
    assert r.status_code == 201
    back = (default_day() + timedelta(days=15)).strftime("%d/%m/%Y")
    admin = make(factories.user, "admin", "tapurah")
    staff = app.test_client()
    assert staff.login(admin.username).status_code == 302
    page = staff.get(f"/cadastro/veiculos/{v.id}").get_data(as_text=True)
    assert f"reprovada, retorno até {back}" in page
    with app.app_context():
        vid = db.session.scalar(select(Vistoria.id))
    detail = staff.get(f"/vistorias/{vid}").get_data(as_text=True)
    assert back in detail and "(Lei 406/2001, Art. 15)" in detail
    # the town's return days: an admin setting, 1 to 30
    assert staff.post_form("/vistorias/configuracao", {"return_days": "31"}).status_code == 303
    assert staff.post_form("/vistorias/configuracao", {"return_days": "10"}).status_code == 303
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(
        v.id, "tapurah", "mototaxi", "prior", fail={"mirrors": jpeg(5)}))
    assert r.json["vistoria"]["return_on"] == (default_day() + timedelta(days=10)).isoformat()
