"""Shared pieces of the field app's browser tests: a town with a QR-credentialed moto-taxi
and an agent, a context that records every request, and the steps an agent takes."""
from __future__ import annotations

import re
from datetime import date, timedelta

from PIL import Image
from playwright.sync_api import expect

from tests import factories
from tests.support.config import CHROMIUM, CHROMIUM_ARGS


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


def new_context(browser, live_server, **options):
    """A pt-BR context on the live server with the camera allowed (`options`: a phone's
    viewport, a time zone...), and the guard of the origins it reaches."""
    context = browser.new_context(base_url=live_server.url, locale="pt-BR",
                                  permissions=["camera"], **options)
    context.set_default_timeout(15_000)
    return context, OriginGuard(context, live_server.url)


def sign_in(page, username: str, next_path: str = "/campo") -> None:
    page.goto(f"/entrar?next={next_path}")
    page.fill("#username", username)
    page.fill("#password", factories.PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(re.escape(next_path) + "$"))
    # The address changes when the new page commits, before its stylesheets apply; a layout
    # measured then is the unstyled page's (CI saw 892 px on a 360 px phone).
    page.wait_for_load_state("load")


def wait_controlled(page) -> None:
    """Until the service worker controls the page and the app finished starting."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=20_000)
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=20_000)


def open_app(page) -> None:
    """Open /campo twice: the second load is under the service worker's control."""
    page.goto("/campo")
    reload_controlled(page)


def reload_controlled(page) -> None:
    """On /campo once loaded (the worker installing): until it controls the page, then the
    second load, under its control."""
    wait_controlled(page)
    page.reload()
    wait_controlled(page)



# ---------- a town with a licensed moto-taxi, its QR credential and an agent ----------

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
    from tests.browser.camera import camera_args

    return playwright_instance.chromium.launch(executable_path=CHROMIUM,
                                               args=CHROMIUM_ARGS + camera_args(y4m))


def start_online(browser, live_server, username, **options):
    """A signed-in agent whose phone holds the town snapshot, ready to go offline
    (`options`: of the browser context, as `new_context`)."""
    context, guard = new_context(browser, live_server, **options)
    page = context.new_page()
    sign_in(page, username)  # lands on /campo: the first load installs the service worker
    reload_controlled(page)
    expect(page.locator("#freshness")).to_contain_text("Dados atualizados em")
    return context, guard, page


def pending(page) -> tuple[int, int]:
    box = page.locator("#pending")
    return int(box.get_attribute("data-inspections")), int(box.get_attribute("data-photos"))


def fill_checklist(page, photos: list, fail: int = 2) -> list[str]:
    """Answer every item: the first `fail` ones "não conforme" with one photo each, the
    rest "conforme". Returns the failed items' ids."""
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    failed = []
    for i in range(items.count()):
        item = items.nth(i)
        if i < fail:
            item.locator("label.choice.fail").click()
            item.locator(".note-box textarea").fill(f"Defeito {i + 1}")
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
    from inspector.inspections.records import photo_bytes
    from inspector.models import Inspection

    with app.app_context():
        out = []
        for insp in db.session.scalars(db.select(Inspection).order_by(Inspection.id)):
            out.append({"uuid": insp.uuid, "status": insp.status.value,
                        "vehicle_id": insp.vehicle_id, "failed_items": insp.failed_items,
                        "ack_name": insp.ack_name, "has_signature": insp.ack_signature is not None,
                        "credential_id": insp.credential_id,
                        "location": (insp.lat, insp.lon, insp.accuracy_m),
                        "photos": [{"uuid": p.uuid, "sha256": p.sha256, "data": photo_bytes(p),
                                    "item": p.item.item_id} for p in insp.photos]})
        db.session.remove()
        return out


def find_by_plate(page, plate: str) -> None:
    """Type a plate in "Placa ou prefixo" and search (the card opens for a single match)."""
    page.fill("#search-q", plate.lower())
    page.get_by_role("button", name="Buscar").click()


def inspect_by_plate(page, plate: str, photos: list) -> None:
    """Find the vehicle by typing its plate, fail two items with photos, save."""
    find_by_plate(page, plate)
    expect(page.locator("#result .plate")).to_contain_text(plate)
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, photos, fail=2)
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 2 fotos aguardando envio")


def saved_offline(browser, live_server, world, tmp_path, seeds=(5, 6)):
    """An agent's phone, offline, holding one inspection of the world's vehicle with two failed
    items and a photo each (made from `seeds`); (context, guard, page, the photos' bytes)."""
    context, guard, page = start_online(browser, live_server, world["agent"])
    photos = [tmp_path / "a.jpg", tmp_path / "b.jpg"]
    originals = [jpeg_file(path, seed) for path, seed in zip(photos, seeds)]
    context.set_offline(True)
    inspect_by_plate(page, world["plate"], photos)
    return context, guard, page, originals


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


def expect_banner(card, situation: str, title: str, lines: list[str] | None = None):
    """The result card's situation banner says this: its data-situation, its title and, when
    given, its lines; returned for further checks."""
    banner = card.locator(".situation")
    expect(banner).to_have_attribute("data-situation", situation)
    expect(banner.locator(".situation-title")).to_have_text(title)
    if lines is not None:
        expect(banner.locator(".situation-lines > li")).to_have_text(lines)
    return banner


def open_card(page, plate):
    page.fill("#search-q", plate)
    page.get_by_role("button", name="Buscar").click()
    card = page.locator("#result")
    expect(card.locator(".plate")).to_contain_text(plate)
    return card


def suspend_licence_and_rider(app, world, licence_until, rider_until):
    """Suspend the moto-taxi's licence and its rider, as enforcement leaves the rows."""
    from inspector import audit
    from inspector.extensions import db
    from inspector.models import Licence, Status, Vehicle

    with app.app_context():
        vehicle = db.session.get(Vehicle, world["vehicle_id"])
        lic = db.session.scalar(db.select(Licence).filter_by(vehicle_id=vehicle.id))
        rider = vehicle.drivers[0]
        for row, kind, until in ((lic, "licence", licence_until), (rider, "driver", rider_until)):
            before = audit.snapshot(row)
            row.status, row.suspended_until = Status.SUSPENDED, until
            audit.record("status_changed", kind, row.id, before=before,
                         after=audit.snapshot(row), municipality_id=row.municipality_id)
        db.session.commit()
        number = lic.number
        db.session.remove()
        return number


def axe_violations(page, where: str) -> list[str]:
    """axe-core's violations on the field app as it is now (a card, the checklist), each as
    'where: rule (impact) at selectors'. Evaluated in the page (the app's CSP governs tags, not
    this), so the app's state is kept, unlike a reload with an init script."""
    from pathlib import Path

    axe = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
    if not page.evaluate("() => Boolean(window.axe)"):
        page.evaluate(f"() => {{ {axe.read_text()} }}")
    result = page.evaluate("async () => await axe.run(document)")
    assert len(result["passes"]) > 10, f"{where}: axe did not run"
    return [f"{where}: {v['id']} ({v['impact']}) at "
            + ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
            for v in result["violations"]]


def make_irregular(app, world) -> None:
    """Lapse the moto-taxi's insurance and revoke its company's permit, as the registry would."""
    from inspector.extensions import db
    from inspector.models import InsurancePolicy, Permit, Status, Vehicle

    with app.app_context():
        v = db.session.get(Vehicle, world["vehicle_id"])
        for policy in db.session.scalars(db.select(InsurancePolicy).filter_by(vehicle_id=v.id)):
            policy.valid_from = date.today() - timedelta(days=380)
            policy.valid_until = date.today() - timedelta(days=15)
        for permit in db.session.scalars(db.select(Permit).filter_by(holder_id=v.holder_id)):
            permit.status = Status.REVOKED
        db.session.commit()
        db.session.remove()
