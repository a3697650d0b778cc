"""Fixtures of the enforcement tests (acts, the supervisor's review, payments)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from inspector import enforcement
from inspector.extensions import db
from tests import factories
from tests.support.enforcement import fleet, inspect, set_values


@pytest.fixture
def fine(app):
    """Tapurah Art. 14 § ú: the holder fined 100 UFIM = R$ 525,00, confirmed an hour ago;
    the access code printed on the infraction record."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        set_values("tapurah", fiscal_unit=5.25)
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        other = factories.user("supervisor", "sapezal")
        db.session.commit()
        _, act = enforcement.acts_of(inspect(f["vehicle"], agent, {"one-passenger": "fail"},
                                             datetime.now(UTC) - timedelta(hours=2)))
        d = enforcement.confirm(act, sup, datetime.now(UTC) - timedelta(hours=1))
        db.session.commit()
        return {"act": act.id, "number": d.notice.number, "code": d.access_code,
                "supervisor": sup.username, "agent": agent.username, "other": other.username}
