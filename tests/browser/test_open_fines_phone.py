"""Review pages on a 360 px phone (Chromium). 'Multas em aberto': each stacked cell keeps its
lines together (the document number over its date, "(correndo)" after the fine) inside the
card, instead of pushing them into columns off its right edge; a long status badge wraps
inside its card (acts list, an act on the inspection page)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from inspector import enforcement
from inspector.extensions import db
from tests import factories
from tests.browser.field_helpers import sign_in
from tests.support.enforcement import fleet, inspect, running_daily_fine

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}


def test_open_fines_cells_fit_the_phone(app, page):
    with app.app_context():
        _notice, _daily, sup = running_daily_fine()
        username = sup.username
    page.set_viewport_size(PHONE)
    sign_in(page, username, "/revisao/multas")
    assert "(correndo)" in page.inner_text("table.stack")
    wrap = page.eval_on_selector(".table-wrap", "w => [w.scrollWidth, w.clientWidth]")
    assert wrap[0] <= wrap[1], wrap                       # nothing hidden off the card's edge
    doc = page.locator('td[data-label="Documento"]').first
    link, date = doc.locator("a").bounding_box(), doc.locator("small").bounding_box()
    assert date["y"] >= link["y"] + link["height"] - 1   # the date under the number


def test_a_long_status_badge_stays_inside_the_acts_card(app, page):
    """/revisao/atos: "Convertido em multa diária" wraps inside its badge on a phone."""
    with app.app_context():
        _notice, _daily, sup = running_daily_fine()
        username = sup.username
    page.set_viewport_size(PHONE)
    sign_in(page, username, "/revisao/atos")
    assert "Convertido em multa diária" in page.inner_text("table.stack")
    wrap = page.eval_on_selector(".table-wrap", "w => [w.scrollWidth, w.clientWidth]")
    assert wrap[0] <= wrap[1], wrap


def test_the_acts_status_badge_stays_inside_its_card_on_the_inspection(app, page):
    """An act whose appeal was denied ("Recurso negado") on the inspection page."""
    from inspector.clock import default_day
    from inspector.models import Inspection

    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        now = datetime.now(UTC)
        insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, now - timedelta(hours=3))
        [act] = enforcement.acts_of(insp)
        enforcement.confirm(act, sup, now - timedelta(hours=2))
        appeal = enforcement.file_appeal(act, filed_on=default_day(), filed_by="Ana Souza",
                                         filed_by_role="holder", user=sup, now=now,
                                         text_="O retrovisor foi trocado no mesmo dia.")
        enforcement.decide_appeal(appeal, sup, now, accepted=False,
                                  text_="A foto mostra um só retrovisor.")
        db.session.commit()
        username, insp_id = sup.username, db.session.get(Inspection, insp.id).id
    page.set_viewport_size(PHONE)
    sign_in(page, username, f"/revisao/vistorias/{insp_id}")
    assert "Recurso negado" in page.inner_text(".act.card")
    card = page.eval_on_selector(".act.card", "w => [w.scrollWidth, w.clientWidth]")
    assert card[0] <= card[1], card
