"""The field app's "Placa ou prefixo" search in Chromium, offline: prefixes with letters
(Tapurah's TMT/MTC, Sapezal's TX...) are found as typed, with or without the hyphen, the
space and the zeros, and by their number alone; exact matches come first; each result names
its service in Portuguese ("moto-táxi", "táxi"), never the registry's code."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser


@pytest.fixture
def fleet(app):
    """Tapurah: an agent, three moto-taxis whose prefixes have letters, a digits-only one and a taxi."""
    from inspector.extensions import db

    with app.app_context():
        rows = [("QBX4P86", "TMT06", "mototaxi"), ("QBX4P87", "MTC06", "mototaxi"),
                ("QBX4P88", "TMT060", "mototaxi"), ("QBX4P89", "0006", "mototaxi"),
                ("NJK1234", "TX09", "taxi")]
        for plate, prefix, service in rows:
            factories.vehicle("tapurah", service, plate=plate, prefix=prefix)
        agent = factories.user("agent", "tapurah", name="Ana Fiscal")
        db.session.commit()
        return agent.username


def _search(page, text: str):
    page.fill("#search-q", text)
    page.get_by_role("button", name="Buscar").click()
    return page.locator("#search-results li")


def test_prefixes_with_letters_are_found_offline(browser, live_server, fleet):
    context, guard, page = start_online(browser, live_server, fleet)
    context.set_offline(True)

    # As painted on the door, any case, with a hyphen or a space: exact match first.
    for typed in ("TMT06", "tmt-06", "TMT 06"):
        rows = _search(page, typed)
        expect(rows).to_have_text(["QBX4P86 · prefixo TMT06 · moto-táxi",
                                   "QBX4P88 · prefixo TMT060 · moto-táxi"])
    # The start of a prefix, and its number without the zero.
    expect(_search(page, "TMT")).to_have_count(2)
    # "TMT6" is one vehicle: the card opens at once.
    page.fill("#search-q", "tmt6")
    page.get_by_role("button", name="Buscar").click()
    expect(page.locator("#result .plate")).to_contain_text("QBX4P86")
    expect(page.locator("#result .vehicle-line")).to_contain_text("Moto-táxi")
    page.locator("#screen-result [data-go=home]").click()

    # The number alone: every company's 06 and the digits-only 0006 (same number), by plate.
    for typed in ("06", "6"):
        expect(_search(page, typed)).to_have_text(["QBX4P86 · prefixo TMT06 · moto-táxi",
                                                   "QBX4P87 · prefixo MTC06 · moto-táxi",
                                                   "QBX4P89 · prefixo 0006 · moto-táxi"])
    # A taxi's lettered prefix (Sapezal's style) opens its card, labelled "Táxi".
    page.fill("#search-q", "TX09")
    page.get_by_role("button", name="Buscar").click()
    expect(page.locator("#result .plate")).to_contain_text("NJK1234")
    page.locator("#screen-result [data-go=home]").click()
    # A plate still works, and names the service in Portuguese.
    expect(_search(page, "qbx4p8")).to_have_text(["QBX4P86 · prefixo TMT06 · moto-táxi",
                                                  "QBX4P87 · prefixo MTC06 · moto-táxi",
                                                  "QBX4P88 · prefixo TMT060 · moto-táxi",
                                                  "QBX4P89 · prefixo 0006 · moto-táxi"])
    page.fill("#search-q", "NJK")
    page.get_by_role("button", name="Buscar").click()
    expect(page.locator("#result .vehicle-line")).to_contain_text("Táxi")
    page.locator("#screen-result [data-go=home]").click()
    expect(_search(page, "ZZZ9")).to_have_text(
        ["Nenhum veículo com essa placa ou prefixo nos dados do aparelho."])
    assert guard.foreign() == []
    context.close()
