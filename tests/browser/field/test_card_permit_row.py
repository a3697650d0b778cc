"""The agent's card, offline at 360×740, names the company permit that fell and its cause: the
demo after its tick (Tapurah's Moto Táxi Cravari ME lost its permit AUT-002 when a policy lapsed,
Lei 406/2001 Art. 17). A moto of the company with its own papers in order reads IRREGULAR with
the company sentence and Art. 17, a "Permissão AUT-002" row "cassada em … (Art. 17)" and its
Alvará "sem efeito: permissão cassada (Art. 17)", never "válido"."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from inspector.demo.data import DEMO_PASSWORD
from inspector.extensions import db
from inspector.models import Holder, Vehicle
from tests.browser.field_helpers import OriginGuard, open_app

pytestmark = pytest.mark.browser


def test_a_company_moto_shows_the_fallen_permit_offline(app, runner, browser, live_server):
    assert runner.invoke(args=["demo", "seed"]).exit_code == 0
    assert runner.invoke(args=["enforcement", "tick"]).exit_code == 0
    with app.app_context():
        plate = db.session.scalar(select(Vehicle.plate).join(Holder).where(
            Holder.name == "Moto Táxi Cravari ME", Vehicle.plate != "SAF9Q98").order_by(Vehicle.plate))
        db.session.remove()
    context = browser.new_context(base_url=live_server.url, locale="pt-BR",
                                  viewport={"width": 360, "height": 740})
    context.set_default_timeout(15_000)
    guard = OriginGuard(context, live_server.url)
    page = context.new_page()
    page.goto("/entrar?next=/campo")
    page.fill("#username", "agente.tapurah")
    page.fill("#password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(r"/campo$"))
    open_app(page)
    expect(page.locator("#freshness")).to_contain_text("Dados atualizados em")
    context.set_offline(True)
    page.fill("#search-q", plate)
    page.get_by_role("button", name="Buscar").click()
    card = page.locator("#result .card")
    expect(card.locator(".plate")).to_contain_text(plate)
    reason = card.locator(".reasons li", has_text="Permissão AUT-002")
    expect(reason).to_contain_text(re.compile(
        r"Permissão AUT-002 da empresa Moto Táxi Cravari ME cassada em \d\d/\d\d/\d{4} \(seguro do "
        r"moto-táxi SAF9Q98 vencido\): nenhum moto-táxi da empresa pode circular"))
    expect(reason).to_contain_text("(Lei 406/2001, Art. 17)")
    card.locator("details.card-details summary").click()
    permit = card.locator('li.document[data-document="permit"]')
    expect(permit).to_contain_text(re.compile(r"Permissão AUT-002cassada em \d\d/\d\d/\d{4}"))
    expect(permit).to_contain_text("(Lei 406/2001, Art. 17)")
    licence = card.locator('li.document[data-document="licence"]')
    expect(licence).to_contain_text("sem efeito: permissão cassada (Lei 406/2001, Art. 17)")
    expect(licence).to_have_class(re.compile(r"\bexp-bad\b"))
    expect(card.locator(".expiries").first).not_to_contain_text("válido")
    assert guard.foreign() == []
    context.close()
