"""Offline, in Chromium: a suspended permit cites the law's article for that sanction, as the
server does (`sanctions.suspension.permit_citation`, rules/engine.py), not the article that
requires a permit. Nova Santa Helena, Lei 535/2013: Art. 4 requires the Termo de Permissão,
Art. 25, III provides its suspension or revocation."""
from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser

PLATE = "QBN5H35"


@pytest.fixture
def suspended_permit(app):
    """A Nova Santa Helena taxi in order but for its permit, suspended for 20 days; an agent."""
    from inspector.extensions import db
    from inspector.models import Status

    today = date.today()
    with app.app_context():
        holder = factories.holder("nova-santa-helena", name="Carlos Taxista")
        permit = factories.permit(holder, "taxi", number="TP-0535", status=Status.SUSPENDED,
                                  suspended_until=today + timedelta(days=20))
        vehicle = factories.vehicle("nova-santa-helena", "taxi", holder=holder, plate=PLATE,
                                    year_of_manufacture=today.year - 1,
                                    last_vistoria_on=today - timedelta(days=20))
        factories.licence(vehicle)
        factories.insurance(vehicle)
        agent = factories.user("agent", "nova-santa-helena", name="Rita Fiscal")
        db.session.commit()
        out = {"agent": agent.username, "until": permit.suspended_until.strftime("%d/%m/%Y")}
        db.session.remove()
        return out


def test_a_suspended_permit_cites_art_25_iii_offline(browser, live_server, suspended_permit):
    context, guard, page = start_online(browser, live_server, suspended_permit["agent"])
    context.set_offline(True)
    page.clock.set_fixed_time(datetime.now() + timedelta(days=2))
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=20_000)
    page.fill("#search-q", PLATE)
    page.get_by_role("button", name="Buscar").click()
    card = page.locator("#result .card")
    expect(card.locator(".plate")).to_contain_text(PLATE)
    until = suspended_permit["until"]
    expect(card.locator(".situation")).to_have_attribute("data-situation", "suspended")
    expect(card.locator(".situation-title")).to_have_text(f"SUSPENSO até {until}")
    reason = card.locator(".reasons li", has_text="Permissão TP-0535")
    expect(reason).to_have_text(f"Permissão TP-0535 suspensa até {until} (Lei 535/2013, Art. 25, III)")
    expect(reason.locator("a.cite")).to_have_attribute(
        "href", "/leis/nova-santa-helena-lei-535-2013-taxi#art-25-iii")
    assert guard.foreign() == []
    context.close()
