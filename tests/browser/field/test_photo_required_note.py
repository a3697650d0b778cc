"""On the checklist, "Foto obrigatória para este item." (red, bold) is said on a failed item
only while it has no photo: once the photo is attached it goes away, and it comes back if the
agent removes the photo (the "faltam" summary follows too)."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import find_by_plate, jpeg_file, start_online

pytestmark = pytest.mark.browser


def test_the_photo_required_note_goes_once_the_photo_is_attached(browser, live_server, world,
                                                                 tmp_path):
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    find_by_plate(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    item = items.first
    item.locator("label.choice.fail").click()
    note = item.locator(".photo-required")
    expect(note).to_have_text("Foto obrigatória para este item.")
    expect(note).to_be_visible()

    # saving shows what is missing; then the photo is taken
    page.get_by_role("button", name="Salvar vistoria").click()
    gaps = page.locator("#inspection-gaps")
    expect(gaps).to_contain_text("foto em 1")
    photo = tmp_path / "a.jpg"
    jpeg_file(photo, 3)
    item.locator('input[type="file"]').set_input_files(str(photo))
    expect(item.locator(".thumb img")).to_have_count(1)
    expect(note).to_be_hidden()
    expect(gaps).not_to_contain_text("foto em 1")

    # the photo removed: the note and the gap are back
    item.locator(".thumb").get_by_role("button", name="Remover").click()
    expect(item.locator(".thumb img")).to_have_count(0)
    expect(note).to_be_visible()
    expect(gaps).to_contain_text("foto em 1")
    context.close()
