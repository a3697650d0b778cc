"""On a 360 px phone, in Chromium: the credential page (its long QR address), an inspection's
proposed act whose text has long words, and Nova Santa Helena's checklist (a long badge) never
scroll sideways; the review sub-nav and the passenger's report select are big enough to tap."""
from __future__ import annotations

import uuid

import pytest

from inspector.credentials import issuing
from inspector.extensions import db
from tests import factories
from tests.browser.field_helpers import sign_in
from tests.support.credentials import regular_mototaxi
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg
from tests.support.review import inspection_ids

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}
LONG = "https://fiscaliza.tapurah.mt.gov.br/evidencias/retrovisor-esquerdo-quebrado-e-solto"
WIDTH = "document.scrollingElement.scrollWidth"


def _heights(page, selector: str) -> list[float]:
    return page.eval_on_selector_all(
        selector, "els => els.map(e => e.getBoundingClientRect().height)")


def test_credential_page_does_not_scroll_sideways_on_a_phone(app, page):
    with app.app_context():
        cred = issuing.issue(regular_mototaxi())
        admin = factories.user("admin", "tapurah")
        db.session.commit()
        cred_id, username = cred.id, admin.username
    page.set_viewport_size(PHONE)
    sign_in(page, username, f"/credenciais/{cred_id}")
    assert len(page.inner_text("#credential-url")) > 60          # the long QR address is there
    assert page.evaluate(WIDTH) <= 360


def test_proposed_act_with_long_words_fits_the_phone_and_the_subnav_is_tappable(app, town,
                                                                                page):
    c = app.test_client()
    assert c.login(town["agent"]).status_code == 302
    iid = str(uuid.uuid4())
    b = body(town["vehicle_id"], fail={"mirrors": [jpeg(5)]}, ok=("general-condition",))
    for item in b["items"]:
        if item["result"] == "fail":
            item["note"] = f"Retrovisor solto, ver {LONG}"
    api = Api(c)
    assert api.put_inspection(iid, b).status_code == 201
    photo = next(p for it in b["items"] for p in it["photos"])
    assert api.put_photo(iid, photo["id"], jpeg(5)).status_code == 201
    enforcement_worker(app)
    insp_id, acts, _ = inspection_ids(app, iid)
    assert acts

    page.set_viewport_size(PHONE)
    sign_in(page, town["supervisor"], f"/revisao/vistorias/{insp_id}")
    card = page.locator(f"#ato-{acts[0]}")
    assert LONG in card.inner_text()
    assert page.evaluate(WIDTH) <= 360
    edge = card.evaluate("e => e.getBoundingClientRect().right")
    text_right = card.evaluate(
        "e => Math.max(...[...e.querySelectorAll('dd')].map(d => d.getBoundingClientRect().right))")
    assert text_right <= edge                                    # the details stay in the card
    heights = _heights(page, "nav.subnav a")
    assert len(heights) == 4 and min(heights) >= 44, heights


def test_nova_santa_helena_checklist_with_its_long_badge_fits_the_phone(page):
    page.set_viewport_size(PHONE)
    page.goto("/leis/nova-santa-helena-lei-535-2013-taxi/checklist")
    badge = page.locator(".badge", has_text="Só quando a sede passa de")
    assert badge.count() >= 1
    assert page.evaluate(WIDTH) <= 360
    short = page.locator(".badge", has_text="Afeta a segurança").first
    if short.count():                                            # a short one stays on one line
        line = short.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
        assert short.evaluate("e => e.getBoundingClientRect().height") < 2 * line


def test_passenger_report_select_is_big_enough_to_tap(app, page):
    with app.app_context():
        token = issuing.issue(regular_mototaxi()).token
        db.session.commit()
    page.set_viewport_size(PHONE)
    page.goto(f"/v/{token}/denunciar")
    heights = _heights(page, "select")
    assert heights and min(heights) >= 44, heights


def test_nortelandia_compliance_with_a_long_word_fits_the_phone(app, page):
    """Nortelândia 127/2009 Art. 8 § único: a registration not revalidated in 30 days is
    'cancelada automaticamente'; that long word wraps inside its stacked card."""
    from datetime import date, timedelta

    with app.app_context():
        holder = factories.holder("nortelandia", name="Pedro Taxista")
        factories.permit(holder, "taxi")
        vehicle = factories.vehicle("nortelandia", "taxi", holder=holder)
        factories.licence(vehicle)
        rider = factories.driver("nortelandia", "autonomo", name="Pedro Taxista",
                                 cnh_category="B", holder_id=holder.id,
                                 registration_expiry=date.today() - timedelta(days=60))
        vehicle.drivers.append(rider)
        supervisor = factories.user("supervisor", "nortelandia")
        db.session.commit()
        username = supervisor.username
    page.set_viewport_size(PHONE)
    sign_in(page, username, "/conformidade")
    row = page.locator("table.stack td", has_text="cancelada automaticamente")
    assert row.count() >= 1
    assert page.evaluate(WIDTH) <= 360
    edge = row.first.evaluate("e => e.closest('section').getBoundingClientRect().right")
    assert row.first.evaluate("e => e.getBoundingClientRect().right") <= edge
