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


# ---------- a town with a licensed moto-taxi, its QR credential and an agent ----------

@pytest.fixture
def world(app):
    """Tapurah: an agent, a regular moto-taxi with a rider and its printed QR credential."""
    from inspector.extensions import db
    from inspector.services import credentials

    from ..credentials_data import regular_mototaxi

    with app.app_context():
        vehicle = regular_mototaxi("tapurah", plate="QBA1D23")
        credential = credentials.issue(vehicle)
        agent = factories.user("agent", "tapurah", name="Ana Fiscal")
        db.session.commit()
        return {"agent": agent.username, "vehicle_id": vehicle.id, "plate": vehicle.plate,
                "url": credentials.public_url(credential.token),
                "credential_id": credential.id}


def jpeg_file(path, seed: int) -> bytes:
    """A camera-like JPEG (noise, so no two are alike) written to `path`; its bytes."""
    import random

    rnd = random.Random(seed)
    img = Image.new("RGB", (320, 240))
    img.putdata([(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256))
                 for _ in range(320 * 240)])
    img.save(path, "JPEG", quality=80)
    return path.read_bytes()


def launch_with_camera(playwright_instance, y4m):
    from .camera import camera_args

    return playwright_instance.chromium.launch(executable_path=CHROMIUM,
                                               args=CHROMIUM_ARGS + camera_args(y4m))


def start_online(browser, live_server, username):
    """A signed-in agent whose phone holds the town snapshot, ready to go offline."""
    context, guard = new_context(browser, live_server)
    page = context.new_page()
    sign_in(page, username)
    open_app(page)
    expect(page.locator("#freshness")).to_contain_text("Dados atualizados em")
    return context, guard, page


def pending(page) -> tuple[int, int]:
    box = page.locator("#pending")
    return int(box.get_attribute("data-inspections")), int(box.get_attribute("data-photos"))


def fill_checklist(page, photos: list, fail: int = 2) -> list[str]:
    """Answer every item: the first `fail` ones "não conforme" with one photo each, the
    rest "conforme". Returns the failed items' ids."""
    items = page.locator("#checklist > li")
    expect(items.first).to_be_visible()
    failed = []
    for i in range(items.count()):
        item = items.nth(i)
        if i < fail:
            item.locator("label.choice.fail").click()
            item.locator("textarea").fill(f"Defeito {i + 1}")
            item.locator('input[type="file"]').set_input_files(str(photos[i]))
            expect(item.locator(".thumb img")).to_have_count(1)
            failed.append(item.get_attribute("data-item-id"))
        else:
            item.locator("label.choice.ok").click()
    return failed


def sign_on_canvas(page) -> None:
    page.locator("#signature").scroll_into_view_if_needed()
    box = page.locator("#signature").bounding_box()
    page.mouse.move(box["x"] + 20, box["y"] + box["height"] / 2)
    page.mouse.down()
    for step in range(1, 12):
        page.mouse.move(box["x"] + 20 + step * 25, box["y"] + box["height"] / 2 + (step % 3) * 15)
    page.mouse.up()


def sync_until_empty(page, timeout: int = 30_000) -> None:
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-text")).to_have_text(
        "0 vistorias e 0 fotos aguardando envio", timeout=timeout)


def server_inspections(app) -> list[dict]:
    """What the server holds, read from the database (never through the browser)."""
    from inspector.extensions import db
    from inspector.models import Inspection
    from inspector.services.inspections import photo_bytes

    with app.app_context():
        out = []
        for insp in db.session.scalars(db.select(Inspection).order_by(Inspection.id)):
            out.append({"uuid": insp.uuid, "status": insp.status.value,
                        "vehicle_id": insp.vehicle_id, "failed_items": insp.failed_items,
                        "ack_name": insp.ack_name, "has_signature": insp.ack_signature is not None,
                        "credential_id": insp.credential_id,
                        "photos": [{"uuid": p.uuid, "sha256": p.sha256, "data": photo_bytes(p),
                                    "item": p.item.item_id} for p in insp.photos]})
        db.session.remove()
        return out


# ---------- 2. offline: scan, fail two items with photos, save, reopen, sync ----------

def test_offline_scan_inspect_save_reopen_and_sync_delivers_one_inspection_with_its_photos(
        playwright_instance, live_server, app, world, tmp_path):
    import hashlib

    from .camera import qr_y4m

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

    failed = fill_checklist(page, photos, fail=2)
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
    assert len(inspection["photos"]) == 2
    for photo, original, item_id in zip(inspection["photos"], photo_bytes, failed):
        assert photo["sha256"] == hashlib.sha256(original).hexdigest()
        assert photo["data"] == original  # the original bytes, not a re-encoding
        assert photo["item"] == item_id
    assert guard.foreign() == []
    context.close()
    browser.close()


def inspect_by_plate(page, plate: str, photos: list) -> None:
    """Find the vehicle by typing its plate, fail two items with photos, save."""
    page.fill("#search-q", plate.lower())
    page.get_by_role("button", name="Buscar").click()
    expect(page.locator("#result .plate")).to_contain_text(plate)
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, photos, fail=2)
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 2 fotos aguardando envio")


def sync_by_hand_until_empty(page, attempts: int = 10) -> int:
    """Press "Sincronizar" until nothing waits (the agent retrying); how many presses."""
    for attempt in range(1, attempts + 1):
        page.get_by_role("button", name="Sincronizar").click()
        page.wait_for_function("() => !document.querySelector('#sync-status[data-state=sending]')")
        try:
            expect(page.locator("#pending-text")).to_have_text(
                "0 vistorias e 0 fotos aguardando envio", timeout=2_000)
            return attempt
        except AssertionError:
            continue
    raise AssertionError("the outbox never emptied")


def table_counts(app) -> tuple[int, int]:
    from inspector.extensions import db
    from inspector.models import Inspection, Photo

    with app.app_context():
        counts = (db.session.scalar(db.select(db.func.count(Inspection.id))),
                  db.session.scalar(db.select(db.func.count(Photo.id))))
        db.session.remove()
        return counts


# ---------- 3. lost acknowledgements ----------

def test_lost_acknowledgements_on_the_inspection_and_a_photo_leave_exactly_one_of_each(
        browser, live_server, app, world, tmp_path):
    context, guard, page = start_online(browser, live_server, world["agent"])
    photos = [tmp_path / "a.jpg", tmp_path / "b.jpg"]
    originals = [jpeg_file(photos[0], 3), jpeg_file(photos[1], 4)]
    context.set_offline(True)
    inspect_by_plate(page, world["plate"], photos)

    calls = {"inspection": 0, "photo": 0, "lost_inspection": 0, "lost_photo": 0}

    def lose_first(kind):
        def handler(route):
            if route.request.method != "PUT":
                return route.continue_()
            calls[kind] += 1
            if calls[f"lost_{kind}"] == 0:
                calls[f"lost_{kind}"] += 1
                route.fetch()  # the server commits...
                return route.abort("internetdisconnected")  # ...the phone never hears back
            return route.continue_()
        return handler

    context.route(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$"), lose_first("inspection"))
    context.route(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}/photos/[0-9a-f-]{36}$"),
                  lose_first("photo"))
    context.set_offline(False)
    sync_by_hand_until_empty(page)

    assert calls["lost_inspection"] == 1 and calls["lost_photo"] == 1
    assert calls["inspection"] >= 2 and calls["photo"] >= 2  # both were sent again
    assert table_counts(app) == (1, 2)
    [held] = server_inspections(app)
    assert held["status"] == "awaiting_review"
    assert sorted(p["data"] for p in held["photos"]) == sorted(originals)
    assert guard.foreign() == []
    context.close()


# ---------- 4. a 500 on one photo ----------

def test_a_server_error_on_one_photo_keeps_it_queued_and_only_it_is_sent_again(
        browser, live_server, app, world, tmp_path):
    context, guard, page = start_online(browser, live_server, world["agent"])
    photos = [tmp_path / "a.jpg", tmp_path / "b.jpg"]
    jpeg_file(photos[0], 5), jpeg_file(photos[1], 6)
    context.set_offline(True)
    inspect_by_plate(page, world["plate"], photos)
    first, second = page.evaluate("""async () => {
        const [entry] = await window.fieldApp.store.outboxEntries();
        return entry.body.items.flatMap(i => i.photos.map(p => p.id));
    }""")

    puts: list[str] = []
    context.on("request", lambda r: puts.append(r.url.rsplit("/", 1)[1])
               if r.method == "PUT" and "/api/field/" in r.url else None)
    broken = {"on": True}

    def server_error(route):
        if broken["on"]:
            return route.fulfill(status=500, json={"error": "Erro interno.", "status": 500})
        return route.continue_()

    context.route(f"**/photos/{second}", server_error)
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 1 foto aguardando envio")
    expect(page.locator("#sync-status")).to_contain_text("Nova tentativa")
    [held] = server_inspections(app)
    assert held["status"] == "incomplete"
    assert [p["data"] is not None for p in held["photos"]] == [True, False]

    broken["on"] = False
    sync_by_hand_until_empty(page)
    assert puts.count(first) == 1  # the photo that arrived was never sent again
    assert puts.count(second) >= 2
    assert table_counts(app) == (1, 2)
    [held] = server_inspections(app)
    assert held["status"] == "awaiting_review"
    assert guard.foreign() == []
    context.close()


# ---------- 5. two hundred inspections in one go ----------

def test_two_hundred_inspections_saved_offline_all_arrive_once(browser, live_server, app,
                                                              world):
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    ids = page.evaluate("""async (vehicleId) => {
        const { saveInspection } = await import('/static/js/field/inspection.js');
        const store = window.fieldApp.store;
        const vehicle = await store.getRow('vehicles', vehicleId);
        const checklist = await store.getRow('checklists', vehicle.service);
        const version = await store.getMeta('snapshotVersion');
        const ids = [];
        const start = Date.now() - 200 * 600000;
        for (let i = 0; i < 200; i++) {
            ids.push(await saveInspection({
                vehicle, snapshotVersion: version,
                startedAt: new Date(start + i * 600000).toISOString(),
                finishedAt: new Date(start + i * 600000 + 300000).toISOString(),
                answers: checklist.items.map(item => ({ itemId: item.id, result: 'ok' })),
            }));
        }
        return ids;
    }""", world["vehicle_id"])
    assert len(set(ids)) == 200
    page.reload()
    expect(page.locator("#pending-text")).to_have_text("200 vistorias e 0 fotos aguardando envio")

    puts: list[str] = []
    context.on("request", lambda r: puts.append(r.url.rsplit("/", 1)[1])
               if r.method == "PUT" and "/api/field/inspections/" in r.url else None)
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio",
                                                       timeout=90_000)
    expect(page.locator("#sync-status")).to_contain_text("200 vistoria(s) enviada(s)")
    held = server_inspections(app)
    assert sorted(h["uuid"] for h in held) == sorted(ids)
    assert sorted(puts) == sorted(ids)  # each sent exactly once: nothing failed, nothing resent
    assert guard.foreign() == []
    context.close()


# ---------- 6. offline verification tells codes apart ----------

def _tamper(token: str) -> str:
    """The same token with one character of its signed part changed (still base64url)."""
    i = 20
    return token[:i] + ("B" if token[i] != "B" else "C") + token[i + 1:]


@pytest.mark.parametrize("case", ["valid", "forged", "revoked", "expired", "unknown"])
def test_offline_scan_tells_forged_revoked_expired_and_unknown_codes_from_a_valid_one(
        playwright_instance, live_server, app, world, tmp_path, case):
    from datetime import date, timedelta

    from inspector.extensions import db
    from inspector.models import Credential, Vehicle
    from inspector.services import credentials

    from .camera import qr_y4m

    url = world["url"]
    with app.app_context():
        cred = db.session.get(Credential, world["credential_id"])
        if case == "forged":
            url = credentials.public_url(_tamper(cred.token))
        elif case == "revoked":
            credentials.revoke(cred, "Colete extraviado")
        elif case == "expired":
            credentials.revoke(cred, "Substituída para o teste")
            old = credentials.issue(db.session.get(Vehicle, world["vehicle_id"]),
                                    today=date.today() - timedelta(days=800))
            url = credentials.public_url(old.token)
        db.session.commit()
        db.session.remove()

    browser = launch_with_camera(playwright_instance, tmp_path / "code.y4m")
    context, guard, page = start_online(browser, live_server, world["agent"])
    if case == "unknown":  # issued after the phone's last refresh: genuine, not in its data
        with app.app_context():
            credentials.revoke(db.session.get(Credential, world["credential_id"]), "Reemitida")
            fresh = credentials.issue(db.session.get(Vehicle, world["vehicle_id"]))
            url = credentials.public_url(fresh.token)
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
