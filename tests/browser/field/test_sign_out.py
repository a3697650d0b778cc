"""The field app's menu on a shared phone (Debian Chromium, real server): links back to the
site, big enough to tap; "Sair" offline says it needs the network and changes nothing; online
it ends the session on the server and shows the signed-out state, while the inspection that
could not be sent stays on the phone with its photos, also across a reload with no network,
and goes to the server under its author when she signs in again."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    inspect_by_plate,
    jpeg_file,
    pending,
    server_inspections,
    sign_in,
    start_online,
    wait_controlled,
)

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}
TAP = 44
PUT_INSPECTION = re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$")

OUTBOX = """async () => {
    const store = window.fieldApp.store;
    const entries = await store.outboxEntries();
    let photos = 0;
    for (const e of entries) photos += (await store.photosOf(e.id)).length;
    return {entries: entries.map((e) => ({id: e.id, agentName: e.agentName})), photos};
}"""
SESSION = "() => fetch('/api/field/session', {cache: 'no-store'}).then((r) => r.status)"


def _menu(page):
    menu = page.locator("#menu")
    if menu.get_attribute("open") is None:
        menu.locator("summary").click()
    expect(menu.locator(".menu-panel")).to_be_visible()
    return menu


def test_menu_links_back_to_the_site_with_big_targets(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    summary = page.locator("#menu summary")
    box = summary.bounding_box()
    assert box["width"] >= TAP and box["height"] >= TAP, box
    assert box["x"] + box["width"] <= PHONE["width"]
    menu = _menu(page)
    links = {"Notificações": "/notificacoes", "Leis": "/leis", "Alterar senha": "/senha",
             "Início do site": "/inicio"}
    for name, href in links.items():
        link = menu.get_by_role("link", name=name)
        expect(link).to_have_attribute("href", href)
        b = link.bounding_box()
        assert b["width"] >= TAP and b["height"] >= TAP and b["x"] + b["width"] <= PHONE["width"], (name, b)
    out = menu.get_by_role("button", name="Sair")
    b = out.bounding_box()
    assert b["width"] >= TAP and b["height"] >= TAP, b
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]

    panel = menu.locator(".menu-panel").bounding_box()
    page.mouse.click(180, min(PHONE["height"] - 5, panel["y"] + panel["height"] + 40))
    # a tap outside closes it
    expect(menu.locator(".menu-panel")).to_be_hidden()
    _menu(page).get_by_role("link", name="Notificações").click()
    expect(page).to_have_url(re.compile(r"/notificacoes$"))
    context.close()


def test_sign_out_keeps_the_unsent_inspection_on_the_phone(browser, live_server, app, world,
                                                           tmp_path):
    files = [tmp_path / f"{n}.jpg" for n in range(2)]
    for n, f in enumerate(files):
        jpeg_file(f, 70 + n)
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)

    # No signal: an inspection waits; "Sair" says it needs the network and nothing changes.
    context.set_offline(True)
    inspect_by_plate(page, world["plate"], files)
    _menu(page).get_by_role("button", name="Sair").click()
    expect(page.locator("#sign-out-status")).to_contain_text("Sem internet: para sair é preciso conexão")
    expect(page.locator("#screen-home")).to_be_visible()
    assert pending(page) == (1, 2)
    page.keyboard.press("Escape")                                 # closes the menu
    expect(page.locator("#menu .menu-panel")).to_be_hidden()

    # Signal back, but the server never gets the inspection (the PUT is lost on the way).
    context.route(PUT_INSPECTION, lambda route: route.abort())
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#sync-status")).to_have_attribute("data-state", "waiting")
    assert page.evaluate(SESSION) == 200

    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    _menu(page).get_by_role("button", name="Sair").click()
    expect(page.locator("#signed-out-note")).to_be_visible()
    assert asked and asked[0].startswith("1 vistoria sua ainda não foi enviada")
    expect(page.locator("#screen-login")).to_be_visible()
    expect(page.locator("#screen-home")).to_be_hidden()
    expect(page.locator("#who")).to_have_text("")
    expect(page.locator("#session-expired")).to_be_hidden()
    assert page.evaluate(SESSION) == 401                           # the server forgot the session
    expect(page.locator("#pending-others")).to_contain_text(
        "1 vistoria de Ana Fiscal aguarda envio: entre como Ana Fiscal para enviá-la.")
    held = page.evaluate(OUTBOX)
    assert held["photos"] == 2 and [e["agentName"] for e in held["entries"]] == ["Ana Fiscal"]
    expect(page.locator("#screen-login").get_by_role("link", name="Entrar")).to_have_attribute(
        "href", re.compile(r"^/entrar\?next=(/|%2F)campo$"))      # the way back in
    page.locator(".bar-home").click()                               # no way around "Entrar"
    expect(page.locator("#screen-home")).to_be_hidden()
    expect(page).to_have_url(re.compile(r"/campo$"))

    # Reopened with no network: still signed out, the inspection still there.
    context.unroute(PUT_INSPECTION)  # nobody is signed in: nothing could be sent anyway
    context.set_offline(True)
    page.reload()
    wait_controlled(page)
    expect(page.locator("#signed-out-note")).to_be_visible()
    expect(page.locator("#screen-home")).to_be_hidden()
    assert page.evaluate(OUTBOX)["photos"] == 2
    assert server_inspections(app) == []

    # Ana signs in again: the inspection goes, under her name, with both photos.
    context.set_offline(False)
    page.goto("/campo")
    expect(page).to_have_url(re.compile(r"/entrar\?next=/campo$"))
    sign_in(page, world["agent"])
    wait_controlled(page)
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio",
                                                       timeout=30_000)
    [inspection] = server_inspections(app)
    assert len(inspection["photos"]) == 2
    expect(page.locator("#signed-out-note")).to_be_hidden()
    expect(page.locator("#screen-home")).to_be_visible()
    context.close()
