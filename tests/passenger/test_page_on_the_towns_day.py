"""The passenger page judges a document on the day of the code's town, in the town's own zone
(`municipalities.timezone`), whatever the hour in UTC: an Alvará valid until today is still
valid at 23:59 there (Sapezal Lei 060/1998 Art. 10: valid until its last day), and one that
ended yesterday is not, even at 02:30 UTC when UTC's calendar is already a day ahead."""
from __future__ import annotations

from datetime import timedelta

from inspector import clock
from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import Municipality
from tests import factories
from tests.support.credentials import banner, regular_mototaxi


def _page(app, client, valid_until_days: int, zone: str = "America/Cuiaba") -> tuple[str, object]:
    with app.app_context():
        factories.town("tapurah", timezone=zone)
        v = regular_mototaxi()
        today = clock.today(db.session.get(Municipality, v.municipality_id))
        v.current_licence.valid_from = today - timedelta(days=300)
        for permit in v.holder.permits:  # the factory's permit starts in 2024; the instants go back to 2018
            permit.valid_from = today - timedelta(days=300)
        v.current_licence.valid_until = today + timedelta(days=valid_until_days)
        token = issuing.issue(v, actor="test").token
        db.session.commit()
    resp = client.get(f"/v/{token}")
    assert resp.status_code == 200
    return resp.get_data(as_text=True), today


def test_an_alvara_ending_today_in_the_town_is_still_valid(instant, app, client):
    html, today = _page(app, client, 0)
    assert banner(html) == "REGULAR"
    assert f"vence em {today:%d/%m/%Y}" in html  # still valid today, and due: said so


def test_an_alvara_that_ended_yesterday_in_the_town_is_expired(instant, app, client):
    html, today = _page(app, client, -1)
    assert banner(html) == "IRREGULAR"
    assert f"vencido em {today - timedelta(days=1):%d/%m/%Y}" in html


def test_a_town_on_another_clock_is_judged_on_its_own_day(instant, app, client):
    """A town on UTC-2 (Fernando de Noronha's clock) reaches the next day two hours before
    Cuiabá: an Alvará that ended on its yesterday is expired there, whatever day it is in
    Mato Grosso."""
    html, today = _page(app, client, -1, zone="America/Noronha")
    assert banner(html) == "IRREGULAR"
    assert f"vencido em {today - timedelta(days=1):%d/%m/%Y}" in html


def test_an_alvara_ending_tomorrow_is_valid(instant, app, client):
    html, today = _page(app, client, 1)
    assert banner(html) == "REGULAR"
    assert f"vence em {today + timedelta(days=1):%d/%m/%Y}" in html


def test_the_page_stamps_the_time_on_the_towns_clock(instant, app, client):
    """The "consultado em" time is the town's wall clock, not UTC's."""
    html, _ = _page(app, client, 30)
    town_now = clock.town_moment("America/Cuiaba")
    stamps = {(town_now + timedelta(minutes=m)).strftime("%d/%m/%Y %H:%M") for m in (-1, 0)}
    assert any(s in html for s in stamps), stamps
