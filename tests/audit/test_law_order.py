"""`flask audit verify` checks the law's order, not only the hashes: entries appended through the
audit writer (so their hashes hold) that describe a step the act's transition table forbids
fail verification (exit 1), named by their number."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from inspector import audit, enforcement
from inspector.extensions import db
from inspector.models import AuditEntry, Sanction
from tests import factories
from tests.support.enforcement import decided_in_office, fleet, inspect


def _verify(app):
    result = app.test_cli_runner().invoke(args=["audit", "verify", "--json"])
    return result.exit_code, json.loads(result.output)


def _plant(act: Sanction, action: str, before: dict | None, after: dict, entity="sanction",
           ident=None) -> int:
    """Append an entry as the app writes them (hash-chained at commit); its number."""
    audit.record(action, entity, ident if ident is not None else act.id, before=before,
                 after=after, actor="alguem", municipality_id=act.municipality_id)
    db.session.commit()
    return db.session.scalar(select(func.max(AuditEntry.seq)))


@pytest.fixture
def confirmed(app):
    """A Tapurah rider's notice (Lei 406/2001 Art. 27 I), signed on the street and confirmed."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        insp = inspect(f["vehicle"], agent, {"tank-sign": "fail"},
                       datetime.now(UTC) - timedelta(hours=2))
        [act] = enforcement.acts_of(insp)
        enforcement.confirm(act, sup, datetime.now(UTC) - timedelta(hours=1))
        db.session.commit()
        return act.id


def test_the_log_of_a_lawful_history_verifies(app, confirmed):
    code, report = _verify(app)
    assert code == 0 and report["ok"] and report["out_of_order"] is None, report


@pytest.mark.parametrize("before", ["confirmed", "proposed"])
def test_a_second_decision_of_one_act_fails_and_is_named(app, confirmed, before):
    """A rejection after the confirmation, whether it admits the act was decided or pretends
    it was still proposed: an act is decided once (Lei 9.784/1999 Art. 48 decides; a change
    after it is a review, Arts. 53 and 56, not a second decision)."""
    with app.app_context():
        act = db.session.get(Sanction, confirmed)
        seq = _plant(act, "sanction_rejected", {"status": before},
                     {"status": "rejected", "reason": "Mudei de ideia."})
    code, report = _verify(app)
    assert code == 1 and not report["ok"] and report["broken"] is None, report
    assert report["out_of_order"]["seq"] == seq and "sanction_rejected" in \
        report["out_of_order"]["reason"]
    text_out = app.test_cli_runner().invoke(args=["audit", "verify"]).output
    assert f"OUT OF ORDER: tapurah: at entry #{seq}" in text_out and "chain intact" in text_out


def test_a_daily_fine_from_a_notice_never_delivered_fails(app):
    """Nortelândia Lei 030/1998 Art. 16 § 2º: time runs "a partir da intimação"; a notice
    decided in the office and never delivered has no deadline to miss."""
    with app.app_context():
        o = decided_in_office("nortelandia", "taxi", {"clean": "fail"},
                              datetime.now(UTC) - timedelta(hours=2))
        assert o.act.awaiting_delivery and o.act.deadline_at is None
        seq = _plant(o.act, "sanction_converted", {"status": o.act.status.value},
                     {"status": "converted_to_daily_fine", "deadline_at": None})
    code, report = _verify(app)
    assert code == 1 and report["out_of_order"]["seq"] == seq, report
    assert "never started" in report["out_of_order"]["reason"]


def test_a_payment_of_a_rejected_act_fails(app, confirmed):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        insp = inspect(f["vehicle"], agent, {"one-passenger": "fail"},
                       datetime.now(UTC) - timedelta(hours=2))
        fine = enforcement.acts_of(insp)[-1]
        enforcement.reject(fine, sup, datetime.now(UTC), reason="Passageira era filha dele.")
        db.session.commit()
        seq = _plant(fine, "fine_payment_recorded", None,
                     {"sanction_id": fine.id, "amount_brl": "525.00", "receipt": "DAM 1"},
                     entity="fine", ident=999)
    code, report = _verify(app)
    assert code == 1 and report["out_of_order"]["seq"] == seq, report
    assert "nothing to pay" in report["out_of_order"]["reason"]
