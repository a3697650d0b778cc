"""Offline on the street, in Chromium: after one online visit to /campo, a checklist item's
citation opens its article from the service worker's cache, scrolled to and highlighted
(CSS :target); and the result card says until when a suspension holds ("SUSPENSO até",
"Suspenso até dd/mm/aaaa"), also after a delta moved the end."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import open_card, start_online, suspend_licence_and_rider

pytestmark = pytest.mark.browser

SLUG = "tapurah-lei-406-2001-mototaxi"


def _target_state(page) -> dict | None:
    return page.evaluate("""() => {
        const el = document.querySelector(':target');
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return {id: el.id, text: el.textContent,
                bg: getComputedStyle(el).backgroundColor,
                parent_bg: getComputedStyle(el.parentElement).backgroundColor,
                top: r.top, height: window.innerHeight};
    }""")


def test_offline_a_checklist_citation_opens_its_article_highlighted(browser, live_server, world):
    context, guard, page = start_online(browser, live_server, world["agent"])  # never on /leis
    context.set_offline(True)
    open_card(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    item = page.locator("#checklist li.item[data-item-id='helmet-band']")
    item.locator(".item-cite summary").click()
    link = item.locator("a.item-law")
    expect(link).to_be_visible()
    assert link.get_attribute("href") == f"/leis/{SLUG}#art-15-i"
    with context.expect_page() as opened:
        link.click()
    law = opened.value
    law.wait_for_load_state()
    expect(law.locator("h1")).to_contain_text("Lei 406/2001")
    law.wait_for_function("() => document.querySelector(':target') !== null")
    state = _target_state(law)
    assert state["id"] == "art-15-i"
    assert "capacete" in state["text"]
    assert state["bg"] not in ("rgba(0, 0, 0, 0)", "transparent")   # laws.css came too
    assert state["bg"] != state["parent_bg"]
    assert 0 <= state["top"] < state["height"]
    other = law.evaluate("getComputedStyle(document.getElementById('art-15-ii')).backgroundColor")
    assert other != state["bg"]

    # Every town's law is there too (they are public and small), straight from the cache.
    law.goto("/leis/sapezal-lei-060-1998-taxi#art-1")
    expect(law.locator("h1")).to_contain_text("Sapezal")
    assert law.evaluate("document.querySelector(':target') && document.querySelector(':target').id") \
        == "art-1"
    assert guard.foreign() == []
    context.close()


def _move_end(app, world, until):
    """The licence's suspension now ends on another day (suspension_period_changed)."""
    from inspector import audit
    from inspector.extensions import db
    from inspector.models import Licence

    with app.app_context():
        lic = db.session.scalar(db.select(Licence).filter_by(vehicle_id=world["vehicle_id"]))
        before = {"status": "suspended", "suspended_until": lic.suspended_until}
        lic.suspended_until = until
        audit.record("suspension_period_changed", "licence", lic.id, before=before,
                     after={"status": "suspended", "suspended_until": until},
                     municipality_id=lic.municipality_id)
        db.session.commit()
        db.session.remove()


def test_the_card_says_until_when_a_suspension_holds(browser, live_server, app, world):
    end, rider_end, moved = (date.today() + timedelta(days=d) for d in (20, 40, 60))
    fmt = lambda d: d.strftime("%d/%m/%Y")  # noqa: E731
    number = suspend_licence_and_rider(app, world, end, rider_end)
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)                                   # the card reads the phone
    card = open_card(page, world["plate"])
    expect(card.locator(".standing-title")).to_have_text(f"SUSPENSO até {fmt(end)}")
    licence = card.locator(".expiries li.suspended-until")
    expect(licence).to_contain_text(f"Alvará {number}")
    expect(licence).to_contain_text(f"Suspenso até {fmt(end)}")
    expect(card.locator(".driver .suspended-until")).to_have_text(
        f"Registro: Suspenso até {fmt(rider_end)}")

    # The end moves while the phone is away; the next sync's delta brings it.
    _move_end(app, world, moved)
    context.set_offline(False)
    with page.expect_response(lambda r: "/api/field/snapshot?since=" in r.url):
        page.get_by_role("button", name="Sincronizar").click()
    context.set_offline(True)
    for _ in range(20):  # the delta is stored in IndexedDB right after its answer arrives
        page.locator("#screen-result [data-go=home]").click()
        card = open_card(page, world["plate"])
        if card.locator(".standing-title").inner_text() != f"SUSPENSO até {fmt(end)}":
            break
        page.wait_for_timeout(250)
    expect(card.locator(".standing-title")).to_have_text(f"SUSPENSO até {fmt(moved)}")
    expect(card.locator(".expiries li.suspended-until")).to_contain_text(
        f"Suspenso até {fmt(moved)}")
    assert guard.foreign() == []
    context.close()
