"""The "faltam" summary on top of the checklist (a 360×740 phone): each item number is a link
to its gap, and each is a tap target of at least 44×44 px (WCAG 2.5.5), not a 32 px square."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import find_by_plate, start_online

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}


def test_each_gap_link_is_at_least_44_px_square(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    context.set_offline(True)
    find_by_plate(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    items.first.locator("label.choice.ok").click()
    page.get_by_role("button", name="Salvar vistoria").click()
    links = page.locator("#inspection-gaps a")
    expect(links.first).to_be_visible()
    page.locator("#inspection-gaps").get_by_role("button", name="ver todos").click()  # folded
    expect(links).to_have_count(items.count() - 1)
    links.first.scroll_into_view_if_needed()
    for i in range(min(links.count(), 6)):
        links.nth(i).scroll_into_view_if_needed()
        box = links.nth(i).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (i, box)
    # a tap on a number still goes to its item
    links.nth(1).click()
    page.wait_for_function(
        "(n) => document.activeElement && document.activeElement.closest('li.item')"
        " && document.activeElement.closest('li.item').id === 'item-' + n",
        arg=links.nth(1).inner_text())
    context.close()
