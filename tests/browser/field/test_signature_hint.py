"""The ciente's signature box says what it is for: the rider handed the phone reads
"Assinatura de quem dá o ciente: assine com o dedo no quadro abaixo." right above it, not an empty
dashed box."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import find_by_plate, start_online

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}


def test_the_signature_box_says_who_signs_and_how(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    context.set_offline(True)
    find_by_plate(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    canvas = page.locator("#signature")
    hint = page.locator("#screen-inspection").get_by_text(
        "Assinatura de quem dá o ciente: assine com o dedo no quadro abaixo.")
    hint.scroll_into_view_if_needed()
    expect(hint).to_be_visible()
    h, c = hint.bounding_box(), canvas.bounding_box()
    assert h["y"] + h["height"] <= c["y"] + 1 and c["y"] - (h["y"] + h["height"]) < 40, (h, c)
    expect(page.locator("#signature")).to_have_attribute("aria-describedby", "signature-hint")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    context.close()
