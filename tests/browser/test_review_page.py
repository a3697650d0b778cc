"""The review page in Chromium: the supervisor zooms a photo, rejects one act with a reason
and confirms another, each card swapped in place by htmx (no page reload); the agent's app
then reads the rejection in GET /api/field/inspections/<uuid>. And the agent's own app, in
Chromium, made the inspection, syncs after the supervisor's decision and shows the rejection
and its reason under "Minhas vistorias", offline too."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests import factories
from tests.browser.field_helpers import inspect_by_plate, jpeg_file, sign_in, start_online, sync_until_empty
from tests.support.field_api import Api, jpeg
from tests.support.review import BIG, inspection_ids, send_inspection

pytestmark = pytest.mark.browser
REASON = "O retrovisor aparece inteiro na segunda foto."


def test_supervisor_zooms_rejects_one_act_and_confirms_the_other(app, town, page):
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [BIG], "uniform": [jpeg(3)]})
    insp_id, (mirrors, uniform), _ = inspection_ids(app, iid)
    page.goto("/entrar")
    page.fill("input[name=username]", town["supervisor"])
    page.fill("input[name=password]", factories.PASSWORD)
    page.click("button[type=submit]")
    page.set_viewport_size({"width": 1280, "height": 900})   # a desk, or a tablet sideways
    page.goto(f"/revisao/vistorias/{insp_id}")
    page.evaluate("window.__same_page = true")

    page.locator("a[hx-get*='/ampliar']").first.click()
    zoom = page.locator(".zoom-panel img")
    zoom.wait_for()
    page.wait_for_function("document.querySelector('.zoom-panel img').naturalWidth > 0")
    assert page.evaluate("document.querySelector('.zoom-panel img').naturalWidth") == 1600
    assert "confere com o arquivo guardado" in page.locator(".zoom-panel").inner_text()
    page.click(".zoom-close")
    page.wait_for_selector(".zoom-panel", state="detached")

    card = page.locator(f"#ato-{uniform}")
    card.locator("summary", has_text="Rejeitar").click()
    card.locator(".reject-form textarea[name=reason]").fill("O uniforme está completo na segunda foto.")
    card.locator(".reject-form button").click()
    page.locator(f"#ato-{uniform} .badge", has_text="Rejeitado").wait_for()
    assert "O uniforme está completo" in page.locator(f"#ato-{uniform}").inner_text()

    page.locator(f"#ato-{mirrors} button", has_text="Confirmar").click()
    page.locator(f"#ato-{mirrors} .badge", has_text="Confirmado").wait_for()
    assert "Código de acesso do titular" in page.locator(f"#ato-{mirrors}").inner_text()
    assert page.evaluate("window.__same_page") is True       # swapped in place, no reload

    agent = app.test_client()
    agent.login(town["agent"])
    review = Api(agent).get(f"/api/field/inspections/{iid}").json["review"]
    rejected = next(a for a in review["acts"] if a["item_id"] == "uniform")
    assert rejected["status"] == "rejected"
    assert rejected["reason"] == "O uniforme está completo na segunda foto."
    assert review["status"] == "reviewed"


def test_the_agents_app_shows_the_rejection_and_its_reason_after_its_next_sync(
        browser, live_server, app, make, world, tmp_path):
    from inspector.extensions import db
    from inspector.models import Inspection

    boss = make(factories.user, "supervisor", "tapurah").username
    context, guard, phone = start_online(browser, live_server, world["agent"])
    photos = [tmp_path / "a.jpg", tmp_path / "b.jpg"]
    jpeg_file(photos[0], 11), jpeg_file(photos[1], 12)
    inspect_by_plate(phone, world["plate"], photos)         # saved, then sent at once
    sync_until_empty(phone)
    phone.get_by_role("button", name="Minhas vistorias").click()
    entry = phone.locator("#reviews-list .review").first
    expect(entry).to_contain_text(world["plate"])
    expect(entry).to_contain_text("Aguardando revisão")
    expect(entry).not_to_contain_text("Rejeitado")
    phone.go_back()

    with app.app_context():
        insp_id = db.session.scalar(select(Inspection.id))
        db.session.remove()
    desk = browser.new_context(base_url=live_server.url, locale="pt-BR")
    sup = desk.new_page()
    sign_in(sup, boss, f"/revisao/vistorias/{insp_id}")
    card = sup.locator("[id^='ato-']").first
    first_act = int(card.get_attribute("id").split("-", 1)[1])
    card.locator("summary", has_text="Rejeitar").click()
    card.locator(".reject-form textarea[name=reason]").fill(REASON)
    card.locator(".reject-form button").click()
    sup.locator(f"#ato-{first_act} .badge", has_text="Rejeitado").wait_for()
    desk.close()

    expect(phone.locator("#reviews-new")).to_be_hidden()   # nothing new before the sync
    with phone.expect_response(lambda r: "/api/field/reviews?since=" in r.url):
        phone.get_by_role("button", name="Sincronizar").click()
    badge = phone.locator("#reviews-new")
    expect(badge).to_have_text("1 nova")
    expect(phone.locator("#toast")).to_contain_text("A supervisão respondeu")
    phone.get_by_role("button", name="Minhas vistorias").click()
    entry = phone.locator("#reviews-list .review.is-new")
    expect(entry).to_contain_text("Nova resposta")
    rejected = entry.locator(f".review-act[data-act='{first_act}']")
    expect(rejected).to_contain_text("Rejeitado")
    expect(rejected).to_contain_text(f"Motivo: {REASON}")
    phone.go_back()
    expect(badge).to_be_hidden()                           # seen

    context.set_offline(True)                              # kept on the phone
    phone.reload()
    phone.wait_for_function("() => document.body.dataset.ready === '1'")
    phone.get_by_role("button", name="Minhas vistorias").click()
    expect(phone.locator(f".review-act[data-act='{first_act}']")).to_contain_text(REASON)
    expect(phone.locator("#reviews-list .review.is-new")).to_have_count(0)
    assert guard.foreign() == []
    context.close()
