"""A Tapurah notice the holder opens with the printed code (the holder page's tests)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import DatedValue, Sanction
from tests import factories
from tests.support.enforcement import confirm_delivered, fleet, inspect


def tapurah_notice(app) -> dict:
    """A Tapurah moto-taxi with a broken mirror: the supervisor confirms the notice and it is
    handed to the rider at once, so its 72 hours and its 8 days of appeal run."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        now = datetime.now(UTC) - timedelta(minutes=5)
        insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, now - timedelta(hours=1))
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id)
                                .order_by(Sanction.id))
        d = confirm_delivered(act, sup, now)
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert act.appeal_until is not None and act.deadline_at is not None
        wage = DatedValue.query.filter_by(municipality_id=act.municipality_id,
                                          kind="minimum_wage").order_by(
            DatedValue.valid_from.desc()).first().value_brl
        return {"daily": (Decimal("0.6") * wage).quantize(Decimal("0.01")),
                "path": f"tapurah/{d.notice.number}", "number": d.notice.number,
                "code": d.access_code, "notice_id": d.notice.id,
                "appeal_until": act.appeal_until.strftime("%d/%m/%Y")}
