"""A town's own days without office (its law or decree), the years it entered, and what they do
to deadlines: counted into every deadline issued after them, and moving the deadlines not yet
past when entered before those fall due (../shared/DOMAIN.md, "Counting days" and "Days without
office"; Lei 9.784/1999 Art. 66 § 1º; Nortelândia Lei 030/1998 Art. 16 § 2º with CPC Art. 219).
"""
from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from inspector import enforcement
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.laws import town_calendar
from inspector.models import AuditEntry, EnforcementEvent, Sanction
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local

DECREE = {"reason": "Ponto facultativo", "act": "Decreto nº 45/2026", "act_date": "2026-01-10",
          "kind": "ponto facultativo municipal"}


def _audit(action: str) -> list[AuditEntry]:
    db.session.commit()  # a transaction's audit entries are written when it commits
    return list(db.session.scalars(select(AuditEntry).where(AuditEntry.action == action)))


def test_a_closure_is_recorded_with_its_act_and_audited(app):
    with app.app_context():
        town = factories.town("tapurah")
        admin = factories.user("admin", "tapurah")
        row = town_calendar.add_closure(town, DECREE | {"day": "2026-03-16"}, admin)
        db.session.commit()
        cal = town_calendar.calendar_for(town.id)
        [c] = cal.closures_on(date(2026, 3, 16))
        assert c.label == ("ponto facultativo municipal: Ponto facultativo (Decreto nº 45/2026, "
                           "de 10/01/2026)")
        [entry] = _audit("town_closure_added")
        assert entry.entity_id == str(row.id) and entry.municipality_id == town.id
        assert '"act":"Decreto nº 45/2026"' in entry.after


def test_a_closure_without_its_act_or_on_a_day_already_entered_is_refused(app):
    with app.app_context():
        town = factories.town("tapurah")
        admin = factories.user("admin", "tapurah")
        with pytest.raises(ValidationFailed) as info:
            town_calendar.add_closure(town, {"day": "16/03/2026", "reason": "", "act": "",
                                             "act_date": "2099-01-01", "kind": "feriado"}, admin)
        assert set(info.value.errors) == {"day", "reason", "act", "act_date", "kind"}
        town_calendar.add_closure(town, DECREE | {"day": "2026-03-16"}, admin)
        with pytest.raises(ValidationFailed) as info:
            town_calendar.add_closure(town, DECREE | {"day": "2026-03-16"}, admin)
        assert "já está registrado" in info.value.errors["day"]
        with pytest.raises(ValidationFailed) as info:
            town_calendar.add_closure(town, DECREE | {"day": "2026-04-01",
                                                      "act_date": "2099-01-01"}, admin)
        assert "futura" in info.value.errors["act_date"]


def test_a_year_is_marked_entered_once_and_reopened_each_audited(app):
    with app.app_context():
        town = factories.town("tapurah")
        admin = factories.user("admin", "tapurah")
        assert town_calendar.set_year_entered(town, "2026", True, admin) == 2026
        town_calendar.set_year_entered(town, "2026", True, admin)   # again: nothing written
        assert town_calendar.calendar_for(town.id).years == {2026}
        assert len(_audit("town_calendar_year_entered")) == 1
        town_calendar.set_year_entered(town, 2026, False, admin)
        assert town_calendar.calendar_for(town.id).years == frozenset()
        assert len(_audit("town_calendar_year_reopened")) == 1
        with pytest.raises(ValidationFailed):
            town_calendar.set_year_entered(town, "vinte", True, admin)


def _street_notice(finished):
    """Tapurah: a mirror missing, the notice handed to the rider and signed on the street
    ("com o respectivo ciente", Lei 406/2001 Art. 27 I): its 8 days to appeal (Art. 30) run."""
    f = fleet("tapurah", "mototaxi")
    agent = factories.user("agent", "tapurah")
    db.session.commit()
    [notice] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"}, finished))
    return notice


def test_an_appeal_window_counts_the_town_closure_and_explains_it(app):
    """Notice Fri 06/03/2026: day 8 is Sat 14/03 -> Mon 16/03 (Art. 66 § 1º); a town closure on
    Mon 16/03 carries it to Tue 17/03, and the act says why."""
    with app.app_context():
        town = factories.town("tapurah")
        admin = factories.user("admin", "tapurah")
        town_calendar.add_closure(town, DECREE | {"day": "2026-03-16"}, admin)
        town_calendar.set_year_entered(town, 2026, True, admin)
        notice = _street_notice(local(2026, 3, 6, 10))
        assert notice.appeal_until == date(2026, 3, 17)
        assert notice.appeal_explain == (
            "8 dias (Lei 9.784/1999, art. 66): 07/03/2026 a 14/03/2026; prorrogado para "
            "17/03/2026 (art. 66, § 1º): 14/03 sábado, 15/03 domingo, 16/03 ponto facultativo "
            "municipal: Ponto facultativo (Decreto nº 45/2026, de 10/01/2026)")
        assert notice.deadline_hours == 72 and notice.deadline_explain == (
            "72 horas, contadas minuto a minuto: 06/03/2026 10:00 a 09/03/2026 10:00")


def test_without_the_towns_calendar_for_the_year_the_deadline_says_so(app):
    with app.app_context():
        notice = _street_notice(local(2026, 3, 6, 10))
        assert notice.appeal_until == date(2026, 3, 16)
        assert notice.appeal_explain.endswith("calendário municipal de 2026 não informado")


def test_a_closure_entered_before_the_deadline_falls_due_moves_it_audited(app):
    with app.app_context():
        town = factories.town("tapurah")
        admin = factories.user("admin", "tapurah")
        notice = _street_notice(local(2026, 3, 6, 10))
        assert notice.appeal_until == date(2026, 3, 16)
        now = local(2026, 3, 12, 9)
        row = town_calendar.add_closure(town, DECREE | {"day": "2026-03-16"}, admin)
        moved = enforcement.move_for_closure(town.id, row.day, now, actor=admin)
        db.session.commit()
        assert moved == [notice]
        act = db.session.get(Sanction, notice.id)
        assert act.appeal_until == date(2026, 3, 17)
        assert "16/03 ponto facultativo municipal" in act.appeal_explain
        [entry] = _audit("sanction_deadline_moved")
        assert entry.entity_id == str(act.id) and entry.actor == admin.username
        ev = db.session.scalar(select(EnforcementEvent).where(
            EnforcementEvent.kind == "deadline_moved"))
        assert "recurso até 16/03/2026 → 17/03/2026" in ev.text
        # the 72 hours ended on 09/03 and are hours: they never move
        assert "06/03/2026 10:00 a 09/03/2026 10:00" in act.deadline_explain
        # removing the closure does not shorten it back (a deadline keeps its date)
        town_calendar.remove_closure(row, admin)
        db.session.commit()
        assert db.session.get(Sanction, notice.id).appeal_until == date(2026, 3, 17)
        assert len(_audit("town_closure_removed")) == 1


def test_a_closure_entered_after_the_deadline_fell_due_moves_nothing(app):
    with app.app_context():
        town = factories.town("tapurah")
        admin = factories.user("admin", "tapurah")
        notice = _street_notice(local(2026, 3, 6, 10))
        row = town_calendar.add_closure(town, DECREE | {"day": "2026-03-16"}, admin)
        assert enforcement.move_for_closure(town.id, row.day, local(2026, 3, 17, 9),
                                            actor=admin) == []
        assert db.session.get(Sanction, notice.id).appeal_until == date(2026, 3, 16)
        assert _audit("sanction_deadline_moved") == []


def test_nortelandia_030_business_days_skip_a_town_closure_inside_the_window(app):
    """Delivered Mon 02/03/2026: 10 business days end Mon 16/03 (Lei 030/1998 Art. 16 § 2º,
    CPC Art. 219); a municipal holiday on Wed 11/03, entered on 09/03, is not a business day,
    so the window ends Tue 17/03."""
    with app.app_context():
        town = factories.town("nortelandia")
        admin = factories.user("admin", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        f = fleet("nortelandia", "mototaxi")
        agent = factories.user("agent", "nortelandia")
        db.session.commit()
        [warning] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"},
                                                local(2026, 3, 2, 9)))
        enforcement.confirm(warning, sup, local(2026, 3, 2, 10))
        deliver(warning, sup, local(2026, 3, 2, 11))
        assert warning.appeal_until == date(2026, 3, 16)
        row = town_calendar.add_closure(town, {"day": "2026-03-11", "reason": "Padroeira",
                                               "act": "Lei nº 3/1999", "act_date": "1999-05-01",
                                               "kind": "feriado municipal"}, admin)
        enforcement.move_for_closure(town.id, row.day, local(2026, 3, 9, 9), actor=admin)
        db.session.commit()
        act = db.session.get(Sanction, warning.id)
        assert act.appeal_until == date(2026, 3, 17)
        assert act.appeal_explain.startswith("10 dias úteis (CPC, art. 219): 03/03/2026 a "
                                             "17/03/2026; 11/03 feriado municipal: Padroeira")
