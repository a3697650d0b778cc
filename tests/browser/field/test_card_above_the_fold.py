"""On a 360×740 phone the vehicle's card is what the agent sees after a search: with nothing
waiting to be sent the upload box above it is one compact line (the counts and a smaller
"Sincronizar", ~60 px instead of ~236 px), so the plate is on screen and clear of the sticky
"Iniciar vistoria"; the box is full again as soon as something waits. What the keyboard
focuses on the card is brought into view above that sticky button, never under it (the
card's reasons and their articles, under the full box of a phone with an upload waiting)."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    fill_checklist,
    find_by_plate,
    make_irregular,
    open_card,
    start_online,
    wait_controlled,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}


def _phone(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    context.set_offline(True)
    return context, page


def test_with_nothing_waiting_the_plate_is_above_the_fold(browser, live_server, world):
    context, page = _phone(browser, live_server, world)
    box = page.locator("#pending")
    expect(box).to_have_class("pending is-idle")
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio")
    expect(page.locator("#last-send")).to_be_visible()        # home says when it last sent
    assert box.bounding_box()["height"] <= 130

    open_card(page, world["plate"])
    assert box.bounding_box()["height"] <= 70, box.bounding_box()
    expect(page.get_by_role("button", name="Sincronizar")).to_be_visible()
    expect(page.locator("#last-send")).to_be_hidden()
    plate = page.locator("#result .plate").bounding_box()
    button = page.get_by_role("button", name="Iniciar vistoria").bounding_box()
    assert plate["y"] >= 0 and plate["y"] + plate["height"] <= PHONE["height"], plate
    assert plate["y"] + plate["height"] <= button["y"], (plate, button)   # not under it
    context.close()


def test_with_an_inspection_waiting_the_box_is_full_again(browser, live_server, world):
    context, page = _phone(browser, live_server, world)
    find_by_plate(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, [], fail=0)
    page.get_by_role("button", name="Salvar vistoria").click()
    box = page.locator("#pending")
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")
    expect(box).to_have_class("pending has-pending")
    sync = page.get_by_role("button", name="Sincronizar")
    expect(sync).to_be_visible()
    assert sync.bounding_box()["height"] >= 48
    context.close()


def _one_waiting(page, vehicle_id) -> None:
    """An inspection saved on the phone (every item "conforme"), the counters redrawn."""
    page.evaluate("""async (vehicleId) => {
        const { saveInspection } = await import('/static/js/field/inspection.js');
        const store = window.fieldApp.store;
        const vehicle = await store.getRow('vehicles', vehicleId);
        const checklist = await store.getRow('checklists', vehicle.service);
        await saveInspection({ vehicle, startedAt: new Date().toISOString(),
            answers: checklist.items.map(i => ({ itemId: i.id, result: 'ok' })) });
    }""", vehicle_id)
    page.reload()
    wait_controlled(page)
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")


def test_the_keyboard_focus_on_the_card_is_never_under_the_sticky_button(browser, live_server,
                                                                         app, world):
    make_irregular(app, world)     # two reasons with their articles: a long card
    context, page = _phone(browser, live_server, world)
    _one_waiting(page, world["vehicle_id"])     # the upload box full above the card
    card = open_card(page, world["plate"])
    card.locator(".card-details > summary").click()
    start = page.get_by_role("button", name="Iniciar vistoria")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.locator(".bar-home").focus()          # from the top, as a keyboard user starts
    seen = 0
    for _ in range(40):
        page.keyboard.press("Tab")
        focused = page.evaluate("""() => { const e = document.activeElement;
            if (!e || !e.closest('#result')) return null;
            const r = e.getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, text: e.textContent}; }""")
        if focused is None:
            if seen:
                break
            continue
        seen += 1
        top = start.bounding_box()["y"]
        assert focused["bottom"] <= top or focused["top"] >= top + start.bounding_box()["height"], \
            (focused, top)
    assert seen >= 6   # three articles in the banner, the summary, two inside it
    context.close()
