"""The agent's field app in a real browser (Debian Chromium) against the real server.

What an agent on a roadside with no signal relies on: the app opens offline, a scanned
code is verified with no network, a vehicle can be inspected and saved, and what was
saved reaches the server. The sync's failure cases are in test_sync_flaky_network.py.
"""
from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import (
    fill_checklist,
    jpeg_file,
    launch_with_camera,
    new_context,
    open_app,
    pending,
    server_inspections,
    sign_in,
    sign_on_canvas,
    start_online,
    sync_until_empty,
    wait_controlled,
)

pytestmark = pytest.mark.browser

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


# ---------- 2. offline: scan, fail two items with photos, save, reopen, sync ----------

def test_offline_scan_inspect_save_reopen_and_sync_delivers_one_inspection_with_its_photos(
        playwright_instance, live_server, app, world, tmp_path):
    import hashlib

    from tests.browser.camera import qr_y4m

    browser = launch_with_camera(playwright_instance, qr_y4m(world["url"], tmp_path / "qr.y4m"))
    context, guard, page = start_online(browser, live_server, world["agent"])
    photos = [tmp_path / "defeito-1.jpg", tmp_path / "defeito-2.jpg"]
    photo_bytes = [jpeg_file(photos[0], 1), jpeg_file(photos[1], 2)]

    context.set_offline(True)
    page.get_by_role("button", name="Ler QR code").click()
    card = page.locator("#result")
    expect(card.locator(".verdict")).to_have_attribute("data-verdict", "valid", timeout=20_000)
    expect(card.locator(".plate")).to_contain_text("QBA1D23")
    expect(card).to_contain_text("João Batista da Silva")
    expect(card.locator(".standing")).to_contain_text("REGULAR")
    page.get_by_role("button", name="Iniciar vistoria").click()
    expect(page.locator("#inspection-law")).to_contain_text("Lei 406/2001")

    # each item's article is one tap away, its words readable with no network
    cite = page.locator("#checklist li.item").first.locator(".item-cite")
    cite.locator("summary").click()
    expect(cite.locator(".item-quote")).to_be_visible()
    assert re.fullmatch(r"/leis/tapurah-lei-406-2001-mototaxi#art-[\w-]+",
                        cite.locator(".item-law").get_attribute("href"))

    failed = fill_checklist(page, photos, fail=2)
    context.grant_permissions(["camera", "geolocation"])
    context.set_geolocation({"latitude": -12.7347, "longitude": -56.5123, "accuracy": 9})
    page.get_by_role("button", name="Registrar posição").click()
    expect(page.locator("#gps-status")).to_contain_text("Posição registrada (±9 m)")
    sign_on_canvas(page)
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 2 fotos aguardando envio")
    assert server_inspections(app) == []

    # the agent closes the app and opens it again, still with no signal
    page.close()
    page = context.new_page()
    response = page.goto("/campo")
    assert response.from_service_worker
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 2 fotos aguardando envio")
    assert pending(page) == (1, 2)

    context.set_offline(False)
    sync_until_empty(page)

    held = server_inspections(app)
    assert len(held) == 1
    inspection = held[0]
    assert inspection["vehicle_id"] == world["vehicle_id"]
    assert inspection["status"] == "awaiting_review"
    assert inspection["failed_items"] == 2
    assert inspection["credential_id"] == world["credential_id"]  # found by its QR
    assert inspection["ack_name"] == "João Batista da Silva" and inspection["has_signature"]
    assert inspection["location"] == (-12.7347, -56.5123, 9)
    assert len(inspection["photos"]) == 2
    for photo, original, item_id in zip(inspection["photos"], photo_bytes, failed):
        assert photo["sha256"] == hashlib.sha256(original).hexdigest()
        assert photo["data"] == original  # the original bytes, not a re-encoding
        assert photo["item"] == item_id
    assert guard.foreign() == []
    context.close()
    browser.close()


# ---------- 6. offline verification tells codes apart ----------

def _tamper(token: str) -> str:
    """The same token with one character of its signed part changed (still base64url)."""
    i = 20
    return token[:i] + ("B" if token[i] != "B" else "C") + token[i + 1:]


@pytest.mark.parametrize("case", ["valid", "forged", "revoked", "expired", "unknown"])
def test_offline_scan_tells_forged_revoked_expired_and_unknown_codes_from_a_valid_one(
        playwright_instance, live_server, app, world, tmp_path, case):
    from datetime import date, timedelta

    from inspector.credentials import issuing
    from inspector.extensions import db
    from inspector.models import Credential, Vehicle
    from tests.browser.camera import qr_y4m

    url = world["url"]
    with app.app_context():
        cred = db.session.get(Credential, world["credential_id"])
        if case == "forged":
            url = issuing.public_url(_tamper(cred.token))
        elif case == "revoked":
            issuing.revoke(cred, "Colete extraviado")
        elif case == "expired":
            issuing.revoke(cred, "Substituída para o teste")
            old = issuing.issue(db.session.get(Vehicle, world["vehicle_id"]),
                                    today=date.today() - timedelta(days=800))
            url = issuing.public_url(old.token)
        db.session.commit()
        db.session.remove()

    browser = launch_with_camera(playwright_instance, tmp_path / "code.y4m")
    context, guard, page = start_online(browser, live_server, world["agent"])
    if case == "unknown":  # issued after the phone's last refresh: genuine, not in its data
        with app.app_context():
            issuing.revoke(db.session.get(Credential, world["credential_id"]), "Reemitida")
            fresh = issuing.issue(db.session.get(Vehicle, world["vehicle_id"]))
            url = issuing.public_url(fresh.token)
            db.session.commit()
            db.session.remove()
    qr_y4m(url, tmp_path / "code.y4m")  # Chromium opens the file when the camera starts
    context.set_offline(True)
    page.get_by_role("button", name="Ler QR code").click()
    verdict = page.locator("#result .verdict")
    expect(verdict).to_have_attribute("data-verdict", case, timeout=20_000)
    title = {"valid": "Credencial válida", "forged": "FALSO", "revoked": "CANCELADA",
             "expired": "VENCIDA", "unknown": "desconhecida"}[case]
    expect(verdict).to_contain_text(title)
    start = page.get_by_role("button", name="Iniciar vistoria")
    if case == "forged":
        expect(start).to_be_hidden()  # a forged code names no vehicle worth trusting
        expect(page.locator("#result .plate")).to_have_count(0)
    else:
        expect(page.locator("#result .plate")).to_contain_text(world["plate"])
    assert guard.foreign() == []
    context.close()
    browser.close()


# ---------- signing in, refusals, fresh data, the photo fallback ----------

def test_opening_the_app_signed_out_and_online_goes_to_the_login_and_back(browser, live_server,
                                                                          world):
    context, guard = new_context(browser, live_server)
    page = context.new_page()
    page.goto("/campo")
    expect(page).to_have_url(re.compile(r"/entrar\?next=(/|%2F)campo$"))
    page.fill("#username", world["agent"])
    page.fill("#password", factories.PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(r"/campo$"))
    expect(page.locator("#who")).to_contain_text("Ana Fiscal · Tapurah")
    context.close()


def test_without_a_working_camera_a_photo_of_the_code_is_read_offline(browser, live_server,
                                                                      world, tmp_path):
    from tests.browser.camera import qr_image

    context, guard, page = start_online(browser, live_server, world["agent"])  # no camera
    context.set_offline(True)
    page.get_by_role("button", name="Ler QR code").click()
    expect(page.locator("#scan-status")).to_contain_text("Fotografar o código")
    photo = tmp_path / "sticker.png"
    qr_image(world["url"]).save(photo)
    page.locator("#scan-file").set_input_files(str(photo))
    expect(page.locator("#result .verdict")).to_have_attribute("data-verdict", "valid")
    expect(page.locator("#result .plate")).to_contain_text(world["plate"])
    assert guard.foreign() == []
    context.close()


def test_the_back_button_returns_home_and_asks_before_dropping_a_half_filled_inspection(
        browser, live_server, world):
    context, guard, page = start_online(browser, live_server, world["agent"])
    home, inspection = page.locator("#screen-home"), page.locator("#screen-inspection")
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    expect(page.locator("#result .plate")).to_be_visible()
    page.go_back()
    expect(home).to_be_visible()

    page.get_by_role("button", name="Buscar").click()
    page.get_by_role("button", name="Iniciar vistoria").click()
    page.locator("#checklist li.item").first.locator("label.choice.ok").click()
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.go_back()
    expect(inspection).to_be_visible()  # the agent said no: nothing lost
    expect(page.locator("#checklist li.item").first.locator("input[value=ok]")).to_be_checked()
    assert asked == ["Sair da vistoria? O que foi preenchido será perdido."]
    page.once("dialog", lambda d: d.accept())
    page.go_back()
    expect(home).to_be_visible()
    context.close()
