"""The message after "Salvar vistoria" says what happens next: with internet the inspection
is being sent ("Enviando…"), without it, it waits on the phone until there is internet."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import fill_checklist, find_by_plate, start_online

pytestmark = pytest.mark.browser

SAVED_ONLINE = "Vistoria salva no aparelho. Enviando…"
SAVED_OFFLINE = "Vistoria salva no aparelho. Será enviada quando houver internet."


def _inspect_and_save(page, plate):
    find_by_plate(page, plate)
    expect(page.locator("#result .plate")).to_contain_text(plate)
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, [], fail=0)
    page.get_by_role("button", name="Salvar vistoria").click()


def test_saved_online_the_toast_says_it_is_being_sent(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    _inspect_and_save(page, world["plate"])
    expect(page.locator("#toast")).to_have_text(SAVED_ONLINE)
    expect(page.locator("#sync-status")).to_contain_text("1 vistoria enviada")
    context.close()


def test_saved_offline_the_toast_says_it_waits_for_internet(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    _inspect_and_save(page, world["plate"])
    expect(page.locator("#toast")).to_have_text(SAVED_OFFLINE)
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")
    context.close()
