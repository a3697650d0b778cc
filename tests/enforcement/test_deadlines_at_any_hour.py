"""An act's deadlines are counted on the town's day, whatever the hour the act is handed over:
Tapurah's notice (Lei 406/2001) gives 72 hours to repair (Art. 29 § único), elapsed time that
a clock change does not shorten, and 8 days to appeal, counted from the day after the day of
delivery in Cuiabá (Lei 9.784/1999 Art. 66: the start day out), which at 02:30 UTC is still
the previous day. The tick closes the window when the last day ends there, not before."""
from __future__ import annotations

from datetime import timedelta

from inspector import clock, enforcement
from inspector.extensions import db
from inspector.models import Municipality, Sanction
from tests import factories
from tests.support.enforcement import confirm_delivered, fleet, inspect


def _notice(app) -> int:
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        now = clock.now()
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"tank-sign": "fail"},
                                            now - timedelta(minutes=30)))
        confirm_delivered(act, sup, now)
        db.session.commit()
        return act.id


def test_72_hours_are_72_elapsed_hours_shown_on_the_towns_clock(instant, app):
    act_id = _notice(app)
    with app.app_context():
        act = db.session.get(Sanction, act_id)
        town = db.session.get(Municipality, act.municipality_id)
        notified, due = clock.utc(act.notified_at), clock.utc(act.deadline_at)
        assert act.deadline_hours == 72 and due - notified == timedelta(hours=72)
        assert f"{clock.town_text(town, notified)} a {clock.town_text(town, due)}" \
            in act.deadline_explain


def test_the_appeal_window_starts_the_day_after_delivery_in_the_town(instant, app):
    act_id = _notice(app)
    with app.app_context():
        act = db.session.get(Sanction, act_id)
        town = db.session.get(Municipality, act.municipality_id)
        delivered = clock.town_day(town, act.notified_at)
        assert delivered == clock.today(town)
        first = delivered + timedelta(days=1)
        assert f"{first:%d/%m/%Y} a " in act.appeal_explain, act.appeal_explain
        assert act.appeal_until >= delivered + timedelta(days=8)


def test_the_tick_closes_the_window_when_its_last_day_ends_in_the_town(instant, app):
    act_id = _notice(app)
    with app.app_context():
        act = db.session.get(Sanction, act_id)
        town = db.session.get(Municipality, act.municipality_id)
        last_moment = clock.end_of_day(town, act.appeal_until)
        assert enforcement.tick(clock.now()).windows_closed == []
        assert enforcement.tick(last_moment).windows_closed == []
        assert enforcement.tick(last_moment + timedelta(microseconds=1)).windows_closed == [act_id]
