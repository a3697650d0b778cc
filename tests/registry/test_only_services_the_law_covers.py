"""A town registers only the services its laws regulate: Sapezal has a taxi law (Lei
060/1998) and no moto-taxi law, Tapurah a moto-taxi law (Lei 406/2001) and no taxi law. A
moto-taxi in Sapezal is refused by the admin form, the spreadsheet import and its CLI."""
from __future__ import annotations

import html as html_lib
import re

import pytest

from inspector.extensions import db
from inspector.models import Driver, Permit, Vehicle
from tests import factories
from tests.support.registry_csv import counts, row, to_csv

NO_MOTO = "Sapezal não regulamenta moto-táxi: não há lei municipal para esse serviço"
NO_TAXI = "Tapurah não regulamenta táxi: não há lei municipal para esse serviço"


def field_error(response, name: str) -> str | None:
    m = re.search(rf'<p class="field-error" id="f-{name}-error">([^<]+)</p>',
                  response.get_data(as_text=True))
    return html_lib.unescape(m.group(1)) if m else None


def admin_of(app, make, town: str):
    user = make(factories.user, "admin", town)
    c = app.test_client()
    assert c.login(user.username).status_code == 302
    return c


def count(model) -> int:
    return db.session.scalar(db.select(db.func.count()).select_from(model))


def test_the_vehicle_form_refuses_a_moto_taxi_in_sapezal(app, make):
    c = admin_of(app, make, "sapezal")
    holder = make(factories.holder, "sapezal", company=True)
    r = c.post_form("/cadastro/veiculos/novo", {
        "service": "mototaxi", "plate": "QBC1D23", "make_model": "Honda CG 160",
        "year_of_manufacture": "2024", "engine_cc": "160", "colour": "Vermelha",
        "holder_tax_id": holder.tax_id}, token_from="/cadastro/veiculos/novo")
    assert r.status_code == 422
    assert field_error(r, "service") == NO_MOTO + "."  # the form ends it with a stop
    with app.app_context():
        assert count(Vehicle) == 0


def test_the_permit_and_driver_forms_refuse_a_taxi_in_tapurah(app, make):
    c = admin_of(app, make, "tapurah")
    holder = make(factories.holder, "tapurah")
    r = c.post_form("/cadastro/permissoes/novo", {
        "service": "taxi", "number": "TP-1", "holder_tax_id": holder.tax_id,
        "valid_from": "01/01/2025"}, token_from="/cadastro/permissoes/novo")
    assert r.status_code == 422 and field_error(r, "service") == NO_TAXI + "."
    r = c.post_form("/cadastro/condutores/novo", {
        "category": "autonomo", "name": "Ana Lima", "cpf": factories.make_cpf("123123123"),
        "cnh_number": "12345678901", "cnh_category": "B", "cnh_expiry": "31/12/2030",
        "registration_number": "TX-1", "registration_expiry": "31/12/2027"},
        token_from="/cadastro/condutores/novo")
    assert r.status_code == 422 and field_error(r, "category") == NO_TAXI + "."
    with app.app_context():
        assert count(Permit) == 0 and count(Driver) == 0


def test_the_same_forms_register_what_the_town_regulates(app, make):
    c = admin_of(app, make, "nortelandia")  # Leis 127/2009 (taxi) and 030/1998 (moto-taxi)
    holder = make(factories.holder, "nortelandia", company=True)
    for service, number in (("taxi", "TP-1"), ("mototaxi", "AU-1")):
        r = c.post_form("/cadastro/permissoes/novo", {
            "service": service, "number": number, "holder_tax_id": holder.tax_id,
            "valid_from": "01/01/2025"}, token_from="/cadastro/permissoes/novo")
        assert r.status_code in (302, 303), field_error(r, "service")
    with app.app_context():
        assert count(Permit) == 2


def test_a_record_registered_before_keeps_its_service_when_edited(app, make):
    """An old row (from before this check) can still be corrected: only giving a service
    is refused, not keeping one."""
    c = admin_of(app, make, "sapezal")
    holder = make(factories.holder, "sapezal", company=True)
    with app.app_context():
        v = factories.vehicle("sapezal", "mototaxi", plate="QBC1D23",
                              holder=db.session.merge(holder), last_vistoria_on=None)
        db.session.commit()
        ident, model, year, cc = v.id, v.make_model, v.year_of_manufacture, v.engine_cc
    r = c.post_form(f"/cadastro/veiculos/{ident}/editar", {
        "service": "mototaxi", "plate": "QBC1D23", "make_model": model,
        "year_of_manufacture": str(year), "engine_cc": str(cc), "colour": "Azul",
        "holder_tax_id": holder.tax_id}, token_from=f"/cadastro/veiculos/{ident}/editar")
    assert r.status_code in (302, 303), field_error(r, "service")
    with app.app_context():
        assert db.session.get(Vehicle, ident).colour == "Azul"


@pytest.fixture
def sapezal(app):
    with app.app_context():
        factories.town("sapezal")
        db.session.commit()


def test_the_import_refuses_a_moto_taxi_row_in_sapezal(app, runner, sapezal, tmp_path):
    path = tmp_path / "sapezal.csv"
    path.write_bytes(to_csv([row(0)]))  # a moto-taxi with its rider, permit and alvará
    with app.app_context():
        before = counts()
    result = runner.invoke(args=["registry", "import", "--town", "sapezal", str(path)])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert f"linha 2, campo servico: {NO_MOTO}" in lines
    assert lines[-1] == "erro: 1 linha com problemas; nada foi gravado"
    with app.app_context():
        assert counts() == before


def _options(html: str, name: str) -> list[str]:
    select = re.search(rf'<select id="f-{name}".*?</select>', html, re.S).group(0)
    return [v for v in re.findall(r'<option value="([^"]*)"', select) if v]


def test_the_forms_offer_only_the_services_the_town_regulates(app, make):
    sapezal = admin_of(app, make, "sapezal")
    for path in ("/cadastro/veiculos/novo", "/cadastro/permissoes/novo", "/cadastro/pontos/novo"):
        assert _options(sapezal.get(path).get_data(as_text=True), "service") == ["taxi"], path
    assert _options(sapezal.get("/cadastro/condutores/novo").get_data(as_text=True),
                    "category") == ["autonomo", "auxiliar"]
    tapurah = admin_of(app, make, "tapurah")
    assert _options(tapurah.get("/cadastro/veiculos/novo").get_data(as_text=True),
                    "service") == ["mototaxi"]
    assert _options(tapurah.get("/cadastro/condutores/novo").get_data(as_text=True),
                    "category") == ["mototaxista"]
    both = admin_of(app, make, "nortelandia")
    assert _options(both.get("/cadastro/veiculos/novo").get_data(as_text=True),
                    "service") == ["taxi", "mototaxi"]


def test_an_old_record_s_form_still_shows_its_service(app, make):
    c = admin_of(app, make, "sapezal")
    with app.app_context():
        ident = factories.vehicle("sapezal", "mototaxi").id
        db.session.commit()
    html = c.get(f"/cadastro/veiculos/{ident}/editar").get_data(as_text=True)
    assert _options(html, "service") == ["taxi", "mototaxi"]
    assert '<option value="mototaxi" selected>' in html
