"""The agent's card, offline at 360×740 (Debian Chromium, real server): a vehicle whose newest
vistoria was rejected shows, under "Validades", a "Vistoria" row with the rejection's day, the
day it must come back and what to fix, from the phone's snapshot. Tapurah Lei 406/2001 Art. 23
X (a vistoria every 6 months): with its last approved vistoria still valid the row is amber and
the vehicle stays REGULAR (a rejection does not end the validity, as on the passenger page);
with that vistoria overdue the vehicle is IRREGULAR for it and the row is red with the article."""
from __future__ import annotations

import re
import uuid
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from inspector.clock import default_day
from inspector.rules import fmt_date
from tests.browser.field_helpers import open_card, start_online
from tests.support.field_api import jpeg
from tests.support.vistorias import vistoria_body

pytestmark = pytest.mark.browser


def _rejected(app, api, world, last_vistoria_on: date | None = None) -> dict:
    """The world's moto-taxi rejected at a periodic vistoria today (mirrors failed), sent as
    the phone sends it; `last_vistoria_on` first moves its last approved vistoria."""
    if last_vistoria_on is not None:
        from inspector import audit
        from inspector.extensions import db
        from inspector.models import Vehicle

        with app.app_context():
            row = db.session.get(Vehicle, world["vehicle_id"])
            before = audit.snapshot(row)
            row.last_vistoria_on = last_vistoria_on
            audit.record("updated", "vehicle", row.id, before=before, after=audit.snapshot(row),
                         municipality_id=row.municipality_id)
            db.session.commit()
            db.session.remove()
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(
        world["vehicle_id"], "tapurah", "mototaxi", "periodic", fail={"mirrors": jpeg(9)}))
    assert r.json["vistoria"]["result"] == "rejected", r.json
    return r.json["vistoria"]


def _card_offline(browser, live_server, world):
    context, guard, page = start_online(browser, live_server, world["agent"],
                                        viewport={"width": 360, "height": 740})
    context.set_offline(True)
    card = open_card(page, world["plate"]).locator(".card")
    card.locator("details.card-details summary").click()
    return context, guard, card


def _words(decided: dict) -> str:
    today = default_day()
    fixes = ", ".join(f["label"] for f in decided["to_fix"])
    return (f"reprovada em {fmt_date(today)} — retorno até {fmt_date(today + timedelta(days=15))}"
            f"; corrigir: {fixes}")


def test_a_rejected_vistoria_shows_its_return_day_offline(browser, live_server, app, api, world):
    decided = _rejected(app, api, world)
    context, guard, card = _card_offline(browser, live_server, world)
    row = card.locator('.expiries li.document[data-document="vistoria"]')
    expect(row).to_have_text("Vistoria" + _words(decided))
    expect(row).to_have_class(re.compile(r"\bexp-warn\b"))
    expect(card.locator(".standing")).to_have_attribute("data-standing", "regular")
    box = row.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360  # no sideways scroll
    assert guard.foreign() == []
    context.close()


def test_an_overdue_vehicle_rejected_again_reads_red_with_the_article(
        browser, live_server, app, api, world):
    decided = _rejected(app, api, world, last_vistoria_on=default_day() - timedelta(days=200))
    context, guard, card = _card_offline(browser, live_server, world)
    expect(card.locator(".standing")).to_have_attribute("data-standing", "irregular")
    row = card.locator('.expiries li.document[data-document="vistoria"]')
    expect(row).to_contain_text(_words(decided) + " (Lei 406/2001, Art.")
    expect(row).to_have_class(re.compile(r"\bexp-bad\b"))
    assert guard.foreign() == []
    context.close()
