"""Broken spreadsheet lines get a message that names the line and what is wrong with it,
not a cascade of nonsense about the cells that slid into the wrong columns."""
from __future__ import annotations

import pytest

from inspector.imports.csv_format import FileRefused
from inspector.imports.csv_import import import_registry
from tests.support.registry_csv import (
    HEADER,
    counts,
    row,
    to_csv,
)


def lines(data: bytes) -> list[bytes]:
    return data.split(b"\r\n")


def test_a_quote_left_open_refuses_the_file_naming_its_line(town):
    """An unclosed quote swallows every later row into one cell: rows 3 and 4 must not
    vanish while line 2 is blamed for a 'too long' holder name."""
    before = counts()
    data = to_csv([row(0), row(1), row(2)])
    parts = lines(data)
    parts[2] = parts[2].replace(b"Moto Empresa 0 Ltda", b'"Moto Empresa 0 Ltda')
    with pytest.raises(FileRefused, match=r'aspas \(\"\) sem fechamento na linha 3'):
        import_registry(town, b"\r\n".join(parts), actor="teste", dry_run=True)
    assert counts() == before


def test_a_quote_left_open_in_a_big_file_is_named_in_portuguese(town):
    """Past the csv module's cell limit (128 KB) the parser itself gives up, in English."""
    data = to_csv([row(i) for i in range(600)])
    parts = lines(data)
    parts[1] = parts[1].replace(b"Moto Empresa 0 Ltda", b'"Moto Empresa 0 Ltda')
    with pytest.raises(FileRefused, match=r"sem fechamento na linha 2") as e:
        import_registry(town, b"\r\n".join(parts), actor="teste", dry_run=True)
    assert "field" not in str(e.value)


def test_a_row_broken_in_two_is_named_as_such(town):
    """A line break in the middle of a row (an editor's wrap): each half is short of the
    header's columns, said once per line instead of one error per displaced cell."""
    before = counts()
    data = to_csv([row(0), row(1)])
    parts = lines(data)
    cells = parts[1].split(b";")
    parts[1] = b";".join(cells[:10]) + b"\r\n" + b";".join(cells[10:])
    report = import_registry(town, b"\r\n".join(parts), actor="teste", dry_run=True)
    assert [(e.line, e.column) for e in report.errors] == [(2, "(linha)"), (3, "(linha)")]
    assert report.errors[0].reason == f"a linha tem 10 colunas e o cabeçalho {len(HEADER)}"
    assert counts() == before


def test_a_row_missing_only_trailing_optional_cells_still_imports(town):
    """Excel drops the separators of empty cells at the end of some rows: the insurance
    columns at the end of a taxi row may simply be missing. (Sapezal: Tapurah's law has
    no taxi service.)"""
    from tests import factories
    from tests.support.registry_csv import taxi_row

    sapezal = factories.town("sapezal").id
    data = to_csv([taxi_row(0)])
    parts = lines(data)
    cells = parts[1].split(b";")
    parts[1] = b";".join(cells[:-4])  # seguro_* blank and left out
    report = import_registry(sapezal, b"\r\n".join(parts), actor="teste", dry_run=True)
    assert report.ok, report.errors


def test_a_latin1_file_names_the_line_of_the_first_accent(town):
    """'byte inválido na posição 678' means nothing to a clerk; the line does."""
    plain = {**row(0), "trail": "nao", "permissao_tipo": "autorizacao"}  # no accent
    data = to_csv([plain, {**row(1), "titular_nome": "Moto São João Ltda"}], bom=False)
    with pytest.raises(FileRefused, match=r"não está em UTF-8 \(caractere inválido na "
                                          r"linha 3.*CSV UTF-8"):
        import_registry(town, data.decode().encode("latin-1"), actor="teste", dry_run=True)


@pytest.mark.parametrize("magic", [b"PK\x03\x04\x14\x00\x06\x00",  # .xlsx / .ods (zip)
                                   b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"])  # old .xls
def test_a_broken_workbook_is_named_as_such(town, magic):
    """A workbook is read (tests/imports/test_xlsx_and_ods.py); one whose bytes
    are not a readable workbook is refused as a damaged spreadsheet, not as 'não está em UTF-8'."""
    with pytest.raises(FileRefused, match=r"planilha.*corrompid.*salve de novo"):
        import_registry(town, magic + bytes(range(256)) * 4, actor="teste", dry_run=True)


def test_a_tab_separated_sheet_is_read(town):
    """Cells pasted from a spreadsheet into a text file, or Excel's 'Texto (separado por
    tabulações)': it was refused with every column named missing and one unknown column."""
    report = import_registry(town, to_csv([row(0), row(1)], delimiter="\t"), actor="teste",
                             dry_run=True)
    assert report.ok, report.errors
    assert report.created["vehicle"] == 2
