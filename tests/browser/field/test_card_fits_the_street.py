"""The agent's card fits the street, offline on a 360×780 phone: a moto-taxi
whose insurance lapsed (Tapurah Lei 406/2001, Art. 17, as the pack's requirement cites it) and
whose company's permit was revoked shows ONE verdict box, IRREGULAR as the server's one
verdict (inspector/laws/verdict.py) says, every reason with its article, no stray "." before
an article nor ".;" between reasons; "Iniciar vistoria" is on screen without scrolling; dates,
drivers and notices are folded in a <details> that opens on a tap. A regular one reads
REGULAR in the same single box."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    axe_violations,
    make_irregular,
    open_card,
    start_online,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 780}


def server_verdict(app, world):
    """The one verdict the server computes today (what the passenger and the registry read)."""
    from inspector.extensions import db
    from inspector.laws import verdict
    from inspector.models import Vehicle

    with app.app_context():
        out = verdict.verdict_of(db.session.get(Vehicle, world["vehicle_id"]), date.today())
        db.session.remove()
        return out


def phone_card(browser, live_server, world):
    context, guard, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    context.set_offline(True)
    card = open_card(page, world["plate"]).locator(".card")
    return context, guard, page, card


def in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    return (box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
            and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"])


def test_an_irregular_card_is_one_box_with_every_article_and_the_button_in_reach(
        browser, live_server, app, world):
    make_irregular(app, world)
    truth = server_verdict(app, world)
    assert truth.label == "IRREGULAR" and len(truth.reasons) >= 2
    context, guard, page, card = phone_card(browser, live_server, world)

    # one coloured box on screen: the verdict; the vehicle's own box only inside the details
    box = card.locator(".situation")
    expect(box).to_have_count(1)
    expect(box.locator(".situation-title")).to_have_text(truth.label)
    expect(card.locator("div.verdict")).to_have_count(0)
    expect(card.locator(".standing")).to_be_hidden()
    text = box.inner_text()
    for reason in truth.reasons:   # the server's reasons, each with its article
        assert reason.article, reason
        words = reason.message.rstrip(".")
        assert f"{words} ({reason.law}, {reason.article})" in text, (reason, text)
    assert "Seguro obrigatório vencido em" in text and "Permissão" in text
    assert ".;" not in text and ". (" not in text and ".." not in text, text

    # the button: on screen as the card opens, no scrolling
    assert page.evaluate("window.scrollY") == 0
    button = page.get_by_role("button", name="Iniciar vistoria")
    expect(button).to_be_visible()
    assert in_viewport(page, button), button.bounding_box()
    assert in_viewport(page, box.locator(".situation-title"))

    # the rest folded, a tap away
    details = card.locator("details.card-details")
    expect(details.get_by_role("heading", name="Validades")).to_be_hidden()
    details.locator("summary").click()
    expect(details.get_by_role("heading", name="Validades")).to_be_visible()
    expect(details.locator(".expiries li", has_text="Seguro")).to_contain_text("(vencido)")
    assert axe_violations(page, "card") == []
    assert guard.foreign() == []
    context.close()


def test_a_suspended_card_says_the_servers_word_with_its_article(browser, live_server, app, world):
    from inspector.extensions import db
    from inspector.models import Licence, Status, Vehicle

    with app.app_context():
        lic = db.session.scalars(db.select(Licence).filter_by(
            vehicle_id=db.session.get(Vehicle, world["vehicle_id"]).id)).first()
        lic.status, lic.suspended_until = Status.SUSPENDED, date.today() + timedelta(days=10)
        db.session.commit()
        db.session.remove()
    truth = server_verdict(app, world)
    assert truth.label == "SUSPENSO"
    context, guard, page, card = phone_card(browser, live_server, world)
    box = card.locator(".situation")
    expect(box).to_have_attribute("data-situation", "suspended")
    expect(box.locator(".situation-title")).to_contain_text(truth.label)
    text = box.inner_text()
    for reason in truth.reasons:
        assert f"{reason.message.rstrip('.')} ({reason.law}, {reason.article})" in text, text
    assert in_viewport(page, page.get_by_role("button", name="Iniciar vistoria"))
    context.close()


def test_a_regular_card_is_one_green_box(browser, live_server, app, world):
    assert server_verdict(app, world).label == "REGULAR"
    context, guard, page, card = phone_card(browser, live_server, world)
    expect(card.locator(".situation")).to_have_attribute("data-situation", "regular")
    expect(card.locator(".situation-title")).to_have_text("REGULAR")
    expect(card.locator(".situation:visible, div.verdict:visible, .standing:visible")).to_have_count(1)
    assert in_viewport(page, page.get_by_role("button", name="Iniciar vistoria"))
    context.close()
