"""The checklist on a 360×740 phone, offline, as an agent uses it in the street: the card
shows the plate, prefix, model and colour above the verdict box and "Iniciar vistoria" sits in
a bar that the card's last line ends above; the checklist is compact (at least five items a
screen); "Marcar os demais como conformes" answers every open item with one tap and
"Desfazer" takes it back; the inspection that reaches the server says which items were
marked that way (items[].bulk); after a save with many gaps the summary is one or two lines
whose numbers fold behind "ver todos", none cut; axe-core finds nothing."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    axe_violations,
    make_irregular,
    open_card,
    start_online,
    sync_until_empty,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
IN_VIEW = """(top) => [...document.querySelectorAll('#checklist li.item')].filter(li => {
  const b = li.getBoundingClientRect();
  return b.top >= top - 1 && b.bottom <= window.innerHeight + 1;
}).length"""


def _phone(browser, live_server, world):
    context, _, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    context.set_offline(True)
    return context, page


def _stored_items(app) -> dict[str, dict]:
    from inspector.extensions import db
    from inspector.inspections import bulk_answers
    from inspector.models import Inspection

    with app.app_context():
        insp = db.session.scalars(db.select(Inspection)).one()
        items = {i["item_id"]: i for i in json.loads(insp.body)["items"]}
        bulk = bulk_answers(insp)
        db.session.remove()
    return items, bulk


def test_the_card_shows_what_to_check_above_the_verdict_and_nothing_under_the_bar(
        browser, live_server, app, world):
    make_irregular(app, world)
    context, page = _phone(browser, live_server, world)
    card = open_card(page, world["plate"])
    plate = card.locator(".plate").bounding_box()
    line = card.locator(".vehicle-line")
    verdict = card.locator(".situation, .standing").first.bounding_box()
    expect(card.locator(".plate")).to_contain_text("prefixo")
    expect(line).to_contain_text(" · ")                       # service · model · colour · year
    assert plate["y"] + plate["height"] <= verdict["y"], (plate, verdict)
    assert line.bounding_box()["y"] + line.bounding_box()["height"] <= verdict["y"]
    bar = page.locator(".start-bar").bounding_box()
    assert plate["y"] >= 0 and line.bounding_box()["y"] + 20 <= bar["y"]
    # scrolled to its end, the card's last line is above the bar, not under it
    page.evaluate("() => window.scrollTo(0, document.scrollingElement.scrollHeight)")
    last = card.locator(".card-details").bounding_box()
    bar = page.locator(".start-bar").bounding_box()
    assert last["y"] + last["height"] <= bar["y"] + 1, (last, bar)
    assert axe_violations(page, "card") == []
    context.close()


def test_five_items_a_screen_bulk_then_undo_and_the_server_knows(browser, live_server, app,
                                                                   world):
    context, page = _phone(browser, live_server, world)
    open_card(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    n = items.count()
    # the list scrolled under the "x de N" kept on top: five whole items or more in sight
    page.evaluate("""() => {
      const first = document.querySelector('#checklist li.item');
      const kept = document.querySelector('.progress-box').offsetHeight;
      window.scrollTo(0, first.getBoundingClientRect().top + window.scrollY - kept - 4);
    }""")
    top = page.locator(".progress-box").bounding_box()
    assert top["y"] <= 1                                    # kept on top while scrolling
    assert page.evaluate(IN_VIEW, top["y"] + top["height"]) >= 5

    progress = page.locator("#inspection-progress")
    items.nth(0).locator("label.choice.na").click()
    expect(progress).to_have_text(f"1 de {n} itens respondidos")
    bulk = page.get_by_role("button", name="Marcar os demais como conformes")
    bulk.click()
    expect(progress).to_have_text(f"{n} de {n} itens respondidos")
    expect(page.locator("#bulk-done")).to_contain_text(f"{n - 1} itens marcados como conformes")
    expect(items.nth(1).locator("input[value=ok]")).to_be_checked()
    assert axe_violations(page, "checklist after the bulk tap") == []
    page.get_by_role("button", name="Desfazer").click()
    expect(progress).to_have_text(f"1 de {n} itens respondidos")      # only the one by hand
    expect(items.nth(1).locator("input[value=ok]")).not_to_be_checked()
    expect(items.nth(0).locator("input[value=na]")).to_be_checked()
    expect(page.locator("#bulk-done")).to_be_hidden()

    bulk.click()
    items.nth(2).locator("label.choice.na").click()                   # changed by hand after
    first, third = (items.nth(i).get_attribute("data-item-id") for i in (0, 2))
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")
    context.set_offline(False)
    sync_until_empty(page)
    stored, marked = _stored_items(app)
    assert "bulk" not in stored[first] and "bulk" not in stored[third]
    assert stored[third]["result"] == "na"
    assert len(marked) == n - 2 and first not in marked and third not in marked
    assert all(stored[i]["result"] == "ok" for i in marked)
    context.close()


def test_many_gaps_fold_into_a_line_and_unfold_whole(browser, live_server, world):
    context, page = _phone(browser, live_server, world)
    open_card(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    n = items.count()
    items.first.locator("label.choice.ok").click()
    page.get_by_role("button", name="Salvar vistoria").click()
    gaps = page.locator("#inspection-gaps")
    expect(gaps).to_contain_text(f"Faltam {n - 1} itens: resposta em 2, 3")
    assert gaps.bounding_box()["height"] <= PHONE["height"] / 6      # a few lines, not a quarter
    toggle = gaps.get_by_role("button", name="ver todos")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(gaps.locator("a")).to_have_count(n - 1)
    assert gaps.evaluate("(g) => g.scrollHeight <= g.clientHeight + 1")   # nothing cut off
    expect(gaps.get_by_role("button", name="recolher")).to_have_attribute("aria-expanded", "true")
    assert axe_violations(page, "checklist with its gaps unfolded") == []
    gaps.locator("a").last.click()
    page.wait_for_function("(n) => document.activeElement.closest('li.item')?.id === 'item-' + n",
                           arg=n)
    context.close()
