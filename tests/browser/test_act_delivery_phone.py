"""An act decided in the office and not delivered yet, on a 360 px phone (Chromium): its two
badges ("Confirmado", "Aguardando entrega") break between words, not inside them, on the act's
card, and the acts list filtered "Aguardando entrega" stays inside its card."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import sign_in
from tests.support.enforcement import decided_in_office

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}
BADGE_ONE_LINE = "b => b.getBoundingClientRect().height < 2 * parseFloat(getComputedStyle(b).lineHeight)"


def _awaiting(app) -> tuple[str, int]:
    """A written warning confirmed in the office in Nortelândia (Lei 030/1998 Art. 16 § 1º),
    its document not delivered: its appeal window waits for the intimação (Art. 16 § 2º)."""
    with app.app_context():
        o = decided_in_office("nortelandia", "mototaxi", {"brakes": "fail"},
                              datetime.now(UTC) - timedelta(hours=1))
        assert o.act.awaiting_delivery
        return o.supervisor.username, o.act.id


def test_the_awaiting_list_fits_the_phone(app, page):
    username, _ = _awaiting(app)
    page.set_viewport_size(PHONE)
    sign_in(page, username, "/revisao/atos?situacao=awaiting_delivery")
    assert "Aguardando entrega" in page.inner_text("table.stack")
    wrap = page.eval_on_selector(".table-wrap", "w => [w.scrollWidth, w.clientWidth]")
    assert wrap[0] <= wrap[1], wrap                       # nothing hidden off the card's edge
    status = page.locator('td[data-label="Situação"] .badge').first
    assert status.inner_text() == "Confirmado"
    assert status.evaluate(BADGE_ONE_LINE)                # not "Confirm / ado"


def test_the_act_card_badges_break_between_words(app, page):
    username, act_id = _awaiting(app)
    page.set_viewport_size(PHONE)
    sign_in(page, username, f"/revisao/atos/{act_id}")
    status = page.locator(f"#ato-{act_id} .act-head .badge").first
    assert status.inner_text() == "Confirmado"
    assert status.evaluate(BADGE_ONE_LINE)                # was "Confirm / ado"
    waiting = page.locator(f"#ato-{act_id} .act-head .awaiting-delivery")
    width = waiting.evaluate("b => b.getBoundingClientRect().width")
    word = waiting.evaluate("""b => { const r = document.createRange();
        r.setStart(b.firstChild, 0); r.setEnd(b.firstChild, 'Aguardando'.length);
        return r.getBoundingClientRect().width; }""")
    assert width >= word, (width, word)                   # was "Aguar / dando / entreg / a"
    card = page.eval_on_selector(f"#ato-{act_id}", "w => [w.scrollWidth, w.clientWidth]")
    assert card[0] <= card[1], card


def _height(link) -> float:
    expect(link).to_be_visible()       # a box only once laid out (None before, under load)
    return link.bounding_box()["height"]


def test_the_links_that_open_an_act_take_a_thumb(app, page):
    """Prazos' "2 dias · 7 dias · 30 dias" and each document's number (Prazos, the acts list)
    are at least 44 px tall on a phone: they were 21-26 px lines of text."""
    username, act_id = _awaiting(app)
    page.set_viewport_size(PHONE)
    sign_in(page, username, "/revisao/prazos")
    heights = [_height(page.get_by_role("link", name=f"{n} dias", exact=True))
               for n in (2, 7, 30)]
    heights.append(_height(page.locator(f"#aguardando-entrega a[href$='#entrega-{act_id}']")))
    page.goto("/revisao/atos?situacao=awaiting_delivery")
    page.wait_for_load_state("load")
    heights.append(_height(page.locator("a.row-link").first))
    assert min(heights) >= 44, heights
