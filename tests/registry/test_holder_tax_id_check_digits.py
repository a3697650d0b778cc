"""A holder's CPF/CNPJ typed into another record's form (vehicle, permit, driver) is checked
for its check digits first: 111.111.111-11 is refused as an invalid CPF, not reported as a
holder "não encontrado neste município"; a valid number of nobody here is still "não
encontrado"; a holder already on record is found."""
from __future__ import annotations

import html as html_lib
import re

import pytest

from inspector import registry
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.identifiers import make_cnpj, make_cpf
from inspector.models import Vehicle
from tests import factories


def _error(response, name: str) -> str | None:
    m = re.search(rf'<p class="field-error" id="f-{name}-error">([^<]+)</p>',
                  response.get_data(as_text=True))
    return html_lib.unescape(m.group(1)) if m else None


def _vehicle_form(v: Vehicle, tax_id: str) -> dict:
    return {"service": "mototaxi", "plate": v.plate, "make_model": v.make_model,
            "year_of_manufacture": str(v.year_of_manufacture), "engine_cc": str(v.engine_cc),
            "colour": v.colour, "holder_tax_id": tax_id}


def test_the_vehicle_edit_form_says_a_cpf_with_bad_check_digits_is_invalid(app, client, make):
    v = make(factories.vehicle, "tapurah", "mototaxi")
    make(factories.user, "admin", "tapurah", username="admin.t")
    client.login("admin.t")
    path = f"/cadastro/veiculos/{v.id}/editar"
    r = client.post_form(path, _vehicle_form(v, "111.111.111-11"), token_from=path)
    assert r.status_code == 422
    assert _error(r, "holder_tax_id") == "CPF inválido: confira os dígitos."
    nobody = make_cpf("529982247")                                 # valid, no such holder
    r = client.post_form(path, _vehicle_form(v, nobody), token_from=path)
    assert r.status_code == 422
    assert _error(r, "holder_tax_id").endswith("não encontrado neste município.")


def _errors(town_id: int, tax_id: str) -> dict:
    with pytest.raises(ValidationFailed) as e:
        registry.save_permit(town_id, {"service": "mototaxi", "number": "AU-9",
                                  "holder_tax_id": tax_id, "valid_from": "01/01/2026"},
                        actor="teste")
    return e.value.errors


@pytest.mark.parametrize("tax_id, said", [
    ("111.111.111-11", "CPF inválido: confira os dígitos"),
    ("529.982.247-26", "CPF inválido: confira os dígitos"),          # last digit off by one
    ("11.222.333/0001-82", "CNPJ inválido: confira os dígitos"),
    ("12345", "CPF/CNPJ inválido: o CPF tem 11 dígitos e o CNPJ, 14"),
    ("abc", "CPF/CNPJ inválido: o CPF tem 11 dígitos e o CNPJ, 14"),
])
def test_every_form_that_names_a_holder_checks_the_digits_first(towns, tax_id, said):
    _, tapurah = towns
    assert _errors(tapurah, tax_id)["holder_tax_id"] == said


def test_a_valid_cnpj_of_nobody_here_is_not_found_and_a_holder_on_record_is_found(towns):
    _, tapurah = towns
    assert "não encontrado" in _errors(tapurah, make_cnpj("112223330001"))["holder_tax_id"]
    for tax_id in (make_cpf("529982247"), "11111111111"):   # the second: older data
        holder = factories.holder("tapurah", tax_id=tax_id)
        db.session.commit()
        permit = registry.save_permit(tapurah, {"service": "mototaxi", "number": f"AU-{tax_id[:3]}",
                                           "holder_tax_id": tax_id,
                                           "valid_from": "01/01/2026"}, actor="teste")
        assert permit.holder_id == holder.id
