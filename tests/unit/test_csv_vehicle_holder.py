"""A vehicle is its holder's (its permit and alvará with it): a spreadsheet row that names a
registered plate under another holder's CPF/CNPJ (a typo, a copied row) must not move it
silently (the preview only said '1 veículo alterado'); the row is refused, like a permit's,
an alvará's and a driver's."""
from __future__ import annotations

from inspector.extensions import db
from inspector.imports.csv_import import import_registry
from inspector.models import Vehicle
from tests.support.registry_csv import (
    counts,
    row,
    tapurah_with_two_rows,  # noqa: F401  (the `town` fixture)
    to_csv,
)


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
