"""The 'NÃO RECONHECIDA' page (a forged, altered or truncated code) tells the passenger what
to do, and, when the code names one of our towns, takes a report of the false code to that
town's supervisors: rate-limited like any report, and attached to no vehicle or driver."""
from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from sqlalchemy import select

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import Municipality, PassengerReport, ReportCategory
from tests import factories
from tests.support.credentials import banner


@pytest.fixture
def sapezal_token(app):
    """A real Sapezal sticker's code (the forgeries below are made from it)."""
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    with app.app_context():
        taxi = factories.vehicle("sapezal", "taxi", plate="QBX5Z06",
                                 last_vistoria_on=date.today() - timedelta(days=20))
        factories.licence(taxi)
        cred = issuing.issue(taxi, actor="test")
        db.session.commit()
        return cred.token


def _altered(token: str) -> str:
    """The same code with one character of its signature changed (town and subject kept)."""
    return token[:60] + ("A" if token[60] != "A" else "B") + token[61:]


def _page(client, token):
    resp = client.get(f"/v/{token}")
    return resp, resp.get_data(as_text=True)


def _report(client, token, text="Adesivo com QR falso no táxi placa ABC1D23, prata, às 20h."):
    html = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    data = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "t": re.search(r'name="t" value="([^"]+)"', html).group(1),
            "categoria": "forged", "texto": text, "contato": "", "website": ""}
    return client.post(f"/v/{token}/denunciar", data=data, content_type="multipart/form-data")


@pytest.mark.parametrize("how", ["altered", "truncated"])
def test_a_false_code_naming_a_town_says_what_to_do_and_offers_that_towns_form(
        client, sapezal_token, how):
    token = _altered(sapezal_token) if how == "altered" else sapezal_token[:-1]
    resp, html = _page(client, token)
    assert resp.status_code == 404
    assert banner(html) == "NÃO RECONHECIDA"
    assert ("Este código diz ser da Prefeitura de Sapezal, mas não foi emitido por ela ou foi "
            "alterado. Não confie nele.") in html
    for advice in ("Não embarque.", "Anote a placa, o modelo e a cor",
                   "ligue 190 (Polícia Militar)",
                   "Avise a fiscalização da Prefeitura de Sapezal"):
        assert advice in html
    assert f'href="/v/{token}/denunciar">Denunciar código falso</a>' in html
    assert "QBX5Z06" not in html  # a false code shows nothing of the vehicle it names


@pytest.mark.parametrize("token", ["A" * 126, "abc", "x" * 500, "AQAB" * 31 + "AA"])
def test_a_code_naming_no_town_of_ours_has_advice_but_no_form(client, token):
    resp, html = _page(client, token)
    assert resp.status_code == 404 and banner(html) == "NÃO RECONHECIDA"
    assert "Não embarque." in html and "ligue 190" in html
    assert ("Não foi possível saber de qual município é este código, por isso não há "
            "formulário de denúncia aqui.") in html
    assert "Denunciar" not in html
    assert client.get(f"/v/{token}/denunciar").status_code == 404


def test_a_report_of_a_false_code_lands_in_the_claimed_towns_queue_and_names_nothing_real(
        app, client, make, sapezal_token):
    token = _altered(sapezal_token)
    form = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    assert "Denunciar código falso" in form and "fiscalização de Sapezal" in form
    assert re.findall(r'<option value="(\w+)"', form) == ["forged"]
    resp = _report(client, token)
    assert resp.status_code == 201 and "Denúncia recebida" in resp.get_data(as_text=True)
    with app.app_context():
        sapezal = db.session.scalar(select(Municipality).filter_by(slug="sapezal"))
        r = db.session.scalars(select(PassengerReport)).one()
        assert r.municipality_id == sapezal.id
        assert r.category == ReportCategory.FORGED and r.seen_status == "unknown"
        assert (r.credential_id, r.vehicle_id, r.driver_id) == (None, None, None)
    sup = make(factories.user, "supervisor", "sapezal")
    client.login(sup.username)
    listing = client.get("/denuncias").get_data(as_text=True)
    assert "Código falso (não reconhecido)" in listing
    assert '<td data-label="Sobre">código não reconhecido</td>' in listing
    with app.app_context():
        report_id = db.session.scalars(select(PassengerReport.id)).one()
    page = client.get(f"/denuncias/{report_id}").get_data(as_text=True)
    assert "<dd>NÃO RECONHECIDA</dd>" in page and ">unknown<" not in page
    assert "Código não reconhecido: de nenhum veículo ou condutor cadastrado" in page
    other = make(factories.user, "supervisor", "tapurah")
    elsewhere = app.test_client()
    elsewhere.login(other.username)
    assert "Código falso" not in elsewhere.get("/denuncias").get_data(as_text=True)


def test_reports_of_false_codes_are_rate_limited_like_the_others(client, sapezal_token):
    token = _altered(sapezal_token)
    codes = [_report(client, token).status_code for _ in range(7)]
    assert codes[:5] == [201] * 5 and codes[5:] == [429, 429]


def test_a_real_codes_form_does_not_take_the_false_code_category(client, sapezal_token):
    form = client.get(f"/v/{sapezal_token}/denunciar").get_data(as_text=True)
    assert 'value="forged"' not in form
    resp = _report(client, sapezal_token)
    assert resp.status_code == 422 and "escolha o tipo" in resp.get_data(as_text=True)
