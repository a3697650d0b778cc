"""A half-filled inspection survives the page going away (a reload, or the camera app pushing
the browser out of memory while a photo is taken, common on small Android phones): the app
opens again on the same inspection, answers, note, photo, who was driving, the ciente's name
and signature as they were; saving it sends that one inspection with that photo, and the draft
is forgotten. An inspection opened and left untouched is not brought back."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    find_by_plate,
    jpeg_file,
    pending,
    sign_on_canvas,
    start_online,
    wait_controlled,
)

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}
SIGNATURE_INK = """() => {
    const c = document.querySelector('#signature');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let dark = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 100) dark += 1;
    return dark;
}"""


def _reopen(page) -> None:
    page.reload()
    wait_controlled(page)


def test_a_half_filled_inspection_comes_back_after_a_reload(browser, live_server, world,
                                                            tmp_path):
    photo = tmp_path / "p.jpg"
    jpeg_file(photo, 7)
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    context.set_offline(True)
    find_by_plate(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    items.nth(0).locator("label.choice.fail").click()
    items.nth(0).locator(".note-box textarea").fill("Protetor ausente")
    items.nth(0).locator('input[type="file"]').set_input_files(str(photo))
    expect(items.nth(0).locator(".thumb img")).to_have_count(1)
    items.nth(1).locator("label.choice.ok").click()
    page.fill("#ack-name", "João Batista")
    sign_on_canvas(page)
    page.wait_for_timeout(600)                                   # kept a moment after each change

    _reopen(page)                                                # the page went away
    expect(page.locator("#screen-inspection")).to_be_visible()
    expect(page.locator("#toast")).to_have_text(
        "Vistoria em andamento recuperada: continue de onde parou.")
    items = page.locator("#checklist li.item")
    expect(items.nth(0).locator('input[value="fail"]')).to_be_checked()
    expect(items.nth(0).locator(".note-box textarea")).to_have_value("Protetor ausente")
    expect(items.nth(0).locator(".thumb img")).to_have_count(1)
    expect(items.nth(1).locator('input[value="ok"]')).to_be_checked()
    expect(items.nth(2).locator('input[value="ok"]')).not_to_be_checked()
    expect(page.locator("#ack-name")).to_have_value("João Batista")
    expect(page.locator("#driver-choices input")).to_be_checked()      # the one rider
    page.wait_for_function(SIGNATURE_INK.replace("return dark;", "return dark > 50;"))

    for i in range(2, items.count()):
        items.nth(i).locator("label.choice.ok").click()
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 1 foto aguardando envio")
    held = page.evaluate("""async () => {
        const [e] = await window.fieldApp.store.outboxEntries();
        return {item: e.body.items[0], ack: e.body.acknowledgement.name,
                signed: Boolean(e.body.acknowledgement.signature_png)};
    }""")
    assert held["item"]["result"] == "fail" and held["item"]["note"] == "Protetor ausente"
    assert len(held["item"]["photos"]) == 1 and held["ack"] == "João Batista" and held["signed"]

    _reopen(page)                                                # saved: nothing to bring back
    expect(page.locator("#screen-home")).to_be_visible()
    expect(page.locator("#screen-inspection")).to_be_hidden()
    assert pending(page) == (1, 1)
    context.close()


def test_an_inspection_opened_and_left_untouched_is_not_brought_back(browser, live_server,
                                                                     world):
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    find_by_plate(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    expect(page.locator("#checklist li.item").first).to_be_visible()
    page.wait_for_timeout(600)
    _reopen(page)
    expect(page.locator("#screen-home")).to_be_visible()
    expect(page.locator("#screen-inspection")).to_be_hidden()
    context.close()
