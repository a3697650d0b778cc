"""The agenda (docs/vistoria.md): a town's places with weekdays, hours and vehicles an hour; no
slot on a day without office (Saturday, a national holiday, a closure of the town's own
calendar); the admin books a vehicle into a free slot, a taken slot is refused, a no-show is
recorded once its time has passed. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from sqlalchemy import select

from inspector import vistorias
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import AppointmentStatus, AuditEntry, VistoriaAppointment
from tests import factories

MONDAY = date(2026, 12, 14)


@pytest.fixture
def office(app):
    """Tapurah with a place open Monday to Friday, 8 h to 10 h, 2 vehicles an hour."""
    with app.app_context():
        admin = factories.user("admin", "tapurah", username="admin.agenda")
        place = vistorias.save_place(
            admin.municipality_id, {"name": "Pátio da Prefeitura", "address": "Av. Brasil",
                                    "weekdays": ["0", "1", "2", "3", "4"], "start_hour": "8",
                                    "end_hour": "10", "slots_per_hour": "2"}, admin)
        v = factories.vehicle("tapurah", "mototaxi", plate="QAG1A23")
        out = place.id, admin.municipality_id, v.plate
        db.session.commit()
        return out


def test_slots_follow_hours_weekdays_and_the_legal_calendar(app, office):
    place_id, town, _ = office
    with app.app_context():
        place = next(p for p in vistorias.agenda_places(town) if p.id == place_id)
        monday = vistorias.free_slots(place, MONDAY)
        assert [s.strftime("%H:%M") for s in monday.slots] == ["08:00", "08:30", "09:00", "09:30"]
        saturday = vistorias.free_slots(place, MONDAY + timedelta(days=5))
        assert saturday.slots == ()
        assert saturday.closed == "Pátio da Prefeitura não atende aos sábados"
        christmas = vistorias.free_slots(place, date(2026, 12, 25))  # a Friday, Lei 662/1949
        assert christmas.slots == () and "Natal" in christmas.closed


def test_the_admin_books_a_free_slot_once_and_records_a_no_show(app, office, client):
    place_id, town, plate = office
    assert client.login("admin.agenda").status_code == 302
    with time_machine.travel(datetime(2026, 12, 10, 15, 0, tzinfo=UTC), tick=True):
        page = client.get(f"/vistorias/agenda?dia={MONDAY.isoformat()}").get_data(as_text=True)
        assert 'value="2026-12-14T08:30"' in page
        r = client.post_form("/vistorias/agenda/agendar", {
            "plate": plate, "place": str(place_id), "when": "2026-12-14T08:30",
            "kind": "periodic"})
        assert r.status_code == 303
        again = client.post_form("/vistorias/agenda/agendar", {
            "plate": plate, "place": str(place_id), "when": "2026-12-14T08:30",
            "kind": "periodic"})
        assert again.status_code == 422
        assert "não está livre" in again.get_data(as_text=True)
        page = client.get(f"/vistorias/agenda?dia={MONDAY.isoformat()}").get_data(as_text=True)
        assert 'value="2026-12-14T08:30"' not in page and plate in page
        with app.app_context():
            appt = db.session.scalar(select(VistoriaAppointment))
            with pytest.raises(ValidationFailed):  # not yet: its hour has not come
                vistorias.mark_appointment(appt, "no_show", "test")
            db.session.rollback()
    with time_machine.travel(datetime(2026, 12, 14, 14, 0, tzinfo=UTC), tick=True):
        with app.app_context():
            appt_id = db.session.scalar(select(VistoriaAppointment.id))
        r = client.post_form(f"/vistorias/agenda/{appt_id}/no_show", {})
        assert r.status_code == 303
        with app.app_context():
            appt = db.session.get(VistoriaAppointment, appt_id)
            assert appt.status == AppointmentStatus.NO_SHOW
            assert db.session.scalar(select(AuditEntry.action).where(
                AuditEntry.entity == "vistoria_appointment").order_by(AuditEntry.seq.desc())
                .limit(1)) == "vistoria_no_show"


def test_bad_bookings_are_422_in_portuguese_and_nothing_is_written(app, office, client):
    place_id, town, plate = office
    assert client.login("admin.agenda").status_code == 302
    with time_machine.travel(datetime(2026, 12, 10, 15, 0, tzinfo=UTC), tick=True):
        for form, field in (({"plate": "ZZZ9Z99"}, "veículo não encontrado"),
                            ({"when": "2026-12-19T08:00"}, "não atende aos sábados"),
                            ({"when": "2026-12-14T07:00"}, "não está livre"),
                            ({"when": "amanhã"}, "escolha o dia e o horário"),
                            ({"kind": "street"}, "prévia ou periódica"),
                            ({"place": "99999999999"}, "local de vistoria")):
            data = {"plate": plate, "place": str(place_id), "when": "2026-12-14T08:00",
                    "kind": "prior"} | form
            r = client.post_form("/vistorias/agenda/agendar", data)
            assert r.status_code == 422, form
            assert field in r.get_data(as_text=True), (form, field)
    with app.app_context():
        assert db.session.scalar(select(VistoriaAppointment)) is None
