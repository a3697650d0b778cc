"""A workbook of a few bytes that claims a huge sheet (two cells far apart, an .ods row or cell
repeated a million times) is refused, naming the limit, before any cell is read; the reading
itself runs in a child process under a memory limit, so no file can take the server down:
the server still answers, and the login limits it keeps in memory still count."""
from __future__ import annotations

import pytest

from inspector.imports.csv_format import FileRefused
from inspector.imports.csv_import import import_registry
from inspector.imports.sheet_reader import MEMORY_BYTES, ReadFailed, read_first_sheet
from tests import factories
from tests.support.devserver import Browser, devserver
from tests.support.registry_csv import row
from tests.support.workbooks import (
    far_cells_ods,
    far_cells_xls,
    far_cells_xlsx,
    ods,
    ods_table,
    row_repeat_ods,
    xlsx,
)

ROWS = "o limite é 5.100 linhas por aba (5.000 de dados"
COLUMNS = "o limite é 100 colunas por aba"
HOSTILE = {  # name: (file name, bytes, what the refusal says)
    "A1 and XFD1048576 (.xlsx)": ("frota.xlsx", far_cells_xlsx, "vai até a linha 1.048.576; " + ROWS),
    "its .ods equivalent": ("frota.ods", far_cells_ods, "vai até a coluna 16.384; " + COLUMNS),
    "a row repeated a million times (.ods)": ("frota.ods", row_repeat_ods,
                                              "vai até a linha 1.000.000; " + ROWS),
    "A1 and IV65536 on four sheets (.xls)": ("frota.xls", far_cells_xls,
                                             "vai até a linha 65.536; " + ROWS),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_workbook_is_refused_naming_the_limit(town, name):
    _, make, says = HOSTILE[name]
    with pytest.raises(FileRefused, match=says.replace("(", r"\(").replace(".", r"\.")):
        import_registry(town, make(), actor="teste", dry_run=True)


def test_trailing_blank_repeats_that_every_libreoffice_sheet_has_are_no_extent(town):
    """LibreOffice ends a sheet with its empty rows and cells as repeats up to the last row and
    column: they hold nothing, and the file imports."""
    from tests.support.registry_csv import HEADER

    good = ods([row(0)])
    blank = ('<table:table-row table:number-rows-repeated="1048574"><table:table-cell '
             'table:number-columns-repeated="16384"/></table:table-row>')
    cells = "".join(f'<table:table-cell office:value-type="string"><text:p>{v}</text:p>'
                    f"</table:table-cell>" for v in HEADER)
    values = "".join(f'<table:table-cell office:value-type="string"><text:p>{row(0)[h]}'
                     f"</text:p></table:table-cell>" if row(0).get(h) else "<table:table-cell/>"
                     for h in HEADER)
    trailing = ods_table(f"<table:table-row>{cells}<table:table-cell table:number-columns-repeated="
                         f'"16339"/></table:table-row><table:table-row>{values}</table:table-row>'
                         + blank)
    assert import_registry(town, good, actor="teste", dry_run=True).ok
    assert import_registry(town, trailing, actor="teste", dry_run=True).ok


@pytest.mark.parametrize("last", [5100, 5101])
def test_the_row_limit_is_the_sheets_last_line(town, last):
    """A cell on line 5,100 is within the limit (the row is read, and is a bad row); on line
    5,101 the file is refused."""
    import io

    import openpyxl

    from tests.support.registry_csv import HEADER

    book = openpyxl.Workbook()
    book.active.append(HEADER)
    book.active.append([row(0).get(h) or None for h in HEADER])
    book.active.cell(row=last, column=1, value="QBA1D23")
    out = io.BytesIO()
    book.save(out)
    if last > 5100:
        with pytest.raises(FileRefused, match="vai até a linha 5.101; " + ROWS.replace("(", r"\(")):
            import_registry(town, out.getvalue(), actor="teste", dry_run=True)
    else:
        got = import_registry(town, out.getvalue(), actor="teste", dry_run=True)
        assert got.bad_lines == [5100]


def test_the_reader_runs_under_a_memory_limit():
    """The extent check is the first wall; the second is the child process: given the
    two-cell file directly, the reader asks for 512 GiB, its allocation fails in the child,
    and this process (a web worker in production) goes on."""
    with pytest.raises(ReadFailed) as refused:
        read_first_sheet(far_cells_xlsx(), nrows=10)
    assert refused.value.reason == "memory" and MEMORY_BYTES <= 1024 ** 3
    assert read_first_sheet(xlsx([row(0)]), nrows=10)[1][0] == row(0)["placa"]


def test_the_cli_refuses_a_hostile_workbook_in_one_line(runner, town, tmp_path):
    path = tmp_path / "frota.xlsx"
    path.write_bytes(far_cells_xlsx())
    result = runner.invoke(args=["registry", "import", "--town", "tapurah", str(path)])
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("erro: a aba “Frota” vai até a linha 1.048.576") and ROWS in line


def test_the_real_server_refuses_each_file_and_keeps_answering_and_counting(
        app, schema, tmp_path, make):
    """Through the upload page of the real server (gunicorn): each hostile file gets a 422
    naming the limit; the server still answers; four wrong passwords before the uploads and
    six after make ten, and the eleventh try is refused (429): the login limits, kept in the
    worker's memory, survived (a worker that died would have forgotten the first four)."""
    admin = make(factories.user, "admin", "tapurah")
    agent = make(factories.user, "agent", "tapurah")
    with devserver(schema, tmp_path) as port:
        attacker, staff = Browser(port), Browser(port)

        def wrong_password() -> int:
            return attacker.send("POST", "/entrar", {"username": agent.username,
                                                     "password": "errada-000",
                                                     "csrf_token": attacker.token()}).status

        assert [wrong_password() for _ in range(3)] == [401] * 3
        signed_in = staff.send("POST", "/entrar", {"username": admin.username,
                                                   "password": factories.PASSWORD,
                                                   "csrf_token": staff.token()})
        assert signed_in.status in (302, 303)   # the fourth try of this address
        for name, (filename, make_file, says) in HOSTILE.items():
            r = staff.send("POST", "/cadastro/importar", {"csrf_token": staff.token("/cadastro/importar")},
                           files={"arquivo": (filename, make_file())})
            assert r.status == 422, (name, r.status)
            assert "Arquivo recusado" in r.text and says in r.text, name
            assert staff.send("GET", "/healthz").status == 200
        assert [wrong_password() for _ in range(6)] == [401] * 6
        assert wrong_password() == 429
