"""The spreadsheet's optional vehicle days (data_fabricacao, primeiro_licenciamento): ages
count from them when known (DOMAIN "completarem N anos de fabricação" / "anos de uso"), so
the import takes them as the form does, names a bad cell by line and column, and a file
without them leaves registered days alone."""
from __future__ import annotations

from datetime import date

from inspector.extensions import db
from inspector.imports.csv_format import template_csv
from inspector.imports.csv_import import import_registry
from inspector.models import Vehicle
from tests.support.registry_csv import HEADER, row, to_csv

OLD_HEADER = [h for h in HEADER if h not in ("data_fabricacao", "primeiro_licenciamento")]


def run(town_id: int, data: bytes):
    report = import_registry(town_id, data, actor="teste")
    if report.written:
        db.session.commit()
    return report


def _days() -> dict[str, tuple[date | None, date | None]]:
    db.session.expire_all()
    return {v.plate: (v.manufactured_on, v.first_licensed_on)
            for v in db.session.scalars(db.select(Vehicle))}


def test_the_days_are_imported(town):
    rows = [row(0), row(1)]
    rows[0].update(data_fabricacao="10/05/2023", primeiro_licenciamento="02/08/2023")
    report = run(town, to_csv(rows))
    assert report.ok, [str(e) for e in report.errors]
    assert _days() == {rows[0]["placa"]: (date(2023, 5, 10), date(2023, 8, 2)),
                       rows[1]["placa"]: (None, None)}


def test_bad_days_are_named_by_line_and_column_and_nothing_is_written(town):
    rows = [row(0), row(1), row(2)]
    rows[0].update(data_fabricacao="10/05/2022")             # not the year ano_fabricacao gives
    rows[1].update(data_fabricacao="10/05/2023", primeiro_licenciamento="01/05/2023")
    rows[2].update(primeiro_licenciamento="01/01/2099")       # in the future
    report = run(town, to_csv(rows))
    assert not report.ok and not report.written
    by_cell = {(e.line, e.column): str(e) for e in report.errors}
    assert set(by_cell) == {(2, "data_fabricacao"), (3, "primeiro_licenciamento"),
                            (4, "primeiro_licenciamento")}
    assert "2023" in by_cell[(2, "data_fabricacao")]
    assert "anterior à fabricação" in by_cell[(3, "primeiro_licenciamento")]
    assert "futura" in by_cell[(4, "primeiro_licenciamento")]
    assert _days() == {}


def test_a_file_without_the_columns_keeps_registered_days(town):
    first = [row(0)]
    first[0].update(data_fabricacao="10/05/2023", primeiro_licenciamento="02/08/2023")
    assert run(town, to_csv(first)).ok
    changed = row(0) | {"cor": "Azul"}
    report = run(town, to_csv([changed], header=OLD_HEADER))
    assert report.ok, [str(e) for e in report.errors]
    assert _days() == {first[0]["placa"]: (date(2023, 5, 10), date(2023, 8, 2))}


def test_the_model_file_has_the_columns(town):
    header = template_csv(date(2026, 12, 7)).splitlines()[0].split(";")
    assert header.index("data_fabricacao") == header.index("ano_fabricacao") + 1
    assert "primeiro_licenciamento" in header
