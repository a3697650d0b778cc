"""Excel reads a CNH or a CPF typed as digits as a number and drops its leading zeros; the
import says so instead of only 'são 11 algarismos', which the clerk typed."""
from __future__ import annotations

from inspector.imports.csv_import import import_registry
from tests.support.registry_csv import (
    row,
    to_csv,
)


def reasons(town_id: int, **cells) -> dict[str, str]:
    report = import_registry(town_id, to_csv([{**row(0), **cells}]), actor="teste",
                             dry_run=True)
    return {e.column: e.reason for e in report.errors}


def test_a_cnh_and_a_cpf_that_lost_their_leading_zero_are_explained(town):
    got = reasons(town, condutor_cnh="1234567890", condutor_cpf="1234567890")
    assert got["condutor_cnh"].startswith("número da CNH inválido: são 11 algarismos (só 10 "
                                          "algarismos: se o número começa com zero")
    assert "formate a coluna como Texto" in got["condutor_cnh"]
    assert "se o número começa com zero" in got["condutor_cpf"]


def test_a_holder_cnpj_that_lost_its_leading_zero_is_explained(town):
    assert "se o número começa com zero" in reasons(
        town, titular_documento="1222333000181")["titular_documento"]


def test_no_hint_where_a_zero_cannot_be_the_cause(town):
    got = reasons(town, condutor_cnh="12345678901234", condutor_cpf="111.444.777-36")
    assert "zero" not in got["condutor_cnh"] and "zero" not in got["condutor_cpf"]
