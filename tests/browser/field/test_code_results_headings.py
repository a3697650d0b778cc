"""The field app's result screens for a code that names no vehicle on the phone have a
heading, as a vehicle's card has its plate for <h1>: another town's genuine credential
("Credencial de outro município") and a QR that is not a credential ("Este QR não é uma
credencial") each have the verdict as the screen's one <h1>; a rider's badge, when the rider
rides no vehicle, has the rider's name; axe finds nothing (no page-has-heading-one)."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import axe_violations, start_online

pytestmark = pytest.mark.browser


@pytest.fixture
def other_town_url(app, world):
    """A genuine credential of a moto-taxi of another town (Sinop), not in Tapurah's data."""
    from inspector.credentials import issuing
    from inspector.extensions import db
    from tests.support.credentials import regular_mototaxi

    with app.app_context():
        vehicle = regular_mototaxi("sinop", plate="QBS7E45")
        url = issuing.public_url(issuing.issue(vehicle).token)
        db.session.commit()
        db.session.remove()
        return url


def _result_heading(page, text: str):
    """What the camera does with a decoded QR (app.js handleCode); the result's <h1>."""
    page.evaluate("(text) => window.fieldApp.handleCode(text)", text)
    screen = page.locator("#screen-result")
    expect(screen).to_be_visible()
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_count(1)      # the hidden screens' <h1> are not in the tree
    return heading


def test_another_towns_credential_has_the_verdict_as_heading(browser, live_server, world,
                                                            other_town_url):
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    heading = _result_heading(page, other_town_url)
    expect(heading).to_have_text("Credencial de outro município")
    expect(page.locator("#result .verdict")).to_have_attribute("data-verdict", "other_town")
    expect(page.locator("#result .verdict-reason")).to_have_text(
        "Código verdadeiro, mas emitido por outro município.")
    assert axe_violations(page, "another town's credential") == []
    context.close()


def test_a_qr_that_is_not_a_credential_has_the_verdict_as_heading(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    heading = _result_heading(page, "Cardápio do Bar do Zé: pastel R$ 8")
    expect(heading).to_have_text("Este QR não é uma credencial")
    expect(page.locator("#result .verdict")).to_have_attribute("data-verdict", "malformed")
    assert axe_violations(page, "not a credential") == []
    context.close()


def test_a_riders_badge_with_no_vehicle_has_the_riders_name_as_heading(browser, live_server,
                                                                       app, world):
    from inspector.credentials import issuing
    from inspector.extensions import db
    from tests import factories

    with app.app_context():
        rider = factories.driver("tapurah", "mototaxista", name="Carla Sem Moto")
        url = issuing.public_url(issuing.issue(rider).token)
        db.session.commit()
        db.session.remove()
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    heading = _result_heading(page, url)
    expect(heading).to_have_text("Carla Sem Moto")
    expect(page.locator("#result .situation .verdict-line")).to_contain_text(
        "Crachá de Carla Sem Moto.")
    assert axe_violations(page, "a rider's badge with no vehicle") == []
    context.close()
