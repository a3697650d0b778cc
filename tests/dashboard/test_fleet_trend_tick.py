"""The fleet's trend has every day the enforcement tick ran, not only the
days someone opened the dashboard: `flask enforcement tick` records each town's standing
once per local day — the town's own day (municipalities.timezone) — checking
fleet_standing_days first, in its own short transaction per town."""
from __future__ import annotations

import json
from datetime import date

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import FleetStandingDay, Municipality
from tests import factories
from tests.support.enforcement import fleet


def _tick(runner, moment: str) -> list[str]:
    r = runner.invoke(args=["enforcement", "tick", "--now", moment, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)["fleet_days"]


def _days(app) -> dict[tuple[str, str], list[date]]:
    with app.app_context():
        out: dict[tuple[str, str], list[date]] = {}
        for slug, service, day in db.session.execute(
                select(Municipality.slug, FleetStandingDay.service, FleetStandingDay.day)
                .join(Municipality, Municipality.id == FleetStandingDay.municipality_id)
                .order_by(FleetStandingDay.day)):
            out.setdefault((slug, service.value), []).append(day)
        return out


def test_the_tick_records_each_service_once_per_local_day(app, runner):
    with app.app_context():
        fleet("tapurah", "mototaxi")
        fleet("tapurah", "mototaxi")
        fleet("tapurah", "taxi")
        db.session.commit()
    assert _tick(runner, "2026-03-05T10:00:00-04:00") == ["tapurah"]
    assert _tick(runner, "2026-03-05T10:01:00-04:00") == []          # the same day: nothing
    assert _tick(runner, "2026-03-05T23:59:00-04:00") == []          # still the 5th in Tapurah
    assert _days(app) == {("tapurah", "mototaxi"): [date(2026, 3, 5)],
                          ("tapurah", "taxi"): [date(2026, 3, 5)]}
    assert _tick(runner, "2026-03-06T00:00:00-04:00") == ["tapurah"]  # local midnight
    assert _tick(runner, "2026-03-06T09:00:00-04:00") == []
    days = _days(app)
    assert days == {("tapurah", "mototaxi"): [date(2026, 3, 5), date(2026, 3, 6)],
                    ("tapurah", "taxi"): [date(2026, 3, 5), date(2026, 3, 6)]}
    with app.app_context():
        row = db.session.scalar(select(FleetStandingDay).where(
            FleetStandingDay.service == "mototaxi", FleetStandingDay.day == date(2026, 3, 6)))
        assert row.vehicles == 2 and row.regular + row.irregular + row.suspended == 2


def test_the_day_is_the_towns_own(app, runner):
    """At 23:30 in Cuiabá it is already 01:30 of the next day in Fernando de Noronha (UTC-2):
    a town on that clock gets the next day's row from the same tick."""
    with app.app_context():
        factories.town("sapezal", timezone="America/Noronha")
        fleet("sapezal", "taxi")
        fleet("tapurah", "mototaxi")
        db.session.commit()
    assert sorted(_tick(runner, "2026-03-05T23:30:00-04:00")) == ["sapezal", "tapurah"]
    assert _tick(runner, "2026-03-06T10:00:00-04:00") == ["tapurah"]   # Sapezal's 6th is kept
    assert _tick(runner, "2026-03-06T22:30:00-04:00") == ["sapezal"]   # 00:30 on the 7th there
    assert _days(app) == {("sapezal", "taxi"): [date(2026, 3, 6), date(2026, 3, 7)],
                          ("tapurah", "mototaxi"): [date(2026, 3, 5), date(2026, 3, 6)]}


def test_the_dashboard_trend_shows_the_days_the_tick_recorded(app, runner, client, make):
    with app.app_context():
        fleet("tapurah", "mototaxi")
        db.session.commit()
    for moment in ("2026-03-02T08:00", "2026-03-03T08:00", "2026-03-04T08:00"):
        _tick(runner, moment)
    make(factories.user, "supervisor", "tapurah", username="sup.t")
    client.login("sup.t")
    html = client.get("/painel?de=01/03/2026&ate=10/03/2026").get_data(as_text=True)
    for day in ("02/03/2026", "03/03/2026", "04/03/2026"):
        assert f'<td data-label="Dia">{day}</td>' in html
    assert '<td data-label="Dia">05/03/2026</td>' not in html       # no tick ran that day


def test_the_dashboards_today_is_the_towns_own(app, client, make, monkeypatch):
    """Opened at 03:00 UTC on 6 March 2026 (23:00 of the 5th in Cuiabá), the dashboard of a
    town on Fernando de Noronha's clock counts the 6th as today; Tapurah's counts the 5th."""
    from datetime import UTC, datetime

    from inspector import clock

    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime(2026, 3, 6, 3, 0, tzinfo=UTC).astimezone(tz)

    with app.app_context():
        factories.town("sapezal", timezone="America/Noronha")
        fleet("sapezal", "taxi")
        fleet("tapurah", "mototaxi")
        db.session.commit()
    make(factories.user, "supervisor", "sapezal", username="sup.s")
    make(factories.user, "supervisor", "tapurah", username="sup.t")
    monkeypatch.setattr(clock, "datetime", Frozen)
    for username in ("sup.s", "sup.t"):
        c = app.test_client()
        c.login(username)
        html = c.get("/painel?periodo=30d").get_data(as_text=True)
        last = "06/03/2026" if username == "sup.s" else "05/03/2026"
        assert f'<td data-label="Dia">{last}</td>' in html, username
    assert _days(app) == {("sapezal", "taxi"): [date(2026, 3, 6)],
                          ("tapurah", "mototaxi"): [date(2026, 3, 5)]}
