"""The agent grants Tapurah's Art. 19 deadline on the street, offline (Lei 406/2001 Art. 19
as the product owner reads it: a discretionary grant, up to 10 days, only for a defect of the
vehicle that does not affect safety, with a reason). The phone offers the tick only on such a
failed item (the tank sign, Art. 2), never on the rider's uniform (Art. 23 V); a ticked grant
without a reason is a gap; the saved inspection reaches the server with items[].grant and the
notice's deadline becomes the days granted instead of Art. 29's 72 hours."""
from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import jpeg_file, open_card, start_online, sync_until_empty

pytestmark = pytest.mark.browser

REASON = "Adesivo encomendado na gráfica"


def _server(app):
    from inspector import enforcement
    from inspector.extensions import db
    from inspector.models import Inspection

    with app.app_context():
        insp = db.session.scalars(db.select(Inspection)).one()
        grants = {i["item_id"]: i.get("grant") for i in json.loads(insp.body)["items"]}
        enforcement.tick(datetime.now(UTC))
        db.session.commit()
        acts = {a.rule_id: (a.deadline_hours, a.deadline_days, a.deadline_granted_by,
                            a.deadline_grant_reason) for a in enforcement.acts_of(insp)}
        db.session.remove()
        return grants, acts


def test_the_agent_grants_ten_days_offline_only_where_the_law_allows(browser, live_server, app,
                                                                    world, tmp_path):
    photos = [tmp_path / "a.jpg", tmp_path / "b.jpg"]
    for i, path in enumerate(photos):
        jpeg_file(path, 40 + i)
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    open_card(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    tank = page.locator("#checklist li.item[data-item-id='tank-sign']")
    uniform = page.locator("#checklist li.item[data-item-id='uniform']")
    brakes = page.locator("#checklist li.item[data-item-id='general-condition']")
    for i in range(items.count()):
        if items.nth(i).get_attribute("data-item-id") not in ("tank-sign", "uniform",
                                                              "general-condition"):
            items.nth(i).locator("label.choice.ok").click()

    # a rider's item and a safety item fail with no offer of the grant
    uniform.locator("label.choice.fail").click()
    uniform.locator('input[type="file"]').set_input_files(str(photos[1]))
    brakes.locator("label.choice.ok").click()
    brakes.locator("label.choice.fail").click()
    expect(uniform.locator(".grant-box")).to_have_count(0)
    expect(brakes.locator(".grant-box")).to_have_count(0)
    brakes.locator("label.choice.ok").click()

    # the tank sign (a defect of the vehicle, not a safety matter): offered once it fails
    expect(tank.locator(".grant-box")).to_be_hidden()
    tank.locator("label.choice.fail").click()
    tank.locator('input[type="file"]').set_input_files(str(photos[0]))
    box = tank.locator(".grant-box")
    expect(box).to_be_visible()
    expect(box).to_contain_text("Conceder prazo do Art. 19 (até 10 dias)")
    expect(box.locator(".grant-fields")).to_be_hidden()
    box.locator(".grant-toggle").check()
    expect(box.locator(".grant-days")).to_have_value("10")
    box.locator(".grant-days").fill("7")

    # ticked without a reason: one gap, focus in the reason
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#inspection-gaps")).to_contain_text(
        "Falta 1 item: motivo do prazo concedido em")
    page.wait_for_function("() => document.activeElement?.classList.contains('grant-reason')")
    box.locator(".grant-reason").fill(REASON)
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#screen-home")).to_be_visible()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 2 fotos aguardando envio")

    context.set_offline(False)
    sync_until_empty(page)
    grants, acts = _server(app)
    assert grants["tank-sign"] == {"days": 7, "reason": REASON}
    assert grants["uniform"] is None and grants["general-condition"] is None
    assert acts["tank-sign"] == (None, 7, "agent", REASON)
    assert acts["uniform"] == (72, None, None, None)   # Art. 29 § único
    assert guard.foreign() == []
    context.close()
