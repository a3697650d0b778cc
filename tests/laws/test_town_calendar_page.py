"""/conformidade/calendario: the town's admin enters its own days without office with the act
that sets each (law or decree, number, date) and marks a year complete; supervisors read it;
every change is audited; a day entered before a deadline falls due moves the deadlines it
reaches (../shared/DOMAIN.md, "Days without office"; Lei 9.784/1999 Art. 66 § 1º)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape

from sqlalchemy import select

from inspector import enforcement
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import AuditEntry, Sanction, TownClosure
from tests import factories
from tests.support.enforcement import fleet, inspect

PAGE = "/conformidade/calendario"


def _client(app, make, role: str, town: str = "tapurah"):
    user = make(factories.user, role, town)
    c = app.test_client()
    assert c.login(user.username).status_code == 302
    return c, user


def _html(r) -> str:
    return unescape(r.get_data(as_text=True))


def _form(day: str, **kw) -> dict:
    return {"day": day, "reason": "Aniversário do município", "act": "Lei nº 12/1990",
            "act_date": "1990-05-04", "kind": "feriado municipal"} | kw


def test_the_admin_enters_a_day_with_its_act_and_it_is_listed_and_audited(app, make):
    c, admin = _client(app, make, "admin")
    r = c.post_form(PAGE, _form("2026-05-04"), token_from=PAGE)
    assert r.status_code == 302 and r.headers["Location"].endswith("ano=2026")
    page = _html(c.get(f"{PAGE}?ano=2026"))
    assert "04/05/2026 (segunda)" in page and "Lei nº 12/1990, de 04/05/1990" in page
    assert "Não informado" in page          # the year is not marked complete yet
    with app.app_context():
        entry = db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "town_closure_added"))
        assert entry.actor == admin.username


def test_a_day_without_its_act_is_refused_next_to_each_field_and_nothing_is_written(app, make):
    c, _ = _client(app, make, "admin")
    r = c.post_form(PAGE, _form("2026-05-04", act="", act_date=""), token_from=PAGE)
    assert r.status_code == 422
    page = _html(r)
    assert re.search(r'id="c-act-error">Informe o ato', page)
    assert 'id="c-act_date-error">Informe a data do ato' in page
    assert 'value="Aniversário do município"' in page      # what was typed stays
    with app.app_context():
        assert db.session.scalar(select(TownClosure)) is None


def test_a_day_of_an_impossible_year_is_refused_with_this_years_page(app, make):
    c, _ = _client(app, make, "admin")
    for day in ("0000-00-00", "0", "0000", "9999-01-01"):
        r = c.post_form(PAGE, _form(day), token_from=PAGE)
        assert r.status_code == 422, day
        assert 'id="c-day-error"' in _html(r), day
    with app.app_context():
        assert db.session.scalar(select(TownClosure)) is None


def test_supervisors_read_it_agents_do_not_and_only_admins_change_it(app, make):
    sup, _ = _client(app, make, "supervisor")
    page = _html(sup.get(PAGE))
    assert "Feriados nacionais e de Mato Grosso" in page and "Registrar dia" not in page
    assert "Tiradentes" in page
    assert sup.post_form(PAGE, _form("2026-05-04"), token_from=PAGE).status_code == 403
    agent, _ = _client(app, make, "agent")
    assert agent.get(PAGE).status_code == 403


def test_marking_the_year_complete_and_removing_a_day(app, make):
    c, _ = _client(app, make, "admin")
    c.post_form(PAGE, _form("2026-05-04"), token_from=PAGE)
    r = c.post_form(f"{PAGE}/ano", {"year": "2026", "entered": "1"}, token_from=PAGE)
    assert r.status_code == 302
    assert "Completo" in _html(c.get(f"{PAGE}?ano=2026"))
    with app.app_context():
        row = db.session.scalar(select(TownClosure))
    r = c.post_form(f"{PAGE}/{row.id}/remover", token_from=PAGE)
    assert r.status_code == 302
    with app.app_context():
        assert db.session.scalar(select(TownClosure)) is None
        actions = set(db.session.scalars(select(AuditEntry.action)))
    assert {"town_closure_added", "town_calendar_year_entered", "town_closure_removed"} <= actions


def test_another_towns_day_cannot_be_removed(app, make):
    other, _ = _client(app, make, "admin", "sapezal")
    other.post_form(PAGE, _form("2026-05-04"), token_from=PAGE)
    with app.app_context():
        row = db.session.scalar(select(TownClosure))
    c, _ = _client(app, make, "admin")
    assert c.post_form(f"{PAGE}/{row.id}/remover", token_from=PAGE).status_code == 404


def test_a_day_entered_before_a_running_appeal_window_ends_moves_it(app, make):
    """A Tapurah street notice signed two days ago has 8 days to appeal (Lei 406/2001 Art. 30);
    closing the town hall on its last day moves it to the next office day."""
    c, _ = _client(app, make, "admin")
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        db.session.commit()
        [notice] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"},
                                               datetime.now(UTC) - timedelta(days=2)))
        db.session.commit()
        last, ident = notice.appeal_until, notice.id
    r = c.post_form(PAGE, _form(last.isoformat(), act="Decreto nº 9/2026",
                                act_date=default_day().isoformat(),
                                kind="ponto facultativo municipal"), token_from=PAGE)
    assert r.status_code == 302
    assert "1 prazo(s) ainda em curso foram prorrogados" in _html(c.get(r.headers["Location"]))
    with app.app_context():
        act = db.session.get(Sanction, ident)
        assert act.appeal_until > last
        assert "Decreto nº 9/2026" in act.appeal_explain
