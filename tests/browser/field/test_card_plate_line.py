"""The result card's heading on a 360 px phone: when "· prefixo TX09" does not fit beside the
plate it goes to the next line whole, never leaving its "·" alone after the plate."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser


def test_the_prefix_is_never_split_from_its_dot(browser, live_server, app, world):
    from inspector import audit
    from inspector.extensions import db
    from inspector.models import Vehicle

    with app.app_context():                      # a prefix long enough to leave the line
        v = db.session.get(Vehicle, world["vehicle_id"])
        before = audit.snapshot(v)
        v.prefix = "TX0009"
        audit.record("updated", "vehicle", v.id, before=before, after=audit.snapshot(v),
                     municipality_id=v.municipality_id)
        db.session.commit()
        db.session.remove()
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size({"width": 360, "height": 740})
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    prefix = page.locator("#result h1.plate .prefix")
    expect(prefix).to_have_text(" · prefixo TX0009")
    assert prefix.evaluate("(e) => e.getClientRects().length") == 1      # one piece
    plate_box = page.locator("#result h1.plate").bounding_box()
    assert plate_box["x"] + plate_box["width"] <= 360
    context.close()
