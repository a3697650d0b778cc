"""Every "today" of a decision is the act's town's day on its own clock (municipalities.timezone),
whatever the hour: a town on Fernando de Noronha's clock (UTC-2) is already on the next day at
02:30 UTC, when Cuiabá is still at 22:30 of the day before. Run at several instants (`instant`).

- a delivery dated the town's today is not "in the future" (Nortelândia Lei 030/1998 Art. 16
  § 2º: time runs from the intimação, on the day it happened);
- an appeal lodged on the town's today is on time and not "future" (Art. 16 § 2º);
- the review queue's and the acts list's "de"/"até" days are the town's days.
"""
from __future__ import annotations

from datetime import timedelta

import pytest

from inspector import clock, enforcement
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality, Sanction
from tests import factories
from tests.support.enforcement import decided_in_office

REF = "Recebido pelo titular"


def _noronha_act(decided: timedelta = timedelta(hours=-2)):
    factories.town("nortelandia", timezone="America/Noronha")
    db.session.commit()
    o = decided_in_office("nortelandia", "taxi", {"clean": "fail"}, clock.now() + decided)
    return o, db.session.get(Municipality, o.act.municipality_id)


def test_a_delivery_dated_the_towns_today_is_taken_and_tomorrow_refused(app, instant):
    with app.app_context():
        o, town = _noronha_act()
        today = clock.today(town)
        with pytest.raises(ValidationFailed) as info:
            enforcement.record_delivery(o.act, o.supervisor, clock.now(), day=today + timedelta(days=1),
                                        via="hand", ref=REF)
        assert info.value.errors["delivered_on"] == "A data da entrega não pode ser futura."
        db.session.rollback()
        enforcement.record_delivery(o.act, o.supervisor, clock.now(), day=today, via="hand", ref=REF)
        db.session.commit()
        act = db.session.get(Sanction, o.act.id)
        assert clock.town_day(town, act.notified_at) == today
        assert clock.utc(act.notified_at) <= clock.now()


def test_an_appeal_lodged_on_the_towns_today_is_on_time(app, instant):
    with app.app_context():
        o, town = _noronha_act()
        today = clock.today(town)
        enforcement.record_delivery(o.act, o.supervisor, clock.now(), day=today, via="hand", ref=REF)
        db.session.commit()
        act = db.session.get(Sanction, o.act.id)
        with pytest.raises(ValidationFailed) as info:
            enforcement.file_appeal(act, filed_on=today + timedelta(days=1), filed_by="Titular",
                                    filed_by_role="holder", text_="Não concordo com a decisão.",
                                    user=o.supervisor, now=clock.now())
        assert info.value.errors["filed_on"] == "A data do protocolo não pode ser futura."
        db.session.rollback()
        act = db.session.get(Sanction, o.act.id)
        appeal = enforcement.file_appeal(act, filed_on=today, filed_by="Titular",
                                         filed_by_role="holder",
                                         text_="Não concordo com a decisão.", user=o.supervisor,
                                         now=clock.now())
        assert appeal.admitted is not False


def test_the_lists_filter_by_the_towns_days(app, instant):
    with app.app_context():
        o, town = _noronha_act(timedelta(hours=1))   # the inspection finished now
        proposed = clock.town_day(town, db.session.get(Sanction, o.act.id).proposed_at)
        finished = clock.town_day(town, o.act.inspection.finished_at)
        tid = town.id
        rows, _ = enforcement.acts_list(tid, day_from=proposed, day_to=proposed)
        assert [r.id for r in rows] == [o.act.id]
        for other in (proposed - timedelta(days=1), proposed + timedelta(days=1)):
            assert enforcement.acts_list(tid, day_from=other, day_to=other)[0] == []
        page = enforcement.review_queue(tid, day_from=finished, day_to=finished)
        assert len(page.rows) == 1
        for other in (finished - timedelta(days=1), finished + timedelta(days=1)):
            assert enforcement.review_queue(tid, day_from=other, day_to=other).rows == []
