"""Offline, on a 360×740 phone: a rider whose registration an act suspended is named on the
moto-taxi's card with the act's cause, as the passenger page words it ("SUSPENSO até 20/12
(uso de celular ao conduzir)"), not only "SUSPENSO". The act is the registry's: a decided
suspension whose effect is the registration's status change (laws/causes.py)."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import open_card, start_online

pytestmark = pytest.mark.browser

WHY = "uso de celular ao conduzir"


def _suspend_by_act(app, world) -> str:
    """The world's rider suspended for 14 days by a decided act; the last day as printed."""
    from inspector.extensions import db
    from inspector.models import Sanction, SanctionStatus, Status, StatusChange, Vehicle

    now, until = datetime.now(UTC), date.today() + timedelta(days=14)
    citation = {"law": "Lei 406/2001", "law_slug": "tapurah-lei-406-2001-mototaxi",
                "article": "Art. 27, II", "anchor": "art-27-ii", "quote": "multa"}
    with app.app_context():
        rider = db.session.get(Vehicle, world["vehicle_id"]).drivers[0]
        change = StatusChange(municipality_id=rider.municipality_id, subject_type="driver",
                              subject_id=rider.id, from_status=Status.ACTIVE,
                              to_status=Status.SUSPENDED, reason="Decisão da Secretaria", at=now)
        db.session.add(change)
        db.session.flush()
        db.session.add(Sanction(
            municipality_id=rider.municipality_id, origin_key=f"test:suspend:{rider.id}",
            pack_id="tapurah-406-2001", law="Lei 406/2001", rule_id="conduct-phone",
            kind="suspension", target="registration", label=f"Suspensão do registro ({WHY})",
            offender=f"driver:{rider.id}", driver_id=rider.id, citation=citation,
            decided_by="supervisor", status=SanctionStatus.CONFIRMED, proposed_at=now,
            decided_at=now, updated_at=now, effect_change_id=change.id))
        rider.status, rider.suspended_until = Status.SUSPENDED, until
        db.session.commit()
        db.session.remove()
    return until.strftime("%d/%m/%Y")


def test_a_suspended_rider_reads_with_the_cause_of_the_act(browser, live_server, app, world):
    until = _suspend_by_act(app, world)
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size({"width": 360, "height": 740})
    context.set_offline(True)
    card = open_card(page, world["plate"])
    expect(card.locator(".situation-barred")).to_contain_text(f"SUSPENSO até {until} ({WHY})")
    context.close()
