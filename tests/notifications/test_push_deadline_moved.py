"""A day without office entered after a notice moves the dates it reaches (DOMAIN "Days
without office"; Lei 9.784/1999 Art. 66 § 1º; Nortelândia Lei 030/1998 Art. 16 § 2º with CPC
Art. 219): the holder, who was told the old day, is told the new one and why."""
from __future__ import annotations

from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.laws import town_calendar
from inspector.models import Holder, Notification, Sanction
from inspector.notifications import subscriptions
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local
from tests.support.push import Subscriber

HOLIDAY = {"day": "2026-03-11", "reason": "Padroeira", "act": "Lei nº 3/1999",
           "act_date": "1999-05-01", "kind": "feriado municipal"}


def _moved() -> list[Notification]:
    return list(db.session.scalars(select(Notification).where(
        Notification.kind == "deadline_moved")))


def test_the_holder_is_told_the_new_last_day_of_the_appeal_and_why(app, service):
    """Delivered Mon 02/03/2026: 10 business days to appeal end Mon 16/03; the town's holiday
    on Wed 11/03, entered on 09/03, makes it Tue 17/03."""
    app.config.update(PUSH_ALLOW_HTTP_LOOPBACK=True)
    with app.app_context():
        town = factories.town("nortelandia")
        admin = factories.user("admin", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        agent = factories.user("agent", "nortelandia")
        f = fleet("nortelandia", "mototaxi")
        subscriptions.save_subscription(Subscriber(service.endpoint("h")).as_json(),
                                holder=db.session.get(Holder, f["holder"].id))
        db.session.commit()
        [warning] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"},
                                                local(2026, 3, 2, 9)))
        enforcement.confirm(warning, sup, local(2026, 3, 2, 10))
        deliver(warning, sup, local(2026, 3, 2, 11))
        db.session.commit()
        row = town_calendar.add_closure(town, HOLIDAY, admin)
        enforcement.move_for_closure(town.id, row.day, local(2026, 3, 9, 9), actor=admin)
        db.session.commit()
        [told] = _moved()
        act = db.session.get(Sanction, warning.id)
        assert told.holder_id == f["holder"].id and told.title == "Prazo prorrogado"
        assert told.url.endswith(act.notice.number)
        assert "recurso até 16/03/2026 → 17/03/2026" in told.body
        assert "11/03/2026 passou a ser dia sem expediente" in told.body
        assert "10 dias úteis (CPC, art. 219)" in told.body          # the counting, in brackets
        assert f["holder"].name not in told.body                     # a lock screen shows it
        # the same closure moving nothing more tells nothing more
        enforcement.move_for_closure(town.id, row.day, local(2026, 3, 10, 9), actor=admin)
        db.session.commit()
        assert len(_moved()) == 1


def test_a_holder_without_a_subscription_gets_no_push_but_the_date_still_moves(app):
    with app.app_context():
        town = factories.town("nortelandia")
        admin = factories.user("admin", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        agent = factories.user("agent", "nortelandia")
        f = fleet("nortelandia", "mototaxi")
        db.session.commit()
        [warning] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"},
                                                local(2026, 3, 2, 9)))
        enforcement.confirm(warning, sup, local(2026, 3, 2, 10))
        deliver(warning, sup, local(2026, 3, 2, 11))
        row = town_calendar.add_closure(town, HOLIDAY, admin)
        assert enforcement.move_for_closure(town.id, row.day, local(2026, 3, 9, 9),
                                            actor=admin) == [warning]
        db.session.commit()
        assert _moved() == []
