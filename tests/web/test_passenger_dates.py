"""Every date line on the passenger page says what is true today, never "válido até" under a
banner that says otherwise (an expired, suspended or revoked Alvará, a lapsed or cancelled
registration)."""
from __future__ import annotations

import re
from datetime import date, timedelta

from inspector.credentials import issuing as credentials
from inspector.extensions import db
from inspector.models import Status
from tests import factories
from tests.support.credentials import banner, regular_mototaxi


def _fmt(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def _page(app, client, build):
    with app.app_context():
        subject = build()
        token = credentials.issue(subject, actor="test").token
        db.session.commit()
    resp = client.get(f"/v/{token}")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _licence_line(html: str) -> str:
    m = re.search(r"<dt>Alvará</dt><dd>([^<]*)</dd>", html)
    assert m, "no Alvará line on the page"
    return m.group(1)


def test_a_valid_alvara_says_valido_ate(app, client):
    html = _page(app, client, regular_mototaxi)
    until = date.today() + timedelta(days=265)
    assert banner(html) == "REGULAR"
    assert _licence_line(html) == f"válido até {_fmt(until)}"


def test_an_expired_alvara_says_vencido_em_not_valido(app, client):
    past = date.today() - timedelta(days=35)

    def build():
        v = regular_mototaxi(plate="SAF7X21")
        v.current_licence.valid_from, v.current_licence.valid_until = past - timedelta(365), past
        return v
    html = _page(app, client, build)
    assert banner(html) == "IRREGULAR"
    assert _licence_line(html) == f"vencido em {_fmt(past)}"
    assert "válido até" not in html


def test_a_suspended_alvara_says_suspenso_not_its_old_validity(app, client):
    def build():
        v = regular_mototaxi(plate="QBX5Z06")
        v.current_licence.status = Status.SUSPENDED
        return v
    html = _page(app, client, build)
    assert banner(html) == "SUSPENSO"
    assert _licence_line(html) == "suspenso"
    assert "válido até" not in html


def test_a_suspension_with_an_end_says_until_when(app, client):
    end = date.today() + timedelta(days=12)

    def build():
        v = regular_mototaxi(plate="QBX5Z07")
        v.current_licence.status, v.current_licence.suspended_until = Status.SUSPENDED, end
        return v
    html = _page(app, client, build)
    assert banner(html) == f"SUSPENSO até {_fmt(end)}"
    assert _licence_line(html) == f"suspenso até {_fmt(end)}"


def test_a_revoked_alvara_says_cassado(app, client):
    def build():
        v = regular_mototaxi(plate="QBR4R44")
        v.current_licence.status = Status.REVOKED
        return v
    html = _page(app, client, build)
    assert banner(html) == "IRREGULAR"
    assert _licence_line(html) == "cassado"


def _nortelandia_driver_card(expired_days_ago: int):
    def build():
        holder = factories.holder("nortelandia", name="Permissionário Teste")
        factories.permit(holder, "taxi")
        taxi = factories.vehicle("nortelandia", "taxi", holder=holder, plate="RBC9E82",
                                 year_of_manufacture=date.today().year - 1,
                                 last_vistoria_on=date.today() - timedelta(days=20))
        factories.licence(taxi)
        driver = factories.driver("nortelandia", "auxiliar", name="Marcos Auxiliar",
                                  cnh_category="B", registration_expiry=date.today()
                                  - timedelta(days=expired_days_ago))
        taxi.drivers.append(driver)
        db.session.flush()
        return driver
    return build


def test_a_cancelled_registration_says_cancelado_not_valido(app, client):
    """Nortelândia 127 Art. 8 § ú: not revalidated within 30 days, cancelled."""
    html = _page(app, client, _nortelandia_driver_card(45))
    expiry = date.today() - timedelta(days=45)
    assert "Inscrição do condutor cancelada" in html
    assert f"<small>Registro cancelado em {_fmt(expiry + timedelta(days=30))}</small>" in html
    assert "válido até" not in html.split("<dl>")[0]


def test_a_lapsed_registration_in_its_grace_says_vencido(app, client):
    html = _page(app, client, _nortelandia_driver_card(10))
    expiry = date.today() - timedelta(days=10)
    assert f"<small>Registro vencido em {_fmt(expiry)}</small>" in html
    assert "Registro válido até" not in html


def test_a_suspended_riders_badge_says_registro_suspenso(app, client):
    end = date.today() + timedelta(days=5)

    def build():
        rider = regular_mototaxi().drivers[0]
        rider.status, rider.suspended_until = Status.SUSPENDED, end
        return rider
    html = _page(app, client, build)
    assert f"<small>Registro suspenso até {_fmt(end)}</small>" in html
    assert "Registro válido até" not in html
