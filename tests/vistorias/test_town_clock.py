"""A town's vistorias run on the town's own clock (`municipalities.timezone`), not Cuiabá's:
Tapurah set to Fernando de Noronha's zone (UTC-2, two hours ahead of Mato Grosso), so that
around midnight the two clocks name different days and at any hour different times. The
agenda opens on the town's day and lists the town's hours; a slot booked at 08:00 is 08:00
in the town; the holder page offers no hour already past in the town and refuses one; the
reminder counts the days left from the town's day (docs/vistoria.md). Each test runs at the
instants of tests/support/instants.py (`instant`)."""
from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta
from email.header import decode_header, make_header
from zoneinfo import ZoneInfo

import pytest
import time_machine
from sqlalchemy import select

from inspector import vistorias
from inspector.extensions import db
from inspector.laws import calendar_for
from inspector.models import AppointmentStatus, VistoriaAppointment, VistoriaPlace
from inspector.registry import vistoria_valid_until
from inspector.rules import add_months, why_no_office
from tests import factories
from tests.support.push import notice_row

ZONE = "America/Noronha"
NORONHA = ZoneInfo(ZONE)
CODE = "K7M2P-QRS9T"


@pytest.fixture
def town(app):
    """Tapurah on Fernando de Noronha's clock, with its admin and a place open every weekday
    from 08:00 to 16:00, two slots an hour."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        t = factories.town("tapurah", timezone=ZONE)
        admin = factories.user("admin", "tapurah", username="admin.noronha")
        place = vistorias.save_place(t.id, {
            "name": "Pátio da Prefeitura", "address": "Av. Brasil, 100",
            "weekdays": ["0", "1", "2", "3", "4"], "start_hour": "8", "end_hour": "16",
            "slots_per_hour": "2"}, admin)
        db.session.commit()
        return {"id": t.id, "admin": admin.username, "place": place.id}


def _next_office_day(app, town_id: int, after: date) -> date:
    with app.app_context():
        calendar = calendar_for(town_id)
        day = after + timedelta(days=1)
        while why_no_office(day, calendar):
            day += timedelta(days=1)
        return day


def test_the_agenda_opens_on_the_towns_day(app, town, instant):
    c = app.test_client()
    assert c.login(town["admin"]).status_code == 302
    page = c.get("/vistorias/agenda").get_data(as_text=True)
    today = datetime.now(UTC).astimezone(NORONHA).date()
    assert f'id="dia" name="dia" type="date" value="{today.isoformat()}"' in page
    assert f"Vistorias agendadas em {today:%d/%m/%Y}" in page


def test_a_slot_is_an_hour_of_the_towns_clock(app, town, instant):
    """The place opens at 08:00 in the town: the admin's booking "08:00" is 10:00 UTC
    (Noronha is UTC-2), the agenda shows it at 08:00, and the phone's list gives that hour."""
    today = datetime.now(UTC).astimezone(NORONHA).date()
    day = _next_office_day(app, town["id"], today)
    with app.app_context():
        place = db.session.get(VistoriaPlace, town["place"])
        starts = vistorias.free_slots(place, day).slots
        assert [s.strftime("%H:%M") for s in starts[:3]] == ["08:00", "08:30", "09:00"]
        assert starts[0].astimezone(UTC) == datetime(day.year, day.month, day.day, 10, tzinfo=UTC)
        vid = factories.vehicle("tapurah", "mototaxi", plate="QNR1A23",
                                last_vistoria_on=today - timedelta(days=30)).id
        db.session.commit()
    c = app.test_client()
    assert c.login(town["admin"]).status_code == 302
    r = c.post_form("/vistorias/agenda/agendar", {"plate": "QNR1A23", "place": str(town["place"]),
                                                 "when": f"{day.isoformat()}T08:00",
                                                 "kind": "periodic"},
                    token_from="/vistorias/agenda")
    assert r.status_code == 303, r.get_data(as_text=True)
    assert r.headers["Location"].endswith(f"dia={day.isoformat()}")
    with app.app_context():
        appt = db.session.scalar(select(VistoriaAppointment).where(
            VistoriaAppointment.vehicle_id == vid))
        stored = appt.starts_at if appt.starts_at.tzinfo else appt.starts_at.replace(tzinfo=UTC)
        assert stored == datetime(day.year, day.month, day.day, 10, tzinfo=UTC)
        # the phone keeps the list of a day and the next (synced the evening before)
        [listed] = vistorias.appointments_for_phone(town["id"], day)
        assert (listed["day"], listed["time"]) == (day.isoformat(), "08:00")
    page = c.get(f"/vistorias/agenda?dia={day.isoformat()}").get_data(as_text=True)
    assert '<td data-label="Hora">08:00</td>' in page


def test_the_holder_page_offers_and_takes_no_hour_past_in_the_town(app, town, instant):
    """At every instant, each hour offered is still ahead on the town's clock; an hour of the
    town's today already past there is refused in pt-BR, nothing written."""
    now = datetime.now(UTC)
    with app.app_context():
        v = factories.vehicle("tapurah", "mototaxi", plate="QNR2B34",
                              last_vistoria_on=now.astimezone(NORONHA).date() - timedelta(days=30))
        n = notice_row(v.holder, v, code=CODE)
        db.session.commit()
        path, vid = f"tapurah/{n.number}", v.id
    c = app.test_client()
    page = c.holder_page(path, CODE)
    offered = [value.split('"', 1)[0] for value in page.split(f'value="{town["place"]}@')[1:]]
    assert offered, "no slot offered"
    for when in offered:
        start = datetime.fromisoformat(when).replace(tzinfo=NORONHA)
        assert start > now, f"{when} offered, already past in the town"
    # an hour already past in the town: 08:00 of its today, or of the day before
    past = datetime.combine(now.astimezone(NORONHA).date(), time(8), NORONHA)
    if past >= now:
        past -= timedelta(days=1)
    r = c.post(f"/notificacoes/{path}/vistoria", data={
        "veiculo": str(vid), "horario": f"{town['place']}@{past:%Y-%m-%dT%H:%M}",
        "csrf_token": c.csrf_token(f"/notificacoes/{path}")})
    assert r.status_code == 422
    assert "Este horário já passou: escolha outro." in r.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(VistoriaAppointment.id)) is None


def test_an_hour_past_in_the_town_but_ahead_in_cuiaba_is_refused(app, town):
    """Thursday 10/12/2026 12:30 UTC is 10:30 in the town and 08:30 in Cuiabá: the town's
    09:00 has passed (it is not offered, and is refused), its 11:00 is offered."""
    with time_machine.travel(datetime(2026, 12, 10, 12, 30, tzinfo=UTC), tick=True):
        with app.app_context():
            v = factories.vehicle("tapurah", "mototaxi", plate="QNR3C45",
                                  last_vistoria_on=date(2026, 11, 1))
            n = notice_row(v.holder, v, code=CODE)
            db.session.commit()
            path, vid = f"tapurah/{n.number}", v.id
        c = app.test_client()
        page = c.holder_page(path, CODE)
        assert f'value="{town["place"]}@2026-12-10T09:00"' not in page
        assert f'value="{town["place"]}@2026-12-10T10:00"' not in page
        assert f'value="{town["place"]}@2026-12-10T11:00"' in page
        r = c.post(f"/notificacoes/{path}/vistoria", data={
            "veiculo": str(vid), "horario": f"{town['place']}@2026-12-10T09:00",
            "csrf_token": c.csrf_token(f"/notificacoes/{path}")})
        assert r.status_code == 422
        assert "Este horário já passou: escolha outro." in r.get_data(as_text=True)
        r = c.post(f"/notificacoes/{path}/vistoria", data={
            "veiculo": str(vid), "horario": f"{town['place']}@2026-12-10T11:00",
            "csrf_token": c.csrf_token(f"/notificacoes/{path}")})
        assert r.status_code == 303
        page = c.get(f"/notificacoes/{path}").get_data(as_text=True)
        assert "Vistoria agendada: <strong>10/12/2026 às 11:00</strong>" in page
    with app.app_context():
        appt = db.session.scalar(select(VistoriaAppointment).where(
            VistoriaAppointment.status == AppointmentStatus.BOOKED))
        stored = appt.starts_at if appt.starts_at.tzinfo else appt.starts_at.replace(tzinfo=UTC)
        assert stored == datetime(2026, 12, 10, 13, 0, tzinfo=UTC)


def test_the_reminder_counts_the_days_left_from_the_towns_day(app, town, smtp, instant):
    """A vistoria valid until seven days after the town's today (Tapurah Lei 406/2001 Art. 23
    X: every 6 months): the 7-day reminder, saying how many days are left on the town's
    calendar, whatever day it already is in Cuiabá."""
    today = datetime.now(UTC).astimezone(NORONHA).date()
    with app.app_context():
        v = factories.vehicle("tapurah", "mototaxi", plate="QNR4D56",
                              last_vistoria_on=add_months(today + timedelta(days=7), -6))
        v.holder.email = "dono@example.com"
        due = vistoria_valid_until(v, today).until
        db.session.commit()
    left = (due - today).days
    assert 5 <= left <= 7   # 6 months from a clamped day can end a day or two early
    out = app.test_cli_runner().invoke(args=["vistorias", "remind", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["sent"] == [{"plate": "QNR4D56", "lead_days": 7,
                                               "channel": "email"}]
    [mail] = smtp.received
    assert str(make_header(decode_header(mail["Subject"]))) == \
        f"Vistoria do veículo QNR4D56 vence em {due:%d/%m/%Y}"
    text = " ".join(mail.get_payload(decode=True).decode().split())
    assert f"vale até {due:%d/%m/%Y} ({left} dias)" in text
