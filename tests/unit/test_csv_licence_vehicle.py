"""An alvará is the licence of one vehicle (Sapezal Lei 060/1998 Arts. 10 and 13: renewed
for the same vehicle, transferable only where the regulation says). A spreadsheet row that
names a registered alvará under another plate (a typo, a copied row) must not move it
silently and leave its vehicle unlicensed."""
from __future__ import annotations

from inspector.extensions import db
from inspector.imports.csv_import import import_registry
from inspector.models import Licence
from tests.support.registry_csv import (
    counts,
    row,
    tapurah_with_two_rows,  # noqa: F401  (the `town` fixture)
    to_csv,
)


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


def test_the_same_file_again_still_imports_unchanged(town):
    report = import_registry(town, to_csv([row(0), row(1)]), actor="teste", dry_run=True)
    assert report.ok and not any(report.updated.values())
