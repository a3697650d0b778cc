"""A spreadsheet row never moves a registered record silently (a typo, a copied row): a
vehicle is its holder's, with its permit and alvará (the preview only said '1 veículo
alterado'); a permit (Termo de Permissão) is its holder's, with every licence issued under
it; an alvará is the licence of one vehicle (Sapezal Lei 060/1998 Arts. 10 and 13: renewed
for the same vehicle, transferable only where the regulation says); a driver is registered
to one holder (Nortelândia 127 Art. 9; Nova Santa Helena Art. 11 §2; a moto-taxi rider to
the company) and is not linked to another holder's vehicle. Such a row is refused, naming
what it would have moved; the same rows again change nothing."""
from __future__ import annotations

import pytest

from inspector.extensions import db
from inspector.identifiers import format_cpf, make_cnpj
from inspector.imports.csv_import import import_registry
from inspector.models import Driver, Licence, Permit, Vehicle
from tests.support.registry_csv import (
    counts,
    row,
    to_csv,
)

DRIVER_CELLS = ("condutor_nome", "condutor_cpf", "condutor_categoria", "condutor_cnh",
                "condutor_cnh_categoria", "condutor_cnh_validade", "condutor_registro",
                "condutor_registro_validade")


@pytest.fixture(name="town")
def tapurah_with_two_rows(app):
    """An app context and Tapurah's id, with rows 0 and 1 of the test sheet (company 0)
    imported and committed."""
    from inspector.imports.csv_import import import_registry
    from tests import factories

    with app.app_context():
        t = factories.town("tapurah")
        db.session.commit()
        report = import_registry(t.id, to_csv([row(0), row(1)]), actor="teste")
        assert report.ok, report.errors
        db.session.commit()
        yield t.id
        db.session.rollback()


def test_a_registered_plate_under_another_holder_is_refused_naming_both(town):
    before = counts()
    theirs = row(0)
    other = {**row(10), "placa": theirs["placa"]}  # company 1's row with company 0's plate
    report = import_registry(town, to_csv([other]), actor="teste")
    assert [str(e) for e in report.errors] == [
        f"linha 2, campo placa: o veículo {theirs['placa']} é de {theirs['titular_nome']}, "
        f"não de {row(10)['titular_nome']}: a planilha não passa um veículo para outro "
        "permissionário (confira a placa; a mudança se faz na página do veículo)"]
    assert not report.written and counts() == before
    v = db.session.scalar(db.select(Vehicle).filter_by(plate=theirs["placa"]))
    assert v.holder.name == theirs["titular_nome"]


def test_the_same_rows_again_change_nothing(town):
    report = import_registry(town, to_csv([row(0), row(1)]), actor="teste", dry_run=True)
    assert report.ok, report.errors
    assert not any(report.updated.values()) and not any(report.created.values())


def test_a_registered_permit_under_another_holder_is_refused_naming_its_holder(town):
    before = counts()
    other = {**row(10), "permissao_numero": row(0)["permissao_numero"]}  # company 1's row
    report = import_registry(town, to_csv([other]), actor="teste")
    assert [(e.line, e.column) for e in report.errors] == [(2, "permissao_numero")]
    assert report.errors[0].reason.startswith(
        f"a permissão {row(0)['permissao_numero']} é de {row(0)['titular_nome']}: a planilha "
        "não passa uma permissão a outro titular")
    assert counts() == before
    permit = db.session.scalar(db.select(Permit).filter_by(number=row(0)["permissao_numero"]))
    assert permit.holder.tax_id == make_cnpj("000010000001")


def test_a_company_s_new_permit_repeated_on_its_rows_still_imports(town):
    """Rows 10 to 12: a new company and its new permit, repeated on each of its vehicles."""
    report = import_registry(town, to_csv([row(10), row(11), row(12)]), actor="teste",
                             dry_run=True)
    assert report.ok, report.errors
    assert report.created["permit"] == 1


def test_an_existing_company_s_permit_on_more_of_its_rows_still_imports(town):
    report = import_registry(town, to_csv([row(0), row(1), row(2)]), actor="teste",
                             dry_run=True)
    assert report.ok, report.errors
    assert report.created["vehicle"] == 1 and report.created["permit"] == 0


def test_a_registered_alvara_under_a_new_plate_is_refused_naming_its_vehicle(town):
    before = counts()
    data = to_csv([{**row(2), "alvara_numero": row(0)["alvara_numero"]}])
    report = import_registry(town, data, actor="teste")
    assert [(e.line, e.column) for e in report.errors] == [(2, "alvara_numero")]
    assert report.errors[0].reason.startswith(
        f"o alvará {row(0)['alvara_numero']} é do veículo {row(0)['placa']}: a planilha não "
        "passa um alvará para outro veículo")
    assert counts() == before
    licence = db.session.scalar(db.select(Licence).filter_by(number=row(0)["alvara_numero"]))
    assert licence.vehicle.plate == row(0)["placa"]


def test_a_registered_alvara_under_another_registered_plate_is_refused(town):
    data = to_csv([{**row(1), "alvara_numero": row(0)["alvara_numero"]}])
    report = import_registry(town, data, actor="teste", dry_run=True)
    assert [e.column for e in report.errors] == ["alvara_numero"]


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
