"""The agent's discretionary deadline in the sync body (Tapurah Lei 406/2001 Art. 19, as the
product owner reads it: never automatic; only a defect of the vehicle the pack marks as not
affecting safety; 1 to 10 days with a reason). `items[i].grant = {"days", "reason"}`
(docs/sync.md §2). A grant the law does not allow is refused with 422, naming the field, and
nothing is stored; an allowed one becomes the notice's deadline, counted by Lei 9.784/1999
Art. 66 from the rider's "ciente", and the tick converts only once it is over."""
from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Inspection, Sanction, SanctionStatus, User
from tests import factories
from tests.support.enforcement import fleet, set_values
from tests.support.field_api import Api, body, count, jpeg
from tests.support.instants import CUIABA

GRANT = {"days": 10, "reason": "Adesivo encomendado na gráfica"}


def _with_grant(vehicle_id: int, item_id: str, grant: dict, *, result: str = "fail",
                started: datetime | None = None) -> dict:
    b = body(vehicle_id, fail={item_id: [jpeg(3)]} if result == "fail" else None,
             ok=("general-condition",) if result == "fail" else ("general-condition", item_id),
             started=started)
    next(i for i in b["items"] if i["item_id"] == item_id)["grant"] = grant
    return b


@pytest.mark.parametrize("item_id, grant, field, words", [
    ("uniform", GRANT, "items[1].grant", "não é defeito do veículo"),          # rider (Art. 23 V)
    ("vest-id", GRANT, "items[1].grant", "não é defeito do veículo"),          # rider (Art. 15 II)
    ("fare-table", GRANT, "items[1].grant", "não é defeito do veículo"),       # document
    ("taxi-stand-parking", GRANT, "items[1].grant", "não é defeito do veículo"),  # conduct
    ("detran-signage", GRANT, "items[1].grant", "item de segurança"),          # Art. 3 § 2º
    ("tank-sign", {"days": 11, "reason": "Adesivo encomendado"}, "items[1].grant.days",
     "de 1 a 10 dias (Art. 19)"),                                              # the law's maximum
    ("tank-sign", {"days": 5, "reason": "   "}, "items[1].grant.reason", "motivo"),
    ("tank-sign", {"days": 5, "reason": "ab"}, "items[1].grant.reason", ""),
    ("tank-sign", {"days": 0, "reason": "Adesivo encomendado"}, "items[1].grant.days", "1 a 30"),
])
def test_a_grant_the_law_does_not_allow_is_422_and_nothing_is_stored(app, api, town, item_id,
                                                                     grant, field, words):
    r = api.put_inspection(str(uuid.uuid4()), _with_grant(town["vehicle_id"], item_id, grant))
    assert r.status_code == 422, r.json
    assert field in r.json["fields"], r.json
    assert words in r.json["fields"][field]
    assert count(app, Inspection) == 0


def test_a_grant_on_an_item_that_did_not_fail_is_refused(app, api, town):
    r = api.put_inspection(str(uuid.uuid4()),
                           _with_grant(town["vehicle_id"], "tank-sign", GRANT, result="ok"))
    assert r.status_code == 422
    assert "não conforme" in r.json["fields"]["items[1].grant"]
    assert count(app, Inspection) == 0


def test_a_town_whose_law_has_no_such_grant_refuses_it(app):
    with app.app_context():
        v = fleet("sapezal", "taxi")["vehicle"]
        agent = factories.user("agent", "sapezal")
        db.session.commit()
        vid, name = v.id, agent.username
        items = [i["id"] for i in enforcement_checklist(app, "sapezal", "taxi")]
    c = app.test_client()
    assert c.login(name).status_code == 302
    b = body(vid, fail={items[0]: [jpeg(4)]}, ok=tuple(items[1:3]))
    next(i for i in b["items"] if i["item_id"] == items[0])["grant"] = GRANT
    r = Api(c).put_inspection(str(uuid.uuid4()), b)
    assert r.status_code == 422, r.json
    key = f"items[{[i['item_id'] for i in b['items']].index(items[0])}].grant"
    assert "Lei 060/1998 não prevê prazo concedido" in r.json["fields"][key]
    assert count(app, Inspection) == 0


def enforcement_checklist(app, town_slug, service):
    from inspector.laws import in_force
    from inspector.models import Municipality
    with app.app_context():
        t = db.session.scalar(select(Municipality).filter_by(slug=town_slug))
        return in_force.checklist(t, service, datetime.now(CUIABA).date())["items"]


def test_the_checklist_tells_the_phone_which_items_may_get_the_grant(app, town):
    items = {i["id"]: i["grant"] for i in enforcement_checklist(app, "tapurah", "mototaxi")}
    assert items["tank-sign"]["eligible"] is True and items["tank-sign"]["max_days"] == 10
    assert items["tank-sign"]["citation"]["article"] == "Art. 19"
    assert items["general-condition"] == items["general-condition"] | {
        "eligible": False, "refusal": "item de segurança"}
    assert items["uniform"]["refusal"] == "não é defeito do veículo"
    sapezal = enforcement_checklist(app, "sapezal", "taxi")
    assert all(i["grant"] is None for i in sapezal)


def _acts(app, iid):
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        return [(a.id, a.kind, a.deadline_hours, a.deadline_days, a.deadline_text,
                 a.deadline_granted_by, a.deadline_grant_reason, a.deadline_at)
                for a in enforcement.acts_of(insp)]


def test_the_granted_days_become_the_notice_deadline_and_the_tick_waits_for_them(app, api, town):
    with app.app_context():
        set_values("tapurah", minimum_wage=1621)
        db.session.commit()
    # Wed 02/12/2026 10:00 local: the rider signs the "ciente" on the street
    started = datetime(2026, 12, 2, 9, 50, tzinfo=CUIABA).astimezone(UTC)
    iid = str(uuid.uuid4())
    b = _with_grant(town["vehicle_id"], "tank-sign", GRANT, started=started)
    assert api.put_inspection(iid, b).status_code == 201
    pid = next(i for i in b["items"] if i["item_id"] == "tank-sign")["photos"][0]["id"]
    assert api.put_photo(iid, pid, jpeg(3)).status_code == 201
    with app.app_context():
        enforcement.tick(started + timedelta(hours=1))
    [(act_id, kind, hours, days, text, by, reason, due)] = _acts(app, iid)
    assert (kind, hours, days, by, reason) == ("notice", None, 10, "agent", GRANT["reason"])
    assert text == "10 dias, concedidos pelo agente (Art. 19)"
    # Art. 66: 03/12 .. 12/12, a Saturday: days to repair do not move (product owner, December
    # 2026), so the end of that local day
    assert due.astimezone(CUIABA).date().isoformat() == "2026-12-12"
    with app.app_context():   # confirmed; 72 hours and more have passed: nothing converts
        sup = db.session.scalar(select(User).filter_by(username=town["supervisor"]))
        enforcement.confirm(db.session.get(Sanction, act_id), sup, started + timedelta(hours=2))
        db.session.commit()
        assert enforcement.tick(started + timedelta(days=4)).converted == []
        assert db.session.get(Sanction, act_id).status != SanctionStatus.CONVERTED_TO_DAILY_FINE
        report = enforcement.tick(datetime(2026, 12, 15, 8, tzinfo=CUIABA))
        assert act_id in report.converted


def test_without_a_grant_the_same_defect_gets_72_hours(app, api, town):
    iid = str(uuid.uuid4())
    b = body(town["vehicle_id"], fail={"tank-sign": [jpeg(5)]}, ok=("general-condition",))
    assert api.put_inspection(iid, b).status_code == 201
    assert api.put_photo(iid, b["items"][1]["photos"][0]["id"], jpeg(5)).status_code == 201
    with app.app_context():
        enforcement.tick(datetime.now(UTC))
    [(_, kind, hours, days, text, by, reason, _)] = _acts(app, iid)
    assert (kind, hours, days, text, by, reason) == ("notice", 72, None, "72 horas", None, None)
