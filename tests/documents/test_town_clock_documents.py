"""What a town's staff and holders read is dated on the town's clock (`municipalities.timezone`),
not Cuiabá's: Tapurah set to Fernando de Noronha's zone (UTC-2, two hours ahead of Mato
Grosso). The notice's document (issue, inspection, deadline), the review screen of the
inspection and of the act, the holder's page of the notice, the dashboard's period and its
spreadsheet all give the town's day and hour. Each test runs at the instants of
tests/support/instants.py (`instant`)."""
from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from inspector import enforcement
from inspector.documents.content import build_sheet
from inspector.documents.pdf import Rows
from inspector.extensions import db
from inspector.models import Inspection, Notice, Sanction
from tests import factories
from tests.support.enforcement import fleet, inspect
from tests.support.push import notice_row

ZONE = "America/Noronha"
NORONHA = ZoneInfo(ZONE)
CODE = "K7M2P-QRS9T"


def town_time(moment: datetime, fmt: str = "%d/%m/%Y às %H:%M") -> str:
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(NORONHA).strftime(fmt)


@pytest.fixture
def world(app, instant):
    """Tapurah on Noronha's clock: a licensed moto-taxi stopped two hours ago with no mirror
    (Lei 406/2001: a notice to fix it), the notice confirmed an hour ago by the supervisor."""
    with app.app_context():
        factories.town("tapurah", timezone=ZONE)
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        admin = factories.user("admin", "tapurah")
        db.session.commit()
        now = datetime.now(UTC)
        insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, now - timedelta(hours=2))
        db.session.commit()
        [act] = enforcement.acts_of(insp)
        enforcement.confirm(act, sup, now - timedelta(hours=1))
        db.session.commit()
        return {"act": act.id, "inspection": insp.id, "supervisor": sup.username,
                "admin": admin.username}


def test_the_notice_document_is_dated_on_the_towns_clock(app, world, instant):
    with app.app_context():
        act = db.session.get(Sanction, world["act"])
        notice = db.session.scalar(db.select(Notice).where(Notice.sanction_id == act.id))
        sheet = build_sheet(notice, url="https://x.example/d", access_code=None)
        issued, deadline = notice.issued_at, act.deadline_at
        rows = dict(r for s in sheet.sections for b in s.blocks if isinstance(b, Rows)
                    for r in b.rows)
        insp = db.session.get(Inspection, world["inspection"])
        started, finished = insp.started_at, insp.finished_at
    assert sheet.lead[1] == f"Emitido em {town_time(issued)} (horário de Tapurah)"
    assert rows["Vistoria"] == (f"{town_time(started)} a {town_time(finished)} "
                                "(horário de Tapurah)")
    assert deadline is not None
    assert rows["Vence em"] == f"{town_time(deadline)} (horário de Tapurah)"


def test_the_review_screens_show_the_towns_hours(app, world, instant):
    with app.app_context():
        act = db.session.get(Sanction, world["act"])
        insp = db.session.get(Inspection, world["inspection"])
        started, finished, deadline = insp.started_at, insp.finished_at, act.deadline_at
    c = app.test_client()
    assert c.login(world["supervisor"]).status_code == 302
    page = c.get(f"/revisao/vistorias/{world['inspection']}").get_data(as_text=True)
    assert (f"<dt>Início e fim</dt><dd>{town_time(started, '%d/%m/%Y %H:%M')} – "
            f"{town_time(finished, '%H:%M')}") in page
    card = " ".join(c.get(f"/revisao/atos/{world['act']}").get_data(as_text=True).split())
    assert f", até {town_time(deadline, '%d/%m/%Y %H:%M')}" in card


def test_the_holders_page_gives_the_deadline_on_the_towns_clock(app, instant):
    now = datetime.now(UTC)
    deadline = now + timedelta(hours=72)
    with app.app_context():
        factories.town("tapurah", timezone=ZONE)
        v = factories.vehicle("tapurah", "mototaxi")
        n = notice_row(v.holder, v, code=CODE, issued_at=now - timedelta(hours=1),
                       deadline_at=deadline)
        db.session.commit()
        path = f"tapurah/{n.number}"
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01)
    page = " ".join(app.test_client().holder_page(path, CODE).split())
    assert f"Prazo: até {town_time(deadline)} (horário de Tapurah)" in page
    assert "horário de MT" not in page


def test_the_dashboard_and_its_sheet_use_the_towns_day_and_hour(app, world, instant):
    today = datetime.now(UTC).astimezone(NORONHA).date()
    with app.app_context():
        finished = db.session.get(Inspection, world["inspection"]).finished_at
    c = app.test_client()
    assert c.login(world["admin"]).status_code == 302
    page = c.get("/painel").get_data(as_text=True)
    assert f'name="ate" value="{today.isoformat()}"' in page
    r = c.get(f"/painel/exportar/vistorias.csv?de={(today - timedelta(days=2)).isoformat()}"
              f"&ate={today.isoformat()}")
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    assert rows[0][1] == "Concluída em"
    assert [row[1] for row in rows[1:]] == [town_time(finished, "%d/%m/%Y %H:%M")]
