"""A driver is registered to one holder (Nortelândia 127 Art. 9; Nova Santa Helena Art. 11
§2; a moto-taxi rider to the company). A spreadsheet row that names a registered driver's
CPF under another holder (a typo, a copied row) must not move them, and link them to that
holder's vehicle, without anyone seeing it: the row is refused, like a permit's."""
from __future__ import annotations

from inspector.extensions import db
from inspector.identifiers import format_cpf
from inspector.imports.csv_import import import_registry
from inspector.models import Driver
from tests.support.registry_csv import (
    counts,
    row,
    tapurah_with_two_rows,  # noqa: F401  (the `town` fixture)
    to_csv,
)

DRIVER_CELLS = ("condutor_nome", "condutor_cpf", "condutor_categoria", "condutor_cnh",
                "condutor_cnh_categoria", "condutor_cnh_validade", "condutor_registro",
                "condutor_registro_validade")


def test_a_registered_driver_under_another_holder_is_refused_naming_cpf_and_both(town):
    before = counts()
    theirs = row(0)  # company 0's rider, registered by the fixture
    other = {**row(10), **{c: theirs[c] for c in DRIVER_CELLS}}  # on company 1's motorcycle
    report = import_registry(town, to_csv([row(5), other]), actor="teste")
    assert [str(e) for e in report.errors] == [
        f"linha 3, campo condutor_cpf: o condutor {theirs['condutor_nome']} (CPF "
        f"{format_cpf(theirs['condutor_cpf'])}) é de {theirs['titular_nome']}, não de "
        f"{row(10)['titular_nome']}: a planilha não passa um condutor para outro "
        "permissionário (confira o CPF; a mudança se faz na página do condutor)"]
    assert not report.written and counts() == before
    driver = db.session.scalar(db.select(Driver).filter_by(cpf=theirs["condutor_cpf"]))
    assert driver.holder.name == theirs["titular_nome"]
    assert [v.plate for v in driver.vehicles] == [theirs["placa"]]


def test_a_driver_on_another_vehicle_of_the_same_holder_still_imports(town):
    """Company 0's rider on company 0's new motorcycle: one more link, same holder."""
    theirs = row(0)
    report = import_registry(town, to_csv([{**row(5), **{c: theirs[c] for c in DRIVER_CELLS}}]),
                             actor="teste")
    assert report.ok, report.errors
    db.session.commit()
    driver = db.session.scalar(db.select(Driver).filter_by(cpf=theirs["condutor_cpf"]))
    assert sorted(v.plate for v in driver.vehicles) == sorted([theirs["placa"], row(5)["placa"]])
