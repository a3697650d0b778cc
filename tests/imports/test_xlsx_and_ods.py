"""The registry import reads Excel (.xlsx) and LibreOffice (.ods) workbooks as it reads a CSV
: the same rows give the same dry run, the same import and the same
messages; typed cells (numbers, dates) are read as the staff typed them; a code typed as a
number, which lost its leading zero (0101 → 101), is caught and explained; nothing is
written when a row is refused."""
from __future__ import annotations

from datetime import date

import pytest

from inspector.extensions import db
from inspector.identifiers import make_cpf
from inspector.imports.csv_format import FileRefused
from inspector.imports.csv_import import import_registry
from tests.support.registry_csv import counts, row, to_csv, upload
from tests.support.workbooks import ods, xlsx


def typed(i: int) -> dict:
    """Row i as a spreadsheet types it: years and engine sizes as numbers, dates as dates, a
    CNH of 11 digits as a number (nothing lost), codes as text."""
    r = row(i)
    return {**r, "ano_fabricacao": 2023, "cilindrada": 160, "alvara_fim": date(2027, 3, 1),
            "alvara_inicio": date(2026, 3, 1), "condutor_cnh": int(r["condutor_cnh"])}


def report(town_id: int, data: bytes, dry_run: bool = True):
    return import_registry(town_id, data, actor="teste", dry_run=dry_run)


@pytest.mark.parametrize("make", [xlsx, ods], ids=["xlsx", "ods"])
def test_a_workbook_imports_as_its_csv_does(town, make):
    rows = [row(i) for i in range(12)]
    as_csv = report(town, to_csv(rows))
    book = make([typed(i) for i in range(12)])
    dry = report(town, book)
    assert dry.ok and dry.summary() == as_csv.summary() and counts()["vehicles"] == 0
    done = report(town, book, dry_run=False)
    assert done.ok and done.written
    db.session.commit()
    assert counts()["vehicles"] == 12 and counts()["drivers"] == 12
    again = report(town, make([typed(i) for i in range(12)]))
    assert again.ok and again.summary() == report(town, to_csv(rows)).summary()


@pytest.mark.parametrize("make", [xlsx, ods], ids=["xlsx", "ods"])
def test_a_code_typed_as_a_number_is_caught_and_explained(town, make):
    bad = {**typed(1), "prefixo": 101}
    got = report(town, make([typed(0), bad, typed(2)]))
    assert not got.ok and counts()["vehicles"] == 0
    [error] = got.errors
    assert (error.line, error.column) == (3, "prefixo")
    assert "“101” está na planilha como número" in error.reason
    assert "0101" in error.reason and "formate a coluna como Texto" in error.reason


def test_a_cpf_typed_as_a_number_that_came_out_short_is_explained(town):
    r = {**typed(0), "condutor_cpf": int(make_cpf("012345678"))}   # 10 digits left
    [error] = report(town, xlsx([r])).errors
    assert error.column == "condutor_cpf" and "tem 10 algarismos" in error.reason
    assert "os zeros do começo se perderam" in error.reason


def test_the_same_row_errors_as_the_csv(town):
    spoiled = {"alvara_fim": "01/01/2020", "condutor_cnh_categoria": "Z"}
    as_csv = report(town, to_csv([{**row(0), **spoiled}]))
    as_xlsx = report(town, xlsx([{**row(0), **spoiled}]))
    assert [str(e) for e in as_xlsx.errors] == [str(e) for e in as_csv.errors] != []


def test_lines_are_the_spreadsheets_even_below_blank_lines(town):
    got = report(town, xlsx([row(0), {**row(1), "prefixo": 7}], blank_lines=2))
    assert [e.line for e in got.errors] == [5]


def test_what_is_not_a_readable_workbook_is_refused_with_a_reason(town):
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("foto.jpg", b"nada")
    with pytest.raises(FileRefused, match="não é uma planilha .xlsx nem .ods"):
        report(town, buf.getvalue())
    with pytest.raises(FileRefused, match="corrompid"):
        report(town, b"PK\x03\x04" + b"\x00" * 200)
    with pytest.raises(FileRefused, match="cabeçalho inválido"):
        report(town, xlsx([row(0)], header=["placa", "cor"]))


def test_the_upload_page_takes_an_xlsx_dry_run_then_import(app, client, make):
    from tests import factories

    def vehicles() -> int:
        with app.app_context():
            return counts()["vehicles"]

    client.login(make(factories.user, "admin", "tapurah").username)
    page = client.get("/cadastro/importar").get_data(as_text=True)
    assert ".xlsx" in page and ".ods" in page
    r = upload(client, xlsx([typed(i) for i in range(3)]), name="frota.xlsx")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and 'name="token"' in html and vehicles() == 0
    token = html.split('name="token" value="', 1)[1].split('"', 1)[0]
    done = client.post_form("/cadastro/importar/confirmar", {"token": token},
                            token_from="/cadastro/importar")
    assert done.status_code == 303 and vehicles() == 3
    r = upload(client, ods([{**typed(5), "prefixo": 101}]), name="frota.ods")
    assert r.status_code == 422 and "está na planilha como número" in r.get_data(as_text=True)
    assert vehicles() == 3


@pytest.mark.parametrize("make", [xlsx, ods], ids=["xlsx", "ods"])
def test_a_row_with_a_bad_cell_still_has_its_other_errors_and_its_plate_counted(town, make):
    """Every bad row, every bad cell: line 3's code typed as a number, its unknown CNH
    category, and line 4 repeating line 3's plate are three errors. The row with the number
    was set aside, so its other cells went unchecked and line 4 looked new."""
    bad = {**typed(1), "prefixo": 101, "condutor_cnh_categoria": "Z"}
    again = {**typed(2), "placa": row(1)["placa"]}
    got = report(town, make([typed(0), bad, again]))
    assert [(e.line, e.column) for e in got.errors] == [
        (3, "prefixo"), (3, "condutor_cnh_categoria"), (4, "placa")]
    assert "placa repetida: o veículo já está na linha 3" in got.errors[2].reason
    assert got.rows == 3 and got.bad_lines == [3, 4] and counts()["vehicles"] == 0
