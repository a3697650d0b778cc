"""Tapurah end to end with a frozen clock: a moto-taxi inspection with
a failed safety item syncs through the field API; the engine proposes the written notice of
Art. 27, I with 72 hours (Art. 29 § ú); the supervisor confirms it on the review page; 72
hours after the driver signed, `tick` turns it into a daily fine of 60% of the minimum wage
in force; an appeal filed on day 8 is admitted and one on day 9 is not (Art. 30).
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
import uuid
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from inspector import clock, enforcement
from inspector.extensions import db
from inspector.models import (
    AppealStatus,
    AuditEntry,
    EnforcementEvent,
    Fine,
    Inspection,
    Notice,
    Sanction,
    SanctionStatus,
)
from tests import factories
from tests.support.enforcement import enforcement_worker, fleet, local, set_values
from tests.support.field_api import Api, body, jpeg

T0 = local(2025, 12, 29, 10, 0)          # the driver signs the "ciente" on the street
DEADLINE = T0 + timedelta(hours=72)      # 01/01/2026 10:00 local: a new minimum wage is in force


@pytest.fixture
def world(app):
    """Tapurah: a rider and his moto-taxi, an agent, a supervisor; the minimum wage was
    R$ 1.518,00 in 2025 and is R$ 1.621,00 from 01/01/2026 (the factory's value)."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        set_values("tapurah", minimum_wage=1518, since=date(2025, 1, 1))
        agent = factories.user("agent", "tapurah", badge_number="AG-07")
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        return {"vehicle_id": f["vehicle"].id, "driver_id": f["driver"].id,
                "agent": agent.username, "supervisor": sup.username}


def _sync(app, agent_username: str, vehicle_id: int, fail: dict, started) -> str:
    """The agent's phone sends the inspection, then its photos."""
    client = app.test_client()
    assert client.login(agent_username).status_code == 302
    api = Api(client)
    iid = str(uuid.uuid4())
    b = body(vehicle_id, fail=fail, ok=("general-condition",), started=started)
    b["finished_at"] = T0.isoformat().replace("+00:00", "Z")
    r = api.put_inspection(iid, b)
    assert r.status_code == 201 and r.json["complete"] is False, r.json
    for item in b["items"]:
        for ph, data in zip(item["photos"], fail.get(item["item_id"], [])):
            r = api.put_photo(iid, ph["id"], data)
            assert r.status_code == 201, r.json
    assert r.json["complete"] is True
    enforcement_worker(app, T0 + timedelta(minutes=1))  # the tick after the sync proposes
    return iid


def _freeze(monkeypatch, moment):
    """The review views' clock."""
    from inspector.blueprints.review import actions
    monkeypatch.setattr(actions, "now", lambda: moment)


@pytest.fixture
def synced(app, world):
    iid = _sync(app, world["agent"], world["vehicle_id"], {"mirrors": [jpeg(1)]},
                T0 - timedelta(minutes=7))
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        return {"iid": iid, "inspection_id": insp.id}


def test_failed_safety_item_is_proposed_as_a_72_hour_notice_to_the_rider(app, world, synced):
    with app.app_context():
        [act] = db.session.scalars(select(Sanction)).all()
        assert (act.kind, act.target, act.decided_by, act.status) == \
            ("notice", "driver", "agent", SanctionStatus.PROPOSED)
        assert act.driver_id == world["driver_id"] and act.offender == f"driver:{world['driver_id']}"
        assert act.step_id == "notice" and act.occurrence == 1
        assert act.citation["article"] == "Art. 27, I"            # the agent notifies in writing
        assert act.breach_citation["article"] == "Art. 15"         # the mirrors
        assert act.deadline_hours == 72 and act.deadline_citation["article"] == "Art. 29, parágrafo único"
        # handed over and signed on the street: the 72 hours run from the signature
        assert clock.utc(act.deadline_at) == DEADLINE
        assert act.appeal_days == 8 and act.appeal_until == date(2026, 1, 6)
        assert act.appeal_to == "supervisor" and act.appeal_suspensive is False
        assert "60% do salário mínimo por dia" in str(act.on_missed)


def test_supervisor_confirms_then_72_hours_later_tick_makes_the_daily_fine(app, client, world,
                                                                           synced, monkeypatch):
    assert client.login(world["supervisor"]).status_code == 302
    page = client.get(f"/revisao/vistorias/{synced['inspection_id']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Retrovisores" in html or "retrovisor" in html.lower()
    assert "confere com o arquivo guardado" in html and "NÃO confere" not in html
    with app.app_context():
        act_id = db.session.scalar(select(Sanction.id))
    _freeze(monkeypatch, T0 + timedelta(hours=1))
    r = client.post_form(f"/revisao/atos/{act_id}/confirmar", {"comment": ""},
                         headers={"HX-Request": "true"})
    assert r.status_code == 200, r.get_data(as_text=True)
    card = r.get_data(as_text=True)
    assert "Confirmado" in card and re.search(r"[A-Z2-9]{5}-[A-Z2-9]{5}", card)
    with app.app_context():
        act = db.session.get(Sanction, act_id)
        assert act.status == SanctionStatus.CONFIRMED
        notice = db.session.scalar(select(Notice))
        assert notice.number == "NOT-2025/000001" and notice.document_kind == "notice"
        assert notice.ack_name == "Condutor de Teste" and notice.ack_signature_sha256
        code = re.search(r"[A-Z2-9]{5}-[A-Z2-9]{5}", card).group(0)
        assert enforcement.check_access_code(notice, code.lower())
        assert not enforcement.check_access_code(notice, "AAAAA-AAAAA")
        assert db.session.get(Inspection, synced["inspection_id"]).status.value == "reviewed"

        assert enforcement.tick(DEADLINE - timedelta(minutes=1)).converted == []
        report = enforcement.tick(DEADLINE + timedelta(minutes=1))
        assert report.converted == [act_id]
        db.session.expire_all()
        act = db.session.get(Sanction, act_id)
        assert act.status == SanctionStatus.CONVERTED_TO_DAILY_FINE
        daily = db.session.scalar(select(Sanction).where(Sanction.parent_id == act_id))
        assert (daily.kind, daily.status, daily.automatic) == ("daily_fine", SanctionStatus.CONFIRMED, True)
        assert daily.citation["article"] == "Art. 29, parágrafo único"
        fine = daily.fine
        assert (fine.unit, fine.amount, fine.per) == ("minimum_wage", Decimal("0.6"), "day")
        assert fine.amount_brl == Decimal("972.60")       # 60% of R$ 1.621,00, in force on 01/01/2026
        assert fine.value_on == date(2026, 1, 1)
        assert fine.accrued_days == 1 and fine.accrued_brl == Decimal("972.60")
        assert daily.notice.document_kind == "infraction_record"

        audit_before = db.session.scalar(select(func.count(AuditEntry.id)))
        events_before = db.session.scalar(select(func.count(EnforcementEvent.id)))
        again = enforcement.tick(DEADLINE + timedelta(minutes=1))
        assert again.changes == 0
        assert db.session.scalar(select(func.count(AuditEntry.id))) == audit_before
        assert db.session.scalar(select(func.count(EnforcementEvent.id))) == events_before
        assert db.session.scalar(select(func.count(Sanction.id))) == 2

        enforcement.tick(DEADLINE + timedelta(days=2, minutes=1))
        db.session.expire_all()
        fine = db.session.scalar(select(Fine).where(Fine.per == "day"))
        assert fine.accrued_days == 3 and fine.accrued_brl == Decimal("2917.80")


@pytest.mark.parametrize("day, admitted", [(8, True), (9, False)])
def test_appeal_on_day_8_is_admitted_and_on_day_9_is_not(app, client, world, synced,
                                                         monkeypatch, day, admitted):
    assert client.login(world["supervisor"]).status_code == 302
    with app.app_context():
        act_id = db.session.scalar(select(Sanction.id))
    _freeze(monkeypatch, T0 + timedelta(hours=1))
    assert client.post_form(f"/revisao/atos/{act_id}/confirmar", {}).status_code == 303
    with app.app_context():
        enforcement.tick(DEADLINE + timedelta(minutes=1))
    filed = date(2025, 12, 29) + timedelta(days=day)
    _freeze(monkeypatch, local(filed.year, filed.month, filed.day, 15))
    r = client.post_form(f"/revisao/atos/{act_id}/recurso", {
        "filed_on": filed.isoformat(), "filed_by": "Moto Táxi Tapurah Ltda",
        "filed_by_role": "company", "text": "O retrovisor foi trocado no mesmo dia; segue nota."},
        headers={"HX-Request": "true"})
    assert r.status_code == 200, r.get_data(as_text=True)
    with app.app_context():
        act = db.session.get(Sanction, act_id)
        [appeal] = act.appeals
        assert appeal.filed_on == filed and appeal.window_until == date(2026, 1, 6)
        assert appeal.admitted is admitted
        if admitted:
            assert appeal.status == AppealStatus.PENDING
            assert act.status == SanctionStatus.APPEALED
            assert act.suspended is False      # Art. 30 does not say the appeal suspends
        else:
            assert appeal.status == AppealStatus.NOT_ADMITTED
            assert "06/01/2026" in appeal.decision_text and "Art. 30" in appeal.decision_text
            assert act.status == SanctionStatus.CONVERTED_TO_DAILY_FINE
    text = r.get_data(as_text=True)
    assert ("Aguardando decisão" in text) if admitted else ("Não admitido" in text)
