"""A driver's badge whose own registration is the problem, the vehicle being in order: a
suspended one says "O registro deste condutor está suspenso…", a lapsed one "Este condutor não
está em dia…", not "a licença deste transporte" / "Este transporte"; a suspended vehicle keeps
its words."""
from __future__ import annotations

from datetime import date, timedelta

from inspector.credentials import issuing as credentials
from inspector.extensions import db
from inspector.models import Status
from tests.support.credentials import regular_mototaxi


def _page(app, client, build) -> str:
    with app.app_context():
        cred = credentials.issue(build(), actor="test")
        db.session.commit()
        token = cred.token
    return client.get(f"/v/{token}").get_data(as_text=True)


def test_a_suspended_riders_badge_names_the_rider_not_the_vehicle(app, client):
    end = date.today() + timedelta(days=5)

    def rider():
        r = regular_mototaxi().drivers[0]
        r.status, r.suspended_until = Status.SUSPENDED, end
        return r
    html = _page(app, client, rider)
    assert ("O registro deste condutor está suspenso pela prefeitura até "
            f"{end.strftime('%d/%m/%Y')}. Ele não pode levar passageiros agora.") in html
    assert "A licença deste transporte" not in html


def test_a_suspended_vehicle_keeps_its_words(app, client):
    def vehicle():
        v = regular_mototaxi()
        v.current_licence.status = Status.SUSPENDED
        return v
    html = _page(app, client, vehicle)
    assert "A licença deste transporte está suspensa pela prefeitura." in html
    assert "registro deste condutor" not in html


def test_a_lapsed_drivers_badge_says_the_driver_is_not_in_order(app, client):
    def rider():
        r = regular_mototaxi().drivers[0]
        r.registration_expiry = date.today() - timedelta(days=10)
        return r
    html = _page(app, client, rider)
    assert "Este condutor não está em dia com a lei municipal hoje." in html
    assert "Este transporte não está em dia" not in html
