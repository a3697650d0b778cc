"""The agent's field app in a real browser (Debian Chromium) against the real server.

What an agent on a roadside with no signal relies on: the app opens offline, a scanned
vehicle can be inspected and saved, and everything saved reaches the server exactly once.
"""
from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from .. import factories
from ..conftest import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser


# ---------- helpers ----------

class OriginGuard:
    """Records every request the context makes (pages and service worker alike)."""

    def __init__(self, context, origin: str):
        self.origin = origin
        self.urls: list[str] = []
        context.on("request", lambda r: self.urls.append(r.url))

    def foreign(self) -> list[str]:
        """Requests that left the origin (data: and blob: URLs never touch the network)."""
        return [u for u in self.urls
                if not u.startswith(self.origin + "/") and not u.startswith(("data:", "blob:"))]


def new_context(browser, live_server):
    context = browser.new_context(base_url=live_server.url, locale="pt-BR",
                                  permissions=["camera"])
    context.set_default_timeout(15_000)
    return context, OriginGuard(context, live_server.url)


def sign_in(page, username: str, next_path: str = "/campo") -> None:
    page.goto(f"/entrar?next={next_path}")
    page.fill("#username", username)
    page.fill("#password", factories.PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(re.escape(next_path) + "$"))


def wait_controlled(page) -> None:
    """Until the service worker controls the page and the app finished starting."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=20_000)
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=20_000)


def open_app(page) -> None:
    """Open /campo twice: the second load is under the service worker's control."""
    page.goto("/campo")
    wait_controlled(page)
    page.reload()
    wait_controlled(page)


# ---------- 1. installable, controlled, opens offline ----------

def test_shell_is_controlled_by_the_worker_has_a_valid_manifest_and_opens_offline(
        browser, live_server, make):
    agent = make(factories.user, "agent", "tapurah")
    context, guard = new_context(browser, live_server)
    page = context.new_page()
    sign_in(page, agent.username)
    open_app(page)

    # the worker's scope is the whole site, and the whole shell is in its cache
    scope = page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
    assert scope == live_server.url + "/"
    cached = page.evaluate("""async () => {
        const names = await caches.keys();
        const cache = await caches.open(names.find(n => n.startsWith('campo-shell-')));
        return (await cache.keys()).map(r => new URL(r.url).pathname);
    }""")
    for path in ("/campo", "/manifest.webmanifest", "/static/css/field.css",
                 "/static/js/field/app.js", "/static/js/field/sync.js",
                 "/static/vendor/htmx.min.js", "/static/vendor/idb.umd.js",
                 "/static/vendor/barcode-detector.js", "/static/vendor/zxing_reader.wasm",
                 "/static/icons/icon-512.png", "/static/icons/icon-maskable-512.png"):
        assert path in cached
    assert not any(p.startswith("/api/") for p in cached)

    # the manifest, as Chromium parses it: no errors, the fields an install needs
    cdp = context.new_cdp_session(page)
    parsed = cdp.send("Page.getAppManifest")
    assert parsed["errors"] == [], parsed["errors"]
    manifest = json.loads(parsed["data"])
    assert manifest["lang"] == "pt-BR"
    assert manifest["start_url"] == "/campo" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["name"] and manifest["short_name"]
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    seen = set()
    for icon in manifest["icons"]:
        answer = page.request.get(icon["src"])
        assert answer.status == 200 and answer.headers["content-type"] == "image/png"
        width, height = Image.open(io.BytesIO(answer.body())).size
        assert icon["sizes"] == f"{width}x{height}"
        seen.add((width, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (192, "maskable"), (512, "maskable")} <= seen

    # no network at all: the reload still shows the app, answered by the worker
    context.set_offline(True)
    response = page.reload()
    assert response.from_service_worker
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio")
    expect(page.locator("#net")).to_have_text("Sem internet")
    expect(page.get_by_role("button", name="Ler QR code")).to_be_visible()
    page.wait_for_function("() => document.body.dataset.ready === '1'")

    assert guard.foreign() == []
    context.close()


def test_a_new_version_waits_until_the_agent_accepts_the_update(browser, live_server, make,
                                                                 monkeypatch):
    from inspector.blueprints.field import routes

    agent = make(factories.user, "agent", "tapurah")
    context, guard = new_context(browser, live_server)
    page = context.new_page()
    sign_in(page, agent.username)
    open_app(page)
    before = page.evaluate("caches.keys()")

    monkeypatch.setattr(routes, "shell_version", lambda: "new-version-for-test")
    page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update())")
    banner = page.locator("#update")
    expect(banner).to_be_visible(timeout=20_000)
    expect(banner).to_contain_text("Atualização disponível")
    # until the agent says so, the old version keeps serving (nothing mid-inspection breaks)
    assert page.evaluate("caches.keys()").count("campo-shell-new-version-for-test") == 1

    with page.expect_event("load"):
        page.get_by_role("button", name="Atualizar agora").click()
    wait_controlled(page)
    after = page.evaluate("caches.keys()")
    assert after == ["campo-shell-new-version-for-test"]  # the old cache was deleted
    assert before != after
    assert guard.foreign() == []
    context.close()
