"""The result card's open notices in Chromium: the vehicle's own, one its rider got
while riding another moto-taxi, each with its number, what is wrong, the article and the
deadline; a deadline already past (no tick since) is highlighted. Read from the snapshot
on the phone, so the card shows them offline."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import update

from tests import factories
from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser


def _notices(app, world) -> dict:
    """Three decided notices: mirrors (deadline passed), uniform (10 days) on the vehicle,
    and the rider's on another moto-taxi of the company; one rejected act (not open)."""
    from inspector import enforcement
    from inspector.extensions import db
    from inspector.models import Sanction, User, Vehicle
    from tests.support.enforcement import acts, inspect

    now = datetime.now(UTC)
    with app.app_context():
        vehicle = db.session.get(Vehicle, world["vehicle_id"])
        rider = vehicle.drivers[0]
        other = factories.vehicle("tapurah", "mototaxi", holder=vehicle.holder, plate="QBA9Z99")
        other.drivers.append(rider)
        agent = db.session.scalar(db.select(User).filter_by(username=world["agent"]))
        sup = factories.user("supervisor", "tapurah")
        here = acts(inspect(vehicle, agent, {"mirrors": "fail", "uniform": "fail",
                                             "general-condition": "ok"}, now - timedelta(hours=2)))
        there = acts(inspect(other, agent, {"mirrors": "ok", "uniform": "fail",
                                            "general-condition": "fail"}, now - timedelta(hours=1)))
        for act in here + there[:1]:
            enforcement.confirm(act, sup, now)
        for act in there[1:]:
            enforcement.reject(act, sup, now, reason="Estado geral aceitável na foto.")
        overdue = here[0]
        db.session.execute(update(Sanction).where(Sanction.id == overdue.id)
                           .values(deadline_at=now - timedelta(hours=5)))  # no tick ran yet
        db.session.commit()
        out = {"overdue": overdue.id, "open": here[1].id, "rider": there[0].id,
               "rejected": [a.id for a in there[1:]], "rider_name": rider.name,
               "numbers": {a.id: a.notice.number for a in here + there[:1]}}
        db.session.remove()
        return out


def test_the_card_lists_open_notices_and_highlights_a_passed_deadline(browser, live_server,
                                                                       app, world):
    n = _notices(app, world)
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)                                  # the card reads the phone
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    card = page.locator("#result")
    expect(card.locator(".plate")).to_contain_text(world["plate"])
    items = card.locator(".notices > li")
    expect(items).to_have_count(3)
    for rejected in n["rejected"]:
        expect(card.locator(f"[data-notice='{rejected}']")).to_have_count(0)

    late = card.locator(f"[data-notice='{n['overdue']}']")
    expect(late).to_have_class("notice overdue")
    expect(late).to_contain_text(f"Notificação nº {n['numbers'][n['overdue']]}")
    expect(late).to_contain_text("Lei 406/2001")
    expect(late.locator(".notice-deadline")).to_contain_text("VENCIDO")
    assert late.locator("a.cite").get_attribute("href").startswith("/leis/")

    running = card.locator(f"[data-notice='{n['open']}']")
    expect(running).to_have_class("notice")
    expect(running.locator(".notice-deadline")).to_contain_text("Prazo:")
    expect(running.locator(".notice-deadline")).not_to_contain_text("VENCIDO")
    # the legal calendar's counting goes with each date, offline as on the PDF
    expect(running.locator(".notice-explain").first).to_contain_text("72 horas, contadas minuto a minuto")
    expect(running.locator(".notice-explain").nth(1)).to_contain_text("Recurso até")
    expect(running.locator(".notice-explain").nth(1)).to_contain_text("Lei 9.784/1999, art. 66")

    ridden = card.locator(f"[data-notice='{n['rider']}']")
    expect(ridden).to_contain_text(n["numbers"][n["rider"]])
    expect(ridden).to_contain_text(f"Condutor: {n['rider_name']}")
    assert guard.foreign() == []
    context.close()


def test_a_notice_waiting_for_delivery_says_its_time_has_not_started(browser, live_server, app,
                                                                       world):
    """A notice the supervisor confirmed in the office without the rider's ciente on the street
    runs from its delivery (Nortelândia Lei 030/1998 Art. 16 § 2º "a partir da intimação"; the
    same rule for Tapurah's office decisions): the card says so instead of a deadline, so the
    agent who meets the rider knows the document has not reached them."""
    from inspector import enforcement
    from inspector.extensions import db
    from inspector.models import User, Vehicle
    from tests.support.enforcement import acts, inspect

    now = datetime.now(UTC)
    with app.app_context():
        vehicle = db.session.get(Vehicle, world["vehicle_id"])
        agent = db.session.scalar(db.select(User).filter_by(username=world["agent"]))
        sup = factories.user("supervisor", "tapurah")
        act = acts(inspect(vehicle, agent, {"mirrors": "fail", "general-condition": "ok"},
                           now - timedelta(hours=2), ack=None))[0]
        enforcement.confirm(act, sup, now)
        db.session.commit()
        act_id, number = act.id, act.notice.number
        assert act.deadline_at is None
        db.session.remove()

    context, _guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    waiting = page.locator(f"#result [data-notice='{act_id}']")
    expect(waiting).to_contain_text(f"Notificação nº {number}")
    expect(waiting.locator(".notice-deadline")).to_have_text(
        "Documento ainda não entregue: o prazo começa a contar da entrega")
    context.close()
