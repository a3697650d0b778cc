"""On a 360 x 740 phone, in Chromium: the holder opens their notice with the printed code,
reads how to prove the broken mirror fixed (present the moto-taxi at the periodic vistoria,
Tapurah Lei 406/2001 Art. 23 X, at the town's place), books the vistoria in a free slot and
sees it booked; axe-core finds no violation on the page before and after."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from inspector import vistorias
from inspector.extensions import db
from inspector.models import AppointmentStatus, Notice, VistoriaAppointment
from tests import factories
from tests.browser.field_helpers import axe_violations
from tests.support.holder import tapurah_notice
from tests.support.instants import CUIABA

pytestmark = pytest.mark.browser


def _phone(browser, live_server):
    context = browser.new_context(base_url=live_server.url, locale="pt-BR",
                                  viewport={"width": 360, "height": 740})
    context.set_default_timeout(20_000)
    return context


def test_the_holder_reads_how_to_prove_it_and_books_the_vistoria(app, browser, live_server):
    n = tapurah_notice(app)
    with app.app_context():
        admin = factories.user("admin", "tapurah")
        vistorias.save_place(admin.municipality_id, {
            "name": "Pátio da Secretaria", "address": "Av. Brasil, 100",
            "weekdays": ["0", "1", "2", "3", "4"], "start_hour": "8", "end_hour": "10",
            "slots_per_hour": "2"}, admin)
        vehicle_id = db.session.get(Notice, n["notice_id"]).sanction.vehicle_id
        db.session.commit()
    context = _phone(browser, live_server)
    try:
        page = context.new_page()
        page.goto(f"/notificacoes/{n['path']}")
        page.fill("#codigo", n["code"])
        page.click("button[type=submit]")
        proof = page.locator("[data-proof]")
        proof.wait_for()
        assert proof.get_attribute("data-proof") == "present_vehicle"
        assert "na vistoria periódica (Lei 406/2001, Art. 23, X)" in proof.inner_text()
        assert "Pátio da Secretaria, Av. Brasil, 100" in page.locator("[data-proof-where]").inner_text()
        problems = axe_violations(page, page.url)
        select_ = page.locator(f"#horario-{vehicle_id}")
        chosen = select_.locator("option").nth(1)
        value, label = chosen.get_attribute("value"), chosen.inner_text()
        select_.select_option(value)
        page.get_by_role("button", name="Agendar").click()
        booked = page.locator("[data-vistoria-booking]")
        booked.wait_for()
        day = value.split("@")[1][:10]
        assert f"{day[8:10]}/{day[5:7]}/{day[:4]} às {label[:5]}" in booked.inner_text()
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
        problems += axe_violations(page, page.url)
        assert problems == []
    finally:
        context.close()
    with app.app_context():
        [appt] = db.session.scalars(select(VistoriaAppointment).where(
            VistoriaAppointment.status == AppointmentStatus.BOOKED)).all()
        assert appt.vehicle_id == vehicle_id
        assert appt.starts_at.astimezone(CUIABA).strftime("%Y-%m-%dT%H:%M") == value.split("@")[1]
