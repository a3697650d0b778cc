"""What a subscribed holder's phone is told about an act decided in the office: nothing runs
until its document is delivered (Tapurah Lei 406/2001 Art. 29 § único, 72 hours to comply;
Art. 30, 8 days to appeal; counted from delivery, enforcement/delivery.py), then the
dates it runs until. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Holder, Notification
from inspector.notifications import subscriptions
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect
from tests.support.instants import CUIABA
from tests.support.push import Subscriber


def test_the_holder_hears_the_deadline_starts_at_delivery_and_then_its_dates(app, service):
    app.config.update(PUSH_ALLOW_HTTP_LOOPBACK=True)
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        subscriptions.save_subscription(Subscriber(service.endpoint("h")).as_json(),
                                holder=db.session.get(Holder, f["holder"].id))
        db.session.commit()
        now = datetime.now(UTC)
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"leg-guard": "fail"},
                                            now - timedelta(hours=3), ack=None))
        enforcement.confirm(act, sup, now - timedelta(hours=2))
        db.session.commit()
        assert act.awaiting_delivery and act.deadline_hours == 72
        [issued] = db.session.scalars(select(Notification).where(
            Notification.kind == "notice_issued")).all()
        assert db.session.scalars(select(Notification).where(
            Notification.kind == "act_delivered")).all() == []
        # it said only "Notificação nº NOT-…. Use o código…": no word on when the 72 h start
        assert "o prazo começa a contar da entrega do documento" in issued.body
        assert "prazo até" not in issued.body
        handed = now - timedelta(hours=1)
        deliver(act, sup, handed, recorded=now)
        db.session.commit()
        [told] = db.session.scalars(select(Notification).where(
            Notification.kind == "act_delivered")).all()
        local = handed.astimezone(CUIABA)
        due = (handed + timedelta(hours=72)).astimezone(CUIABA)
        assert told.holder_id == f["holder"].id and told.url.endswith(act.notice.number)
        assert told.title == "Documento entregue: o prazo começou"
        assert f"entrega registrada em {local:%d/%m/%Y}" in told.body
        assert f"prazo para cumprir até {due:%d/%m/%Y %H:%M} (horário de MT)" in told.body
        assert f"recurso até {act.appeal_until:%d/%m/%Y}" in told.body
        assert "Titular" not in told.body                  # nothing personal on a lock screen
        deliver_again = enforcement.common.notify
        deliver_again("act_delivered", act=act)            # once per act and holder
        assert len(db.session.scalars(select(Notification).where(
            Notification.kind == "act_delivered")).all()) == 1
