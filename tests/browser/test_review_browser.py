"""The review page in Chromium: the supervisor zooms a photo, rejects one act with a reason
and confirms another, each card swapped in place by htmx (no page reload); the agent's app
then reads the rejection in GET /api/field/inspections/<uuid>."""
from __future__ import annotations

from .. import factories
from ..field_api_helpers import Api, jpeg
from ..web.test_review_ui import BIG, _ids, _send, town  # noqa: F401  (fixture)


def test_supervisor_zooms_rejects_one_act_and_confirms_the_other(app, town, page):
    iid = _send(app, town["agent"], town["vehicle_id"], {"mirrors": [BIG], "uniform": [jpeg(3)]})
    insp_id, (mirrors, uniform), _ = _ids(app, iid)
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
