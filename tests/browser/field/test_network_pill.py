"""The network pill in the field app's bar speaks Portuguese both ways: "Conectado" with
internet, "Sem internet" without (never the English "Online")."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser


def test_the_pill_says_conectado_online_and_sem_internet_offline(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    pill = page.locator("#net")
    expect(pill).to_have_text("Conectado")
    expect(pill).not_to_have_class("net offline")
    context.set_offline(True)
    expect(pill).to_have_text("Sem internet")
    expect(pill).to_have_class("net offline")
    context.set_offline(False)
    expect(pill).to_have_text("Conectado")
    context.close()
