"""Tapurah Lei 406/2001 Art. 27, III: "solicitar o afastamento do condutor após a terceira
notificação". The rung that adds the removal request serves every notice after the third
(not the third itself: product owner, December 2026), so its notice must not call a fourth or
fifth notice "Terceira notificação". Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import timedelta

from inspector import enforcement
from inspector.extensions import db
from tests import factories
from tests.support.enforcement import fleet, inspect, local


def test_a_fourth_notice_is_not_printed_as_the_third(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        start = local(2026, 3, 2, 10)
        for n in range(3):
            when = start + timedelta(days=10 * n)
            for act in enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"},
                                                   when)):
                if act.status.value == "proposed" and act.kind == "notice":
                    enforcement.confirm(act, sup, when + timedelta(hours=1))
            db.session.commit()
        fourth = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"},
                                             start + timedelta(days=30)))
        notice = next(a for a in fourth if a.kind == "notice")
        assert (notice.step_id, notice.occurrence) == ("third-notice", 4)
        assert any(a.kind == "removal_request" for a in fourth)   # Art. 27, III
        assert not notice.label.lower().startswith("terceira"), notice.label
        assert "depois da terceira" in notice.label
