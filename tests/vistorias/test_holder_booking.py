"""The holder books or moves their own vehicle's vistoria from the holder page (opened with a
notice's access code), into a free slot of the town's agenda (docs/vistoria.md, "The holder's
page"); they see the reminders sent. Hostile input is refused in pt-BR with nothing written:
another holder's vehicle, a taken slot, a day without office, a past hour, no code, no CSRF
token. Of two holders booking the last slot at once, one wins (real threaded server; runs on
SQLite and PostgreSQL, DATABASE_URL)."""
from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlencode

import pytest
import time_machine
from sqlalchemy import func, select

from inspector import vistorias
from inspector.extensions import db
from inspector.models import AppointmentStatus, AuditEntry, User, Vehicle, VistoriaAppointment
from inspector.vistorias import holders
from tests import factories
from tests.support.concurrent import Session
from tests.support.instants import CUIABA
from tests.support.push import notice_row
from tests.support.smtp import SmtpServer

CODE = "K7M2P-QRS9T"
THURSDAY = datetime(2026, 12, 10, 15, 0, tzinfo=UTC)  # 11:00 in Mato Grosso
MONDAY = date(2026, 12, 14)


@pytest.fixture
def happ(app):
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    return app


def _place(admin, start="8", end="10", per_hour="2"):
    return vistorias.save_place(admin.municipality_id, {
        "name": "Pátio da Prefeitura", "address": "Av. Brasil, 100",
        "weekdays": ["0", "1", "2", "3", "4"], "start_hour": start, "end_hour": end,
        "slots_per_hour": per_hour}, admin)


@pytest.fixture
def world(happ):
    """Tapurah (periodic vistoria every 6 months, Lei 406/2001 Art. 23 X): a place open Monday
    to Friday 8 h-10 h, two vehicles an hour; a holder with a moto-taxi and a notice printed
    with CODE; another holder's moto-taxi."""
    with happ.app_context(), time_machine.travel(THURSDAY, tick=False):
        admin = factories.user("admin", "tapurah", username="admin.agenda")
        place = _place(admin)
        mine = factories.vehicle("tapurah", "mototaxi", plate="QAH1A23",
                                 last_vistoria_on=date(2026, 6, 20))
        theirs = factories.vehicle("tapurah", "mototaxi", plate="QAH9Z99",
                                   last_vistoria_on=date(2026, 6, 20))
        n = notice_row(mine.holder, mine, code=CODE)
        db.session.commit()
        return {"place": place.id, "mine": mine.id, "theirs": theirs.id,
                "holder": mine.holder_id, "path": f"tapurah/{n.number}"}


def _book(client, w, vehicle, slot, token=True):
    data = {"veiculo": str(vehicle), "horario": slot}
    if token:
        data["csrf_token"] = client.csrf_token(f"/notificacoes/{w['path']}")
    return client.post(f"/notificacoes/{w['path']}/vistoria", data=data)


def _open(happ, w):
    c = happ.test_client()
    c.holder_page(w["path"], CODE)
    return c


def _booked(happ) -> list[tuple[int, str]]:
    with happ.app_context():
        return [(a.vehicle_id, a.starts_at.astimezone(CUIABA).strftime("%Y-%m-%dT%H:%M"))
                for a in db.session.scalars(select(VistoriaAppointment).where(
                    VistoriaAppointment.status == AppointmentStatus.BOOKED))]


def test_the_holder_books_then_moves_their_vehicles_vistoria(happ, world):
    w = world
    with time_machine.travel(THURSDAY, tick=True):
        c = _open(happ, w)
        page = c.get(f"/notificacoes/{w['path']}").get_data(as_text=True)
        assert "Vistoria dos seus veículos" in page
        # 6 months after 20/06/2026 (Tapurah Art. 23 X)
        assert "Vistoria válida até 20/12/2026." in page
        assert "QAH9Z99" not in page  # another holder's vehicle is not offered
        # today's slots are gone (11:00, the place closes at 10 h); Saturday has none
        assert f'value="{w["place"]}@2026-12-10T' not in page
        assert f'value="{w["place"]}@2026-12-12T' not in page
        assert f'value="{w["place"]}@2026-12-14T08:30"' in page
        r = _book(c, w, w["mine"], f"{w['place']}@2026-12-14T08:30")
        assert r.status_code == 303 and r.headers["Location"].endswith("#vistoria")
        assert _booked(happ) == [(w["mine"], "2026-12-14T08:30")]
        page = c.get(f"/notificacoes/{w['path']}").get_data(as_text=True)
        assert "Vistoria agendada: <strong>14/12/2026 às 08:30</strong>, Pátio da Prefeitura" \
            in page
        assert "Mudar o agendamento" in page
        # moving: the old booking is cancelled, the new one taken, both the holder's
        r = _book(c, w, w["mine"], f"{w['place']}@2026-12-15T09:00")
        assert r.status_code == 303
        assert _booked(happ) == [(w["mine"], "2026-12-15T09:00")]
    with happ.app_context():
        entries = db.session.execute(select(AuditEntry.action, AuditEntry.actor).where(
            AuditEntry.action.in_(("vistoria_booked", "vistoria_cancelled")))
            .order_by(AuditEntry.id)).all()
        actor = f"titular:{w['holder']}"
        assert [tuple(e) for e in entries] == [("vistoria_booked", actor),
                                               ("vistoria_cancelled", actor),
                                               ("vistoria_booked", actor)]


def _nothing_written(happ, before: int):
    with happ.app_context():
        assert db.session.scalar(select(func.count(VistoriaAppointment.id))) == before
        assert db.session.scalar(select(func.count(AuditEntry.id)).where(
            AuditEntry.action.like("vistoria_%"), AuditEntry.action != "vistoria_place_saved")) \
            == 0


@pytest.mark.parametrize("case, slot, status, words", [
    ("another holder's vehicle", "{place}@2026-12-14T08:00", 422, "Escolha um dos seus veículos."),
    ("a slot already taken", "{place}@2026-12-14T09:00", 422, "não está livre"),
    ("a Saturday", "{place}@2026-12-12T08:00", 422, "não atende aos sábados"),
    ("Christmas", "{place}@2026-12-25T08:00", 422, "Natal"),
    ("a past day", "{place}@2026-12-09T08:00", 422, "já passou"),
    ("an hour of today already gone", "{place}@2026-12-10T08:30", 422, "já passou"),
    ("an hour the place is closed", "{place}@2026-12-14T15:00", 422, "não está livre"),
    ("no such place", "99999@2026-12-14T08:00", 422, "local de vistoria"),
    ("garbage", "'; DROP TABLE vehicles; --", 422, "Escolha um dia e horário da lista."),
    ("a year far ahead", "{place}@2030-01-07T08:00", 422, "próximos 21 dias"),
])
def test_hostile_input_is_refused_in_portuguese_with_nothing_written(
        happ, world, case, slot, status, words):
    w = world
    with happ.app_context(), time_machine.travel(THURSDAY, tick=False):
        # the 09:00 slot is taken by another vehicle, booked by the admin
        admin = db.session.scalar(select(User).where(
            User.username == "admin.agenda"))
        vistorias.book_vistoria(admin.municipality_id, "QAH9Z99", w["place"], "2026-12-14T09:00",
                                "periodic", admin)
        db.session.commit()
        before = db.session.scalar(select(func.count(VistoriaAppointment.id)))
        db.session.query(AuditEntry).delete()
        db.session.commit()
    vehicle = w["theirs"] if case == "another holder's vehicle" else w["mine"]
    with time_machine.travel(THURSDAY, tick=True):
        c = _open(happ, w)
        r = _book(c, w, vehicle, slot.format(place=w["place"]))
        assert r.status_code == status, case
        html = r.get_data(as_text=True)
        assert "data-vistoria-error" in html and words in html, html[-3000:]
    _nothing_written(happ, before)


def test_without_the_code_or_the_csrf_token_nothing_is_booked(happ, world):
    w = world
    slot = f"{w['place']}@2026-12-14T08:30"
    with time_machine.travel(THURSDAY, tick=True):
        stranger = happ.test_client()
        r = _book(stranger, w, w["mine"], slot)
        assert r.status_code == 403 and "código de acesso" in r.get_data(as_text=True)
        c = _open(happ, w)
        r = _book(c, w, w["mine"], slot, token=False)
        assert r.status_code == 400
    assert _booked(happ) == []


def test_the_page_lists_the_reminders_sent(happ, world):
    """A reminder 7 days before the due day, by e-mail through a real SMTP server."""
    w = world
    server = SmtpServer().start()
    try:
        happ.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=server.port,
                           SMTP_FROM="fiscalizacao@tapurah.mt.gov.br")
        on = date(2026, 12, 13)  # 20/12 is the last valid day
        with happ.app_context():
            v = db.session.get(Vehicle, w["mine"])
            v.holder.email = "dono@example.com"
            db.session.commit()
        out = happ.test_cli_runner().invoke(args=["vistorias", "remind", "--on", on.isoformat()])
        assert out.exit_code == 0, out.output
        assert len(server.received) == 1
    finally:
        server.stop()
    with time_machine.travel(datetime(2026, 12, 13, 15, 0, tzinfo=UTC), tick=True):
        page = _open(happ, w).get(f"/notificacoes/{w['path']}").get_data(as_text=True)
    assert re.search(r"Lembretes enviados: \d\d/12/2026 por e-mail \(7 dias antes de "
                     r"20/12/2026\)", page), page


def test_a_town_whose_law_sets_no_vistoria_offers_no_booking(happ):
    """Nortelândia Lei 127/2009 sets no vistoria of its own (docs/vistoria.md)."""
    with happ.app_context():
        v = factories.vehicle("nortelandia", "taxi", plate="QAH5B55",
                              last_vistoria_on=date(2026, 1, 5))  # a date from before the app
        n = notice_row(v.holder, v, code=CODE)
        db.session.commit()
        path = f"nortelandia/{n.number}"
    page = _open(happ, {"path": path}).get(f"/notificacoes/{path}").get_data(as_text=True)
    assert "Vistoria dos seus veículos" not in page


# ---------------------------------------------------------------- two holders, one last slot
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


class HolderBrowser(Session):
    """A holder's phone against the real server, the notice opened with its code."""

    def __init__(self, base_url: str, path: str, code: str):
        super().__init__(base_url)
        self.path = path
        status, _ = self.post(f"/notificacoes/{path}", {"codigo": code})
        assert status == 303, status

    def form(self, data: dict) -> bytes:
        _, page = self.request("GET", f"/notificacoes/{self.path}")
        return urlencode(data | {"csrf_token": _TOKEN.search(page).group(1)}).encode()

    def post(self, path, data):
        return self.request("POST", path, self.form(data),
                            {"Content-Type": "application/x-www-form-urlencoded"})


def test_two_holders_booking_the_last_slot_at_once_one_wins(happ, live_server):
    with happ.app_context():
        admin = factories.user("admin", "tapurah", username="admin.last")
        place = _place(admin, start="8", end="9", per_hour="1")  # one vehicle a day
        people = []
        for _ in range(4):
            v = factories.vehicle("tapurah", "mototaxi", last_vistoria_on=date.today()
                                  - timedelta(days=30))
            n = notice_row(v.holder, v, code=CODE)
            people.append((f"tapurah/{n.number}", v.id))
        db.session.commit()
        # the first day with office from tomorrow on: its one slot is the day's last
        _, options = holders.free_slots(admin.municipality_id, datetime.now(UTC) + timedelta(days=1))[0]
        [(slot, _)] = options
        assert slot.startswith(f"{place.id}@")
    browsers = [(HolderBrowser(live_server.url, path, CODE), vid) for path, vid in people]
    bodies = [(b, b.form({"veiculo": str(vid), "horario": slot})) for b, vid in browsers]
    start = threading.Barrier(len(bodies))

    def send(item):
        b, body = item
        start.wait()
        return b.request("POST", f"/notificacoes/{b.path}/vistoria", body,
                         {"Content-Type": "application/x-www-form-urlencoded"})

    with ThreadPoolExecutor(len(bodies)) as pool:
        answers = list(pool.map(send, bodies))
    codes = sorted(s for s, _ in answers)
    assert codes.count(303) == 1 and all(c in (409, 422) for c in codes if c != 303), codes
    for status, text in answers:
        if status != 303:
            assert "reservado por outra pessoa" in text or "não está livre" in text
    with happ.app_context():
        taken = db.session.scalars(select(VistoriaAppointment).where(
            VistoriaAppointment.status == AppointmentStatus.BOOKED,
            VistoriaAppointment.vehicle_id.in_([vid for _, vid in people]))).all()
        assert len(taken) == 1
        assert taken[0].starts_at.astimezone(CUIABA).strftime("%Y-%m-%dT%H:%M") == \
            slot.split("@")[1]
        assert db.session.scalar(select(func.count(AuditEntry.id)).where(
            AuditEntry.action == "vistoria_booked", AuditEntry.actor.like("titular:%"))) == 1
