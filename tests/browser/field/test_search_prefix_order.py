"""The field app's search by the start of a prefix ("TMT0", "TX0") lists the vehicles it found
by prefix in the prefixes' order (TMT01, TMT03, TMT06), as an agent reads them on the doors,
not in the order of their plates; a plate still lists by plate."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser


@pytest.fixture
def fleet(app):
    """Tapurah: moto-taxis whose plates run the other way round from their prefixes, taxis too."""
    from inspector.extensions import db

    with app.app_context():
        rows = [("QBA1A01", "TMT06", "mototaxi"), ("QBA1A02", "TMT03", "mototaxi"),
                ("QBA1A03", "TMT10", "mototaxi"), ("QBA1A04", "TMT01", "mototaxi"),
                ("NJK1A01", "TX091", "taxi"), ("NJK1A02", "TX09", "taxi"),
                ("NJK1A03", "TX010", "taxi"), ("NJK1A04", "TX02", "taxi")]
        for plate, prefix, service in rows:
            factories.vehicle("tapurah", service, plate=plate, prefix=prefix)
        agent = factories.user("agent", "tapurah", name="Ana Fiscal")
        db.session.commit()
        return agent.username


def _search(page, text: str):
    page.fill("#search-q", text)
    page.get_by_role("button", name="Buscar").click()
    return page.locator("#search-results li")


def test_prefix_matches_are_listed_by_prefix_and_plate_matches_by_plate(browser, live_server,
                                                                       fleet):
    context, guard, page = start_online(browser, live_server, fleet)
    context.set_offline(True)

    expect(_search(page, "TMT0")).to_have_text(["QBA1A04 · prefixo TMT01 · moto-táxi",
                                                "QBA1A02 · prefixo TMT03 · moto-táxi",
                                                "QBA1A01 · prefixo TMT06 · moto-táxi"])
    # Natural order: 6 before 10.
    expect(_search(page, "tmt")).to_have_text(["QBA1A04 · prefixo TMT01 · moto-táxi",
                                               "QBA1A02 · prefixo TMT03 · moto-táxi",
                                               "QBA1A01 · prefixo TMT06 · moto-táxi",
                                               "QBA1A03 · prefixo TMT10 · moto-táxi"])
    expect(_search(page, "TX0")).to_have_text(["NJK1A04 · prefixo TX02 · táxi",
                                               "NJK1A02 · prefixo TX09 · táxi",
                                               "NJK1A03 · prefixo TX010 · táxi",
                                               "NJK1A01 · prefixo TX091 · táxi"])
    # The exact prefix first, then those starting with it.
    expect(_search(page, "TX09")).to_have_text(["NJK1A02 · prefixo TX09 · táxi",
                                                "NJK1A01 · prefixo TX091 · táxi"])
    # A plate lists by plate.
    expect(_search(page, "qba1a0")).to_have_text(["QBA1A01 · prefixo TMT06 · moto-táxi",
                                                  "QBA1A02 · prefixo TMT03 · moto-táxi",
                                                  "QBA1A03 · prefixo TMT10 · moto-táxi",
                                                  "QBA1A04 · prefixo TMT01 · moto-táxi"])
    assert guard.foreign() == []
    context.close()
