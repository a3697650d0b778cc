"""The dashboard's default period ends on the town's today, in its own zone (at 02:30 UTC it is
still the day before in Cuiabá), and its "Frota regular hoje" names that day."""
from __future__ import annotations

from datetime import timedelta

from inspector import clock
from inspector.extensions import db
from inspector.models import Municipality
from tests import factories


def _town_today(app, slug: str, zone: str):
    with app.app_context():
        town = factories.town(slug, timezone=zone)
        sup = factories.user("supervisor", slug)
        db.session.commit()
        return sup.username, clock.today(db.session.get(Municipality, town.id))


def test_the_default_period_ends_on_the_towns_today(instant, app, client):
    username, today = _town_today(app, "tapurah", "America/Cuiaba")
    client.login(username)
    html = client.get("/painel").get_data(as_text=True)
    monday = today - timedelta(days=today.weekday())
    assert f'name="ate" value="{today.isoformat()}"' in html
    assert f'name="de" value="{(monday - timedelta(weeks=11)).isoformat()}"' in html
    assert f"Frota regular hoje ({today:%d/%m/%Y})" in html


def test_a_town_on_another_clock_sees_its_own_today(instant, app, client):
    """Fernando de Noronha's clock (UTC-2): the next day starts two hours before Cuiabá's."""
    username, today = _town_today(app, "sapezal", "America/Noronha")
    client.login(username)
    html = client.get("/painel").get_data(as_text=True)
    assert f'name="ate" value="{today.isoformat()}"' in html
