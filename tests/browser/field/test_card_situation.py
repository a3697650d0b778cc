"""The result card's top banner in Chromium, offline: the worst situation of what was scanned,
in words and colour. A suspended rider's vest QR reads "SUSPENSO até …" on top even though the
moto-taxi he rides is in order; the same moto-taxi found by plate stays REGULAR (nobody can
tell who is riding it) but says that only a registered rider may drive and names the one who
may not today; a rider and a moto-taxi in order read REGULAR."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import launch_with_camera, start_online

pytestmark = pytest.mark.browser

RIDER = "João Batista da Silva"


def _rider_qr(app, world, suspended_until: date | None = None) -> str:
    """Issue the rider's vest credential (optionally suspending him first, as enforcement
    leaves the row); its URL."""
    from inspector import audit
    from inspector.credentials import issuing
    from inspector.extensions import db
    from inspector.models import Status, Vehicle

    with app.app_context():
        rider = db.session.get(Vehicle, world["vehicle_id"]).drivers[0]
        if suspended_until:
            before = audit.snapshot(rider)
            rider.status, rider.suspended_until = Status.SUSPENDED, suspended_until
            audit.record("status_changed", "driver", rider.id, before=before,
                         after=audit.snapshot(rider), municipality_id=rider.municipality_id)
        url = issuing.public_url(issuing.issue(rider).token)
        db.session.commit()
        db.session.remove()
        return url


def _scan(playwright_instance, live_server, world, url, tmp_path):
    from tests.browser.camera import qr_y4m

    browser = launch_with_camera(playwright_instance, qr_y4m(url, tmp_path / "vest.y4m"))
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)                                  # the card reads the phone
    page.get_by_role("button", name="Ler QR code").click()
    card = page.locator("#result .card")
    expect(card.locator(".verdict")).to_have_attribute("data-verdict", "valid", timeout=20_000)
    return browser, context, guard, page, card


def _looks(banner) -> dict:
    return banner.evaluate("""(el) => {
        const title = el.querySelector('.situation-title');
        // right under the plate, prefix, model and colour the agent checks against the
        // vehicle, and the first thing after them
        const before = el.previousElementSibling;
        return {first: Boolean(before && before.classList.contains('vehicle-line')
                               && before.previousElementSibling.classList.contains('plate')
                               && before.previousElementSibling === el.parentElement.firstElementChild),
                size: parseFloat(getComputedStyle(title).fontSize),
                bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el).color};
    }""")


def test_a_suspended_riders_vest_qr_says_so_on_top(playwright_instance, live_server, app,
                                                   world, tmp_path):
    end = date.today() + timedelta(days=40)
    day = end.strftime("%d/%m/%Y")
    url = _rider_qr(app, world, suspended_until=end)
    browser, context, guard, page, card = _scan(playwright_instance, live_server, world, url,
                                                tmp_path)
    banner = card.locator(".situation")
    expect(banner).to_have_attribute("data-situation", "suspended")
    expect(banner.locator(".situation-title")).to_have_text(f"SUSPENSO até {day}")
    expect(banner.locator(".situation-lines > li")).to_have_text(
        [f"Condutor SUSPENSO até {day} — {RIDER}"])
    looks = _looks(banner)
    assert looks["first"]                             # the top of the card, under the plate
    assert looks["size"] >= 32                                  # readable at arm's length
    assert looks["bg"] == "rgb(176, 0, 32)" and looks["fg"] == "rgb(255, 255, 255)"
    # the moto-taxi itself is in order, said in words: no green REGULAR under the red banner
    expect(card.locator("[data-standing] .standing-title")).to_have_text("Veículo em dia")
    expect(card.locator("[data-standing]")).to_contain_text(
        f"O veículo {world['plate']} está em dia nos dados do aparelho; o problema acima é do condutor.")
    expect(card.locator(".standing-ok, .verdict-ok")).to_have_count(0)
    expect(card.locator(".verdict-title")).to_have_text(
        f"Credencial autêntica, mas o condutor não pode conduzir: SUSPENSO até {day}")
    expect(card.locator(".driver .suspended-until")).to_have_text(f"Registro: Suspenso até {day}")

    # The same moto-taxi by plate: its own standing, the law's rule, who may not ride it.
    page.locator("#screen-result [data-go=home]").click()
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    by_plate = page.locator("#result .card .situation")
    expect(by_plate).to_have_attribute("data-situation", "regular")
    expect(by_plate.locator(".situation-title")).to_have_text("REGULAR")
    expect(by_plate.locator(".situation-rule")).to_contain_text(
        "só permite conduzir com registro em dia")
    expect(by_plate.locator(".situation-rule a.cite")).to_have_text("Lei 406/2001, Art. 3, § 3º")
    expect(by_plate.locator(".situation-barred")).to_have_text(
        f"Não podem conduzir hoje: {RIDER} (SUSPENSO até {day}). "
        "Nenhum condutor vinculado pode conduzir.")
    expect(by_plate).not_to_contain_text("Condutor SUSPENSO")   # not claimed to be aboard
    assert guard.foreign() == []
    context.close()
    browser.close()


def test_a_rider_and_moto_taxi_in_order_read_regular(playwright_instance, live_server, app,
                                                     world, tmp_path):
    url = _rider_qr(app, world)
    browser, context, guard, page, card = _scan(playwright_instance, live_server, world, url,
                                                tmp_path)
    banner = card.locator(".situation")
    expect(banner).to_have_attribute("data-situation", "regular")
    expect(banner.locator(".situation-title")).to_have_text("REGULAR")
    expect(banner.locator(".situation-lines")).to_have_text(
        "Condutor e veículo em dia nos dados do aparelho.")
    expect(banner.locator(".situation-barred")).to_have_count(0)
    looks = _looks(banner)
    assert looks["first"] and looks["size"] >= 32
    assert looks["bg"] == "rgb(10, 107, 45)" and looks["fg"] == "rgb(255, 255, 255)"
    expect(card.locator(".verdict")).to_contain_text(f"Crachá de {RIDER}")
    assert guard.foreign() == []
    context.close()
    browser.close()
