"""Who was driving and the driver's "ciente" in the field app (Tapurah Lei 406/2001, Art. 27,
I), offline, on a moto-taxi with two linked riders (Debian Chromium, real server): the agent
picks the second rider, a signature without a name is refused next to the field, and after the
sync the server's inspection names that rider and keeps the signature with the name; the review
page shows both. Server state is read from the database, never through the browser under test.
"""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import (
    fill_checklist,
    sign_on_canvas,
    start_online,
    sync_until_empty,
)

pytestmark = pytest.mark.browser

SECOND = "Bruno Segundo Mototaxista"


@pytest.fixture
def two_riders(app):
    """Tapurah: an agent, a supervisor, QBX6R89 with two linked riders (photos on the card)."""
    from inspector.extensions import db
    from tests.support.credentials import jpeg, regular_mototaxi

    with app.app_context():
        vehicle = regular_mototaxi("tapurah", plate="QBX6R89")
        second = factories.driver("tapurah", "mototaxista", name=SECOND,
                                  holder_id=vehicle.holder_id, photo=jpeg(),
                                  photo_mime="image/jpeg")
        vehicle.drivers.append(second)
        agent = factories.user("agent", "tapurah", name="Ana Fiscal")
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        return {"agent": agent.username, "supervisor": sup.username, "plate": vehicle.plate,
                "second_id": second.id}


def test_the_agent_picks_the_second_rider_and_the_ciente_keeps_its_name(
        browser, live_server, app, two_riders):
    context, guard, page = start_online(browser, live_server, two_riders["agent"])
    context.set_offline(True)
    page.fill("#search-q", two_riders["plate"].lower())
    page.get_by_role("button", name="Buscar").click()
    expect(page.locator("#result .plate")).to_contain_text(two_riders["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, [], fail=0)

    # two riders: none chosen for the agent, each a large radio with the card's photo
    choices = page.locator("#driver-choices label.driver-choice")
    expect(choices).to_have_count(2)
    expect(choices.locator("img")).to_have_count(2)
    expect(page.locator('#inspection-form input[name="driver"]:checked')).to_have_count(0)
    expect(page.locator("#ack-name")).to_have_value("")
    assert choices.nth(0).bounding_box()["height"] >= 44

    # a signature with no name is refused on the phone, next to the field
    sign_on_canvas(page)
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#ack-name-error")).to_have_text("Escreva o nome de quem assinou o ciente.")
    expect(page.locator("#ack-name-error")).to_be_visible()
    assert page.evaluate("async () => (await window.fieldApp.store.outboxEntries()).length") == 0

    # the agent says who was driving: the second rider; the ciente's name follows
    choices.filter(has_text=SECOND).click()
    expect(page.locator("#ack-name")).to_have_value(SECOND)
    expect(page.locator("#ack-name-error")).to_be_hidden()
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")

    context.set_offline(False)
    sync_until_empty(page)
    expect(page.locator("#sync-status")).to_contain_text("1 vistoria enviada")

    from inspector.extensions import db
    from inspector.models import Inspection

    with app.app_context():
        [insp] = db.session.scalars(db.select(Inspection)).all()
        held = {"id": insp.id, "ack_name": insp.ack_name, "sig": insp.ack_signature,
                "driver": json.loads(insp.body)["driver"]}
        db.session.remove()
    assert held["ack_name"] == SECOND
    assert held["sig"] and held["sig"].startswith(b"\x89PNG")
    assert held["driver"] == {"id": two_riders["second_id"], "name": SECOND}

    client = app.test_client()
    client.login(two_riders["supervisor"])
    html = " ".join(client.get(f"/revisao/vistorias/{held['id']}").get_data(as_text=True).split())
    assert f"Condutor na vistoria</dt><dd>{SECOND}</dd>" in html
    assert re.search(rf'Ciente do condutor</dt><dd>{SECOND} <img class="signature" '
                     rf'src="/revisao/vistorias/{held["id"]}/assinatura.png"', html)
    assert guard.foreign() == []
    context.close()


def test_someone_not_registered_is_named_by_the_agent(browser, live_server, app, two_riders):
    context, _, page = start_online(browser, live_server, two_riders["agent"])
    context.set_offline(True)
    page.fill("#search-q", two_riders["plate"].lower())
    page.get_by_role("button", name="Buscar").click()
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, [], fail=0)
    page.get_by_text("Outro / não cadastrado").click()
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#driver-error")).to_have_text("Escreva o nome de quem conduzia.")
    page.fill("#driver-other-name", "Zé Sem Cadastro")
    # nobody has signed: the app writes no ciente by itself (Tapurah Art. 27, I: the notice
    # is signed by the rider; a ciente starts the 72 hours of Art. 29 on the street)
    expect(page.locator("#ack-name")).to_have_value("")
    sign_on_canvas(page)
    expect(page.locator("#ack-name")).to_have_value("Zé Sem Cadastro")
    page.get_by_role("button", name="Limpar assinatura").click()
    expect(page.locator("#ack-name")).to_have_value("")
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")
    body = page.evaluate("async () => (await window.fieldApp.store.outboxEntries())[0].body")
    assert body["driver"] == {"id": None, "name": "Zé Sem Cadastro"}
    assert body["acknowledgement"] is None
    context.close()


def test_a_single_rider_prefilled_gives_no_ciente_until_someone_signs(
        browser, live_server, app):
    """One linked rider is chosen for the agent; saving without a signature sends no ciente,
    so the act's deadline is not counted from the street."""
    from inspector.extensions import db
    from tests.support.credentials import regular_mototaxi

    with app.app_context():
        vehicle = regular_mototaxi("tapurah", plate="QBX6R90")
        agent = factories.user("agent", "tapurah", name="Ana Fiscal")
        db.session.commit()
        plate, username = vehicle.plate, agent.username
    context, _, page = start_online(browser, live_server, username)
    context.set_offline(True)
    page.fill("#search-q", plate.lower())
    page.get_by_role("button", name="Buscar").click()
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, [], fail=0)
    expect(page.locator('#inspection-form input[name="driver"]:checked')).to_have_count(1)
    expect(page.locator("#ack-name")).to_have_value("")
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")
    body = page.evaluate("async () => (await window.fieldApp.store.outboxEntries())[0].body")
    assert body["driver"]["id"] is not None
    assert body["acknowledgement"] is None
    context.close()
