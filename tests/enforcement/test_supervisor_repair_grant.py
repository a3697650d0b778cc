"""The supervisor grants or removes Tapurah's discretionary deadline on the act's card before
deciding it (Lei 406/2001 Art. 19 as the product owner reads it: never automatic, only a
defect of the vehicle the pack marks as not affecting safety, up to 10 days, with a reason,
audited); otherwise the notice keeps Art. 29 § único's 72 hours."""
from __future__ import annotations

import re
from datetime import UTC, datetime

from sqlalchemy import select

from inspector import enforcement
from inspector.clock import utc
from inspector.extensions import db
from inspector.models import AuditEntry, Sanction
from tests import factories
from tests.support.enforcement import fleet, inspect
from tests.support.instants import CUIABA
from tests.support.web import login, text


def _acts(app, results, grants=None):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        # Wed 25/11/2026 10:00 local (a day already past whenever this runs), the rider signs
        # the "ciente" on the street
        insp = inspect(f["vehicle"], agent, results,
                       datetime(2026, 11, 25, 10, tzinfo=CUIABA).astimezone(UTC), grants=grants)
        db.session.commit()
        return {a.rule_id: a.id for a in enforcement.acts_of(insp)}, sup.username, agent.username


def _act(app, act_id):
    with app.app_context():
        return db.session.get(Sanction, act_id)


def _card(html: str, act_id: int) -> str:
    m = re.search(rf'<article class="act[^"]*" id="ato-{act_id}">(.*?)</article>', html, re.S)
    return m.group(1)


def test_the_supervisor_grants_the_days_with_a_reason_and_may_take_them_back(app):
    acts, sup, agent = _acts(app, {"tank-sign": "fail", "uniform": "fail"})
    c = login(app, sup)
    card = _card(text(c.get(f"/revisao/atos/{acts['tank-sign']}")), acts["tank-sign"])
    assert "72 horas" in card and "Art. 29, parágrafo único" in card
    assert "Prazo do Art. 19 (até 10 dias)" in card and 'class="grant-form"' in card
    # the rider's uniform is not a defect of the vehicle: no form, and why
    other = _card(text(c.get(f"/revisao/atos/{acts['uniform']}")), acts["uniform"])
    assert 'class="grant-form"' not in other and "não é defeito do veículo" in other

    url = f"/revisao/atos/{acts['tank-sign']}/prazo"
    r = c.post_form(url, {"grant_days": "11", "grant_reason": "Adesivo encomendado"},
                    token_from=f"/revisao/atos/{acts['tank-sign']}")
    assert r.status_code == 422 and "de 1 a 10 dias (Art. 19)" in text(r)
    r = c.post_form(url, {"grant_days": "10", "grant_reason": ""},
                    token_from=f"/revisao/atos/{acts['tank-sign']}")
    assert r.status_code == 422 and "motivo da concessão" in text(r)
    assert _act(app, acts["tank-sign"]).deadline_hours == 72   # nothing changed

    r = c.post_form(url, {"grant_days": "10", "grant_reason": "Adesivo encomendado na gráfica"},
                    token_from=f"/revisao/atos/{acts['tank-sign']}",
                    headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert "10 dias, concedidos pelo supervisor (Art. 19)" in text(r)
    assert "Concedido pelo supervisor: Adesivo encomendado na gráfica" in text(r)
    a = _act(app, acts["tank-sign"])
    assert (a.deadline_hours, a.deadline_days, a.deadline_granted_by) == (None, 10, "supervisor")
    # counted from the ciente (Wed 25/11), days running on (Lei 9.784 Art. 66): 05/12 is a
    # Saturday, and days to repair do not move (product owner, December 2026)
    assert utc(a.deadline_at).astimezone(CUIABA).date().isoformat() == "2026-12-05"
    with app.app_context():
        entry = db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "sanction_deadline_granted",
            AuditEntry.entity_id == str(acts["tank-sign"])))
        assert entry is not None and "Adesivo encomendado na gráfica" in entry.after

    r = c.post_form(f"{url}/retirar", {"grant_reason": "A peça já chegou"},
                    token_from=f"/revisao/atos/{acts['tank-sign']}")
    assert r.status_code == 303
    a = _act(app, acts["tank-sign"])
    assert (a.deadline_hours, a.deadline_days, a.deadline_granted_by, a.deadline_text) == \
        (72, None, None, "72 horas")
    assert utc(a.deadline_at).astimezone(CUIABA) == datetime(2026, 11, 28, 10, tzinfo=CUIABA)
    with app.app_context():
        assert db.session.scalar(select(AuditEntry.id).where(
            AuditEntry.action == "sanction_deadline_grant_removed")) is not None

    # an ineligible act is refused even when posted by hand, and stays as it was
    r = c.post_form(f"/revisao/atos/{acts['uniform']}/prazo",
                    {"grant_days": "5", "grant_reason": "Uniforme na lavanderia"},
                    token_from=f"/revisao/atos/{acts['uniform']}")
    assert r.status_code == 422 and "não é defeito do veículo" in text(r)
    assert _act(app, acts["uniform"]).deadline_granted_by is None


def test_the_agents_grant_shows_on_the_card_and_only_a_supervisor_changes_it(app):
    acts, sup, agent = _acts(app, {"tank-sign": "fail"},
                             {"tank-sign": {"days": 7, "reason": "Pintura agendada"}})
    c = login(app, sup)
    card = _card(text(c.get(f"/revisao/atos/{acts['tank-sign']}")), acts["tank-sign"])
    assert "7 dias, concedidos pelo agente (Art. 19)" in card
    assert "Concedido pelo agente: Pintura agendada" in card and "grant-remove-form" in card
    a = login(app, agent)
    r = a.post_form(f"/revisao/atos/{acts['tank-sign']}/prazo/retirar",
                    {"grant_reason": "Quero retirar"})
    assert r.status_code == 403
    assert _act(app, acts["tank-sign"]).deadline_granted_by == "agent"


def test_once_decided_the_deadline_no_longer_changes(app):
    acts, sup, _ = _acts(app, {"tank-sign": "fail"})
    c = login(app, sup)
    page = f"/revisao/atos/{acts['tank-sign']}"
    assert c.post_form(f"{page}/confirmar", {}, token_from=page).status_code == 303
    assert "grant-form" not in text(c.get(page))
    r = c.post_form(f"{page}/prazo", {"grant_days": "5", "grant_reason": "Tarde demais"},
                    token_from=page)
    assert r.status_code == 422 and "já foi decidido" in text(r)
    assert _act(app, acts["tank-sign"]).deadline_hours == 72


def test_a_stored_grant_the_law_no_longer_allows_keeps_the_72_hours_and_says_why(app):
    """The sync refuses such a grant; a body stored before (or a pack changed since) must not
    get the days anyway: the act keeps Art. 29's 72 hours and the history says why."""
    from inspector.models import EnforcementEvent

    acts, _, _ = _acts(app, {"uniform": "fail"},
                       {"uniform": {"days": 10, "reason": "Uniforme na lavanderia"}})
    a = _act(app, acts["uniform"])
    assert (a.deadline_hours, a.deadline_days, a.deadline_granted_by) == (72, None, None)
    with app.app_context():
        ev = db.session.scalar(select(EnforcementEvent).filter_by(kind="grant_not_applied"))
        assert "não é defeito do veículo" in ev.text
