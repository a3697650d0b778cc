"""Days offline, in Chromium: the phone judges every dated requirement the law makes (the
snapshot's `checklists[].requirements`, each with its article) against its own day, from the
rows it holds — also those beyond the server's 30 days of warnings.

- The moto-taxi's insurance ends 35 days after the refresh; 40 days later, offline, the card
  reads IRREGULAR naming the insurance, its day and Lei 406/2001, Art. 17.
- A licence suspended until 5 days after the refresh: 10 days later it no longer reads SUSPENSO.
- The rider's CNH ends 5 days after the refresh: 10 days later his vest QR says CNH VENCIDA with
  the article (Art. 20, I).
- A rider with a second moto-taxi whose insurance was renewed in advance (the new policy is
  in the registry): 20 days later, after the old policy's end, both read in order: REGULAR.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import expect_banner, launch_with_camera, start_online

pytestmark = pytest.mark.browser

RIDER = "João Batista da Silva"
SINCE = "depois da última atualização dos dados do aparelho"


def _fmt(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def _change(app, world, change) -> None:
    """Apply `change(vehicle)` -> the rows it changed, each with its audit entry (as the
    registry writes one for every change)."""
    from inspector import audit
    from inspector.extensions import db
    from inspector.models import Vehicle

    with app.app_context():
        vehicle = db.session.get(Vehicle, world["vehicle_id"])
        for entity, row, before in change(vehicle):
            db.session.flush()
            audit.record("updated", entity, row.id, before=before, after=audit.snapshot(row),
                         municipality_id=row.municipality_id)
        db.session.commit()
        db.session.remove()


def _offline_days_later(page, context, days: int) -> None:
    context.set_offline(True)
    page.clock.set_fixed_time(datetime.now() + timedelta(days=days))
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=20_000)


def _by_plate(browser, live_server, world, days: int):
    context, guard, page = start_online(browser, live_server, world["agent"])
    _offline_days_later(page, context, days)
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    card = page.locator("#result .card")
    expect(card.locator(".plate")).to_contain_text(world["plate"])
    return context, guard, card


def _by_vest(playwright_instance, live_server, app, world, tmp_path, days: int):
    from inspector.credentials import issuing
    from inspector.extensions import db
    from inspector.models import Vehicle
    from tests.browser.camera import qr_y4m

    with app.app_context():
        rider = db.session.get(Vehicle, world["vehicle_id"]).drivers[0]
        url = issuing.public_url(issuing.issue(rider).token)
        db.session.commit()
        db.session.remove()
    browser = launch_with_camera(playwright_instance, qr_y4m(url, tmp_path / "vest.y4m"))
    context, guard, page = start_online(browser, live_server, world["agent"])
    _offline_days_later(page, context, days)
    page.get_by_role("button", name="Ler QR code").click()
    card = page.locator("#result .card")
    expect(card.locator(".verdict")).to_have_attribute("data-verdict", "valid", timeout=20_000)
    return browser, context, guard, card


def test_insurance_ended_beyond_the_warnings_reads_irregular_with_its_article(
        browser, live_server, app, world):
    end = date.today() + timedelta(days=35)

    def shorten(vehicle):
        from inspector import audit

        policy = vehicle.insurance_policies[0]
        before = audit.snapshot(policy)
        policy.valid_until = end
        return [("insurance", policy, before)]

    _change(app, world, shorten)
    context, guard, card = _by_plate(browser, live_server, world, days=40)
    banner = expect_banner(card, "irregular", "IRREGULAR", [
        f"Veículo {world['plate']} IRREGULAR: Seguro obrigatório vencido em {_fmt(end)}, {SINCE} "
        "(Lei 406/2001, Art. 17)"])
    expect(banner.locator(".situation-lines a.cite")).to_have_attribute(
        "href", "/leis/tapurah-lei-406-2001-mototaxi#art-17")
    expect(card.locator(".standing-title")).to_have_text("IRREGULAR")
    expect(card.locator(".reasons li")).to_contain_text([
        f"Seguro obrigatório vencido em {_fmt(end)}, {SINCE} (Lei 406/2001, Art. 17)"])
    expect(card.locator(".expiries li", has_text="Seguro")).to_contain_text(f"{_fmt(end)} (vencido)")
    assert guard.foreign() == []
    context.close()


def test_a_suspension_that_ended_offline_no_longer_reads_suspended(browser, live_server, app, world):
    last_day = date.today() + timedelta(days=5)

    def suspend(vehicle):
        from inspector import audit
        from inspector.models import Status

        lic = vehicle.current_licence
        before = audit.snapshot(lic)
        lic.status, lic.suspended_until = Status.SUSPENDED, last_day
        return [("licence", lic, before)]

    _change(app, world, suspend)
    context, guard, page = start_online(browser, live_server, world["agent"])
    page.fill("#search-q", world["plate"])          # on the day of the refresh: SUSPENSO
    page.get_by_role("button", name="Buscar").click()
    expect(page.locator("#result .card .situation-title")).to_have_text(
        f"SUSPENSO até {_fmt(last_day)}")
    _offline_days_later(page, context, 10)
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    card = page.locator("#result .card")
    banner = expect_banner(card, "regular", "REGULAR")
    expect(banner).not_to_contain_text("SUSPENSO")
    expect(card.locator(".standing-title")).to_have_text("REGULAR")
    expect(card.locator(".warnings li", has_text="suspensão terminou")).to_contain_text(
        f"suspensão terminou em {_fmt(last_day)}, {SINCE}")
    assert guard.foreign() == []
    context.close()


def test_the_riders_cnh_expired_offline_names_the_law(playwright_instance, live_server, app,
                                                      world, tmp_path):
    end = date.today() + timedelta(days=5)

    def expire(vehicle):
        from inspector import audit

        rider = vehicle.drivers[0]
        before = audit.snapshot(rider)
        rider.cnh_expiry = end
        return [("driver", rider, before)]

    _change(app, world, expire)
    browser, context, guard, card = _by_vest(playwright_instance, live_server, app, world,
                                             tmp_path, days=10)
    banner = card.locator(".situation")
    expect(banner).to_have_attribute("data-situation", "irregular")
    expect(banner.locator(".situation-lines > li")).to_have_text([
        f"Condutor CNH VENCIDA em {_fmt(end)} (Lei 406/2001, Art. 20, I) — {RIDER}"])
    expect(banner.locator(".situation-lines a.cite")).to_have_attribute(
        "href", "/leis/tapurah-lei-406-2001-mototaxi#art-20-i")
    assert guard.foreign() == []
    context.close()
    browser.close()


def test_a_second_moto_taxi_insured_in_advance_stays_regular(playwright_instance, live_server,
                                                             app, world, tmp_path):
    today = date.today()

    def second(vehicle):
        from inspector import audit
        from tests import factories

        rider = vehicle.drivers[0]
        other = factories.vehicle("tapurah", "mototaxi", holder=vehicle.holder, plate="QBB2E34",
                                  last_vistoria_on=today - timedelta(days=10))
        factories.licence(other)
        factories.insurance(other, valid_from=today - timedelta(days=355),
                            valid_until=today + timedelta(days=10))
        factories.insurance(other, valid_from=today + timedelta(days=11),
                            valid_until=today + timedelta(days=376))
        before = audit.snapshot(rider)
        rider.vehicles.append(other)
        return [("vehicle", other, {}), ("driver", rider, before)]

    _change(app, world, second)
    browser, context, guard, card = _by_vest(playwright_instance, live_server, app, world,
                                             tmp_path, days=20)
    banner = expect_banner(card, "regular", "REGULAR")
    expect(banner.locator(".situation-lines")).to_have_text(
        "Condutor e veículo em dia nos dados do aparelho.")
    expect(card.locator(".standing-title")).to_have_text("REGULAR")
    assert guard.foreign() == []
    context.close()
    browser.close()


AGREE = """async () => {
    const registry = await import('/static/js/field/registry.js');
    const store = await import('/static/js/field/db.js');
    const { standingToday } = await import('/static/js/field/situation.js');
    const ids = (rows) => rows.map((r) => r.rule_id).sort();
    const out = [];
    for (const stored of await store.allRows('standing')) {
        const vehicle = await store.getRow('vehicles', stored.vehicle_id);
        const today = standingToday(stored, await registry.vehicleFacts(vehicle));
        out.push({ plate: vehicle.plate,
            server: [stored.status, ids(stored.reasons), ids(stored.warnings), stored.suspended_until],
            phone: [today.status, ids(today.reasons), ids(today.warnings), today.suspended_until] });
    }
    return out;
}"""


def test_on_the_day_of_the_refresh_the_phone_agrees_with_the_server(browser, live_server, app,
                                                                     world):
    """The phone's rule for each requirement is the engine's: on the refresh day it reaches the
    server's verdict (status, findings, end of suspension) for vehicles in every state."""
    from inspector.extensions import db
    from inspector.models import Status, Vehicle
    from tests import factories

    today = date.today()
    with app.app_context():
        base = db.session.get(Vehicle, world["vehicle_id"])
        holder = base.holder

        def moto(plate, **kw):
            v = factories.vehicle("tapurah", "mototaxi", holder=holder, plate=plate,
                                  last_vistoria_on=kw.pop("vistoria", today - timedelta(days=20)),
                                  **kw)
            return v

        v = moto("QBC1A01")                                      # licence expired
        factories.licence(v, valid_until=today - timedelta(days=3))
        factories.insurance(v)
        v = moto("QBC1A02")                                      # licence suspended with an end
        factories.licence(v, status=Status.SUSPENDED, suspended_until=today + timedelta(days=9))
        factories.insurance(v)
        v = moto("QBC1A03")                                      # no insurance at all
        factories.licence(v)
        v = moto("QBC1A04")                                      # insurance lapsed, due soon
        factories.licence(v, valid_until=today + timedelta(days=12))
        factories.insurance(v, valid_from=today - timedelta(days=400),
                            valid_until=today - timedelta(days=35))
        v = moto("QBC1A05", vistoria=today - timedelta(days=200))  # vistoria overdue, old
        factories.licence(v)
        factories.insurance(v)
        v = moto("QBC1A06", year_of_manufacture=today.year - 6)    # past the age limit
        factories.licence(v)
        factories.insurance(v)
        v = moto("QBC1A07", vistoria=None)                       # no licence, no vistoria
        factories.insurance(v)
        db.session.commit()
        db.session.remove()
    context, guard, page = start_online(browser, live_server, world["agent"])
    got = page.evaluate(AGREE)
    assert len(got) == 8
    for row in got:
        assert row["phone"] == row["server"], row["plate"]
    statuses = sorted(row["server"][0] for row in got)
    assert statuses == ["irregular"] * 6 + ["regular", "suspended"]
    context.close()
