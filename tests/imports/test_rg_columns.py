"""The spreadsheet's optional RG columns (condutor_rg, condutor_rg_orgao): imported when
present, checked like the form, and an old file without them imports as before and leaves
a registered RG alone."""
from __future__ import annotations

from datetime import date

from inspector.extensions import db
from inspector.imports.csv_format import template_csv
from inspector.imports.csv_import import import_registry
from inspector.models import Driver
from tests.support.registry_csv import (
    HEADER,
    row,
    to_csv,
)

OLD_HEADER = [h for h in HEADER if not h.startswith("condutor_rg")]


def run(town_id: int, data: bytes):
    report = import_registry(town_id, data, actor="teste")
    if report.written:
        db.session.commit()
    return report


def _rgs() -> dict[str, tuple[str, str]]:
    db.session.expire_all()
    return {d.name: (d.rg_number, d.rg_issuer) for d in db.session.scalars(db.select(Driver))}


def test_rg_columns_are_imported_as_the_form_writes_them(town):
    rows = [row(0), row(1)]
    rows[0].update(condutor_rg="12.345.678-9", condutor_rg_orgao="ssp-mt")
    report = run(town, to_csv(rows))
    assert report.ok, [str(e) for e in report.errors]
    assert _rgs() == {"Condutor 0": ("12.345.678-9", "SSP/MT"), "Condutor 1": ("", "")}


def test_bad_rg_cells_are_named_by_line_and_column_and_nothing_is_written(town):
    rows = [row(0), row(1)]
    rows[1].update(condutor_rg="12?34", condutor_rg_orgao="SSP/MT")
    rows[0].update(condutor_rg="1234567", condutor_rg_orgao="")
    report = run(town, to_csv(rows))
    assert not report.ok and not report.written
    errors = {(e.line, e.column) for e in report.errors}
    assert errors == {(2, "condutor_rg_orgao"), (3, "condutor_rg")}
    assert all("RG" in str(e) or "órgão" in str(e) for e in report.errors)
    assert _rgs() == {}


def test_a_file_without_the_rg_columns_imports_and_keeps_a_registered_rg(town):
    first = [row(0), row(1)]
    first[0].update(condutor_rg="1234567X", condutor_rg_orgao="SSP/SP")
    assert run(town, to_csv(first)).ok
    changed = row(1) | {"condutor_nome": "Condutor Um"}
    report = run(town, to_csv([row(0), changed], header=OLD_HEADER))
    assert report.ok, [str(e) for e in report.errors]
    assert _rgs() == {"Condutor 0": ("1234567X", "SSP/SP"), "Condutor Um": ("", "")}


def test_the_model_file_has_the_rg_columns_and_imports_cleanly(town):
    text = template_csv(date(2026, 12, 7))
    assert "condutor_rg;condutor_rg_orgao" in text.splitlines()[0]
    report = run(town, text.encode())
    assert report.ok, [str(e) for e in report.errors]
    assert list(_rgs().values()) == [("12.345.678-9", "SSP/MT")]
