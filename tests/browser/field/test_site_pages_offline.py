"""Offline, a page of the site the service worker cannot serve opens the app's own "Sem
internet" page, never the browser's error page; the app and the laws
still open from the cache."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser


def test_a_site_page_offline_shows_the_apps_offline_page_with_the_way_back(browser,
                                                                         live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    page.goto("/notificacoes")                       # a site page: needs the network
    expect(page.locator("h1")).to_have_text("Sem internet")
    expect(page.get_by_role("link", name="Abrir a fiscalização")).to_be_visible()
    page.get_by_role("link", name="Abrir a fiscalização").click()
    expect(page.locator("#freshness")).to_contain_text("Dados atualizados em")   # from cache
    page.goto("/leis/tapurah-lei-406-2001-mototaxi")               # a precached law page still opens
    expect(page.locator("h1")).not_to_have_text("Sem internet")
    context.close()


def test_online_the_site_pages_are_the_servers(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    page.goto("/notificacoes")
    expect(page.locator("h1")).not_to_have_text("Sem internet")
    context.close()
