"""What the passenger page says in each state of the sticker or badge: every date line says
what is true today, never "válido até" under a banner that says otherwise (an expired,
suspended or revoked Alvará, a lapsed or cancelled registration); a badge whose own
registration is the problem names the rider, not the vehicle; an expired sticker is VENCIDA
(not CANCELADA, what the town did to a revoked one), red, and tells the passenger not to
board; the article next to a reason about the Alvará is the one that sets its validity or
provides its suspension (Sapezal Lei 060/1998 Arts. 10 and 20, IV), not the one that only
requires it."""
from __future__ import annotations

import re
from datetime import date, timedelta

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import Status
from tests import factories
from tests.support.credentials import banner, regular_mototaxi


def _fmt(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def _page(app, client, build):
    with app.app_context():
        subject = build()
        token = issuing.issue(subject, actor="test").token
        db.session.commit()
    resp = client.get(f"/v/{token}")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _licence_line(html: str) -> str:
    """The Alvará line's words, without the article a line that does not hold ends with."""
    m = re.search(r"<dt>Alvará</dt><dd>([^<]*)</dd>", html)
    assert m, "no Alvará line on the page"
    return re.sub(r" \(Lei [^)]*\)$", "", m.group(1))


def test_a_valid_alvara_says_valido_ate(instant, app, client):
    html = _page(app, client, regular_mototaxi)
    until = date.today() + timedelta(days=265)
    assert banner(html) == "REGULAR"
    assert _licence_line(html) == f"válido até {_fmt(until)}"


def test_an_expired_alvara_says_vencido_em_not_valido(instant, app, client):
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
    assert "A licença deste transporte está suspensa pela prefeitura." in html
    assert "registro deste condutor" not in html


def test_a_suspension_with_an_end_says_until_when(instant, app, client):
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
    assert "O registro deste condutor foi cancelado." in html
    # cancelled the day after the 30th (the last day to revalidate), as the engine says it
    assert f"<small>Registro cancelado em {_fmt(expiry + timedelta(days=31))}</small>" in html
    assert "válido até" not in html.split("<dl>")[0]


def test_a_lapsed_registration_in_its_grace_says_vencido(instant, app, client):
    html = _page(app, client, _nortelandia_driver_card(10))
    expiry = date.today() - timedelta(days=10)
    assert f"<small>Registro vencido em {_fmt(expiry)}</small>" in html
    assert "Registro válido até" not in html


def test_a_suspended_riders_badge_says_registro_suspenso_and_names_the_rider(app, client):
    end = date.today() + timedelta(days=5)

    def build():
        rider = regular_mototaxi().drivers[0]
        rider.status, rider.suspended_until = Status.SUSPENDED, end
        return rider
    html = _page(app, client, build)
    assert f"<small>Registro suspenso até {_fmt(end)}</small>" in html
    assert "Registro válido até" not in html
    assert ("O registro deste condutor está suspenso pela prefeitura até "
            f"{end.strftime('%d/%m/%Y')}. Ele não pode levar passageiros agora.") in html
    assert "A licença deste transporte" not in html


def test_a_lapsed_drivers_badge_says_the_driver_is_not_in_order(app, client):
    def rider():
        r = regular_mototaxi().drivers[0]
        r.registration_expiry = date.today() - timedelta(days=10)
        return r
    html = _page(app, client, rider)
    assert "Este condutor não está em dia com a lei municipal hoje." in html
    assert "Este transporte não está em dia" not in html


def test_an_expired_credential_is_called_vencida_and_says_do_not_board(app, client):
    with app.app_context():
        cred = issuing.issue(regular_mototaxi(), actor="test", today=date(2022, 1, 10))
        db.session.commit()
        token = cred.token
    resp = client.get(f"/v/{token}")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert banner(html) == "CREDENCIAL VENCIDA"
    assert "Este código venceu e não vale mais." in html
    assert "CANCELADA" not in html and "cancelad" not in html
    assert 'class="banner b-expired"' in html                      # the red page (its own state)
    assert "QBA1D23" not in html and "João" not in html
    assert "Denunciar" in html
    summary = re.search(r"<h1>[^<]+</h1>\s*(?:<p class=\"instruction\">.*?</p>\s*)?<p>([^<]+)</p>",
                        html).group(1)
    assert "Não embarque: ele não confirma que este transporte está licenciado hoje." in summary
    assert "O condutor deve pedir um novo à prefeitura." in summary


def test_the_expired_banner_is_as_red_as_the_revoked_one(client):
    css = client.get("/static/css/verify.css").get_data(as_text=True)
    rule = re.search(r"([^}]*\.b-expired[^{]*)\{([^}]*)\}", css)
    assert rule and ".b-revoked" in rule.group(1) and "#3b0a0a" in rule.group(2)


def _sapezal_taxi_page(app, client, **licence):
    with app.app_context():
        holder = factories.holder("sapezal", name="Taxista Sapezal")
        factories.permit(holder, "taxi")
        taxi = factories.vehicle("sapezal", "taxi", holder=holder, plate="QBX5Z06",
                                 year_of_manufacture=date.today().year - 1,
                                 last_vistoria_on=date.today() - timedelta(days=20))
        lic = factories.licence(taxi, number="AL-0009", **licence)
        taxi.licences = [lic]
        token = issuing.issue(taxi, actor="test").token
        db.session.commit()
    html = client.get(f"/v/{token}").get_data(as_text=True)
    return [re.sub(r"<[^>]+>", "", li) for li in re.findall(r"<li>(.*?)</li>", html)], html


def test_a_suspended_alvara_cites_art_20_iv(app, client):
    reasons, html = _sapezal_taxi_page(app, client, status=Status.SUSPENDED)
    assert "O alvará deste táxi está suspenso. (Lei 060/1998, Art. 20, IV)" in reasons
    assert 'href="/leis/sapezal-lei-060-1998-taxi#art-20-iv"' in html


def test_an_expired_alvara_cites_art_10(app, client):
    past = date.today() - timedelta(days=35)
    reasons, _ = _sapezal_taxi_page(app, client, valid_from=past - timedelta(365),
                                    valid_until=past)
    assert f"O alvará deste táxi venceu em {past:%d/%m/%Y}. (Lei 060/1998, Art. 10)" in reasons
