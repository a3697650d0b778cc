"""On a 360×740 phone, offline, the agent runs Tapurah's periodic vistoria (Lei 406/2001
Art. 23 X: every 6 months) on a moto-taxi booked for today in the agenda: the day's list on
the phone opens its card, which offers the vistoria beside the street inspection,
the form holds only the items the vistoria checks (not the rider's uniform), the kind travels
with the synced inspection, and the server approves it and issues the certificate whose QR
(read by zxing-cpp from the PDF as poppler draws it) opens a page that says it is valid."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import start_online, sync_until_empty
from tests.support.documents import qr_codes, rasterise

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}


def _prefix(app, world) -> str:
    from inspector.extensions import db
    from inspector.models import Vehicle

    with app.app_context():
        return db.session.get(Vehicle, world["vehicle_id"]).prefix


def _certificate(app):
    from inspector.clock import default_day
    from inspector.extensions import db
    from inspector.models import Inspection, Vistoria, VistoriaAppointment
    from inspector.rules import add_months

    with app.app_context():
        insp = db.session.scalars(db.select(Inspection)).one()
        v = db.session.scalars(db.select(Vistoria)).one()
        out = (insp.kind.value, v.result.value, v.valid_until, add_months(default_day(), 6),
               bytes(v.pdf))
        booking = db.session.scalars(db.select(VistoriaAppointment)).one()
        assert booking.status.value == "done"  # the booking took place
        db.session.remove()
        return out


def _book_today(app, world) -> None:
    """The vehicle booked in the agenda at 08:00 today, the town's time (as the admin's
    booking leaves it; tests/vistorias/test_agenda.py books through the form)."""
    from datetime import UTC, datetime, time

    from inspector.clock import default_day
    from inspector.extensions import db
    from inspector.models import (
        AppointmentStatus,
        InspectionKind,
        Vehicle,
        VistoriaAppointment,
        VistoriaPlace,
    )
    from tests.support.instants import CUIABA

    with app.app_context():
        town = db.session.get(Vehicle, world["vehicle_id"]).municipality_id
        place = VistoriaPlace(municipality_id=town, name="Pátio da Prefeitura", address="",
                              weekdays="0,1,2,3,4,5,6", start_hour=8, end_hour=12,
                              slots_per_hour=2, active=True)
        db.session.add(place)
        db.session.flush()
        db.session.add(VistoriaAppointment(
            municipality_id=town, place_id=place.id, vehicle_id=world["vehicle_id"],
            kind=InspectionKind.PERIODIC, status=AppointmentStatus.BOOKED,
            starts_at=datetime.combine(default_day(), time(8), CUIABA).astimezone(UTC),
            booked_at=datetime.now(UTC)))
        db.session.commit()
        db.session.remove()


def test_a_periodic_vistoria_offline_ends_in_a_certificate_whose_qr_verifies(
        browser, live_server, app, world, tmp_path):
    _book_today(app, world)
    # the phone in Mato Grosso: its day is the town's
    context, guard, page = start_online(browser, live_server, world["agent"], viewport=PHONE,
                                        timezone_id="America/Cuiaba")
    context.set_offline(True)
    page.reload()
    agenda = page.locator("#agenda-box")
    expect(agenda).to_be_visible()
    expect(agenda.get_by_role("button")).to_have_text(
        [f"08:00 · {world['plate']} · prefixo {_prefix(app, world)} · Vistoria periódica · "
         "Pátio da Prefeitura"])
    agenda.get_by_role("button").click()
    expect(page.locator("#result .plate")).to_contain_text(world["plate"])
    kinds = page.locator("#start-kinds")
    expect(kinds.get_by_role("button")).to_have_text(["Vistoria prévia", "Vistoria periódica"])
    kinds.get_by_role("button", name="Vistoria periódica").click()
    expect(page.locator("#inspection-title")).to_contain_text("Vistoria periódica")
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    ids = [items.nth(i).get_attribute("data-item-id") for i in range(items.count())]
    assert "general-condition" in ids and "leg-guard" in ids
    assert "uniform" not in ids and "one-passenger" not in ids  # the street's, not the vistoria's
    expect(page.locator("#shorten-box")).to_be_hidden()  # Tapurah's law does not allow it
    for i in range(items.count()):
        items.nth(i).locator("label.choice.ok").click()
    page.locator("#inspection-save").click()
    expect(page.locator("#pending")).to_have_attribute("data-inspections", "1")
    context.set_offline(False)
    sync_until_empty(page)
    kind, result, until, expected, pdf = _certificate(app)
    expect(page.locator("#toast")).to_contain_text(
        f"Vistoria aprovada ({world['plate'][:3]}")  # the phone is told the result
    expect(page.locator("#toast")).to_contain_text(f"válida até {until.strftime('%d/%m/%Y')}")
    assert (kind, result, until) == ("periodic", "approved", expected)
    codes = qr_codes(rasterise(pdf, tmp_path, pages=1))
    assert len(codes) == 1 and urlsplit(codes[0]).path.startswith("/v/")
    page.goto(urlsplit(codes[0]).path)
    expect(page.locator("#veredito h1")).to_have_text("Vistoria válida")
    expect(page.locator("#valida-ate")).to_have_text(until.strftime("%d/%m/%Y"))
    assert not guard.foreign()
    context.close()
