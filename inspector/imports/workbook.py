"""The registry spreadsheet as an Excel (.xlsx, .xls) or LibreOffice (.ods) workbook: its first
sheet read as the CSV is (csv_format.py), so the same header check, the same row validation,
dry run and messages follow (csv_import.py).

A workbook types its cells. Dates become dd/mm/aaaa; a whole number becomes its digits. A
code typed as a number has lost what a number cannot keep, a leading zero (`0101` → `101`):
a number in a column of codes (prefix, permit, licence, registration, policy, stand) is
refused with the fix (format the column as Text and type the code again), and so is a CPF,
CNH or CNPJ typed as a number that came out short. python-calamine reads the three formats
(cached values of formulas). Before it reads a cell, the zip's declared sizes are checked (a
2 MB file that unpacks to gigabytes is refused) and so is every sheet's extent
(sheet_extent.py: two cells far apart would make the reader build a grid of hundreds of
gigabytes); the reading itself runs in a child process under a memory limit
(sheet_reader.py), so no file can take the server down."""
from __future__ import annotations

import io
import zipfile
from datetime import date, datetime, time

from inspector.imports import sheet_extent
from inspector.imports.csv_format import (
    BY_NAME,
    MAX_BYTES,
    MAX_ROWS,
    FileRefused,
    check_header,
    read_rows,
)
from inspector.imports.sheet_reader import MEMORY_BYTES, ReadFailed, read_first_sheet

ZIP, OLE = b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
MAX_UNPACKED = 64 * 1024 * 1024
ODS_MIME = b"application/vnd.oasis.opendocument.spreadsheet"
# Codes the registry matches as written: a number there lost its leading zeros, if it had any.
CODE_COLUMNS = ("prefixo", "permissao_numero", "alvara_numero", "condutor_registro",
                "seguro_apolice", "ponto")
# Documents of a fixed number of digits: a shorter number lost its leading zeros.
DIGIT_COLUMNS = {"condutor_cpf": (11,), "condutor_cnh": (11,), "titular_documento": (11, 14)}
TEXT_FIX = ("formate a coluna como Texto (no Excel: Página Inicial → Número → Texto; no "
            "LibreOffice: Formatar células → Texto) e digite o código de novo")


def is_workbook(data: bytes) -> bool:
    """Whether the bytes are an .xlsx / .ods (a zip) or an old .xls (an OLE file)."""
    return data.startswith((ZIP, OLE))


def read_any(data: bytes):
    """The header and rows of a CSV or a workbook, as csv_format.read_rows gives them."""
    return read_workbook(data) if is_workbook(data) else read_rows(data)


def _check_zip(data: bytes) -> None:
    """Refuse a zip that unpacks past the limit, is not a spreadsheet, or has a sheet that
    reaches past the import's rows or columns."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
            if sum(i.file_size for i in z.infolist()) > MAX_UNPACKED:
                raise FileRefused("a planilha descompactada passa de 64 MB; divida-a")
            is_ods = "mimetype" in names and z.read("mimetype").strip() == ODS_MIME
            if is_ods:
                sheet_extent.check_ods(z)
            elif "xl/workbook.xml" in names:
                sheet_extent.check_xlsx(z)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, ValueError):
        # a damaged member, an unknown compression or encryption
        raise FileRefused("o arquivo parece uma planilha .xlsx ou .ods, mas está corrompido; "
                          "abra-o e salve de novo") from None
    if not is_ods and "xl/workbook.xml" not in names:
        raise FileRefused("o arquivo compactado não é uma planilha .xlsx nem .ods")


_READ_FAILED = {
    "unreadable": "não consegui ler a planilha (arquivo corrompido ou protegido por senha); abra-a "
                  "e salve de novo como .xlsx, .ods ou CSV UTF-8",
    "no sheet": "a planilha não tem nenhuma aba",
    "memory": f"ler a planilha pediria mais de {MEMORY_BYTES // (1024 * 1024)} MB de memória, o "
              "limite do servidor; apague as linhas e colunas vazias além dos dados ou salve-a "
              "como CSV UTF-8",
    "time": "ler a planilha levou tempo demais; apague as linhas e colunas vazias além dos dados "
            "ou salve-a como CSV UTF-8",
}


def _sheet(data: bytes) -> list[list]:
    """The first sheet's cells, read by a child process under a memory limit."""
    try:
        return read_first_sheet(data, nrows=sheet_extent.MAX_SHEET_ROWS)
    except ReadFailed as e:
        raise FileRefused(_READ_FAILED[e.reason]) from None


def _number_text(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).replace(".", ",")


def cell_text(column: str, value) -> tuple[str, str | None]:
    """A cell as the CSV would have it, and why it cannot be taken (None when it can)."""
    if value is None or value == "":
        return "", None
    if isinstance(value, bool):
        return ("sim" if value else "não"), None
    if isinstance(value, datetime):
        return value.strftime("%d/%m/%Y"), None
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y"), None
    if isinstance(value, time):
        return value.strftime("%H:%M"), None
    if isinstance(value, (int, float)):
        text = _number_text(value)
        if column in CODE_COLUMNS:
            return text, (f"“{text}” está na planilha como número, não como texto: se o código "
                          f"começava com zero (0{text}), o zero se perdeu; {TEXT_FIX}")
        lengths = DIGIT_COLUMNS.get(column)
        if lengths and (not text.isdigit() or len(text) not in lengths):
            return text, (f"“{text}” está na planilha como número e tem {len(text)} algarismos: "
                          f"os zeros do começo se perderam; {TEXT_FIX}")
        return text, None
    return str(value).strip(), None


def read_workbook(data: bytes):
    """The first sheet's header and rows as (spreadsheet line, {column: text}), and the rows'
    problems (line, reason) or (line, column, reason); FileRefused for a file that is not a
    readable workbook. A row with a bad cell (line, column, reason) is among the rows too."""
    if len(data) > MAX_BYTES:
        raise FileRefused(f"arquivo grande demais: o limite é {MAX_BYTES // (1024 * 1024)} MB")
    if data.startswith(ZIP):
        _check_zip(data)
    else:
        sheet_extent.check_xls(data)
    cells = _sheet(data)
    header_line = 1
    while cells and not any(str(c).strip() for c in cells[0]):
        cells, header_line = cells[1:], header_line + 1   # blank lines above the header
    if not cells:
        raise FileRefused("a planilha está vazia")
    names = check_header([str(c) for c in cells[0]])
    needed = max(i for i, n in enumerate(names) if BY_NAME[n].required) + 1
    rows, problems = [], []
    for line, row in enumerate(cells[1:], start=header_line + 1):
        if not any(str(c).strip() for c in row):
            continue
        if len(rows) >= MAX_ROWS:
            raise FileRefused(f"linhas demais: o limite é {MAX_ROWS} por arquivo; divida a planilha")
        if any(str(c).strip() for c in row[len(names):]) or len(row) < needed:
            problems.append((line, f"a linha tem mais colunas preenchidas que o cabeçalho "
                                   f"({len(names)})"))
            continue
        values, why = {}, []
        for i, name in enumerate(names):
            text, reason = cell_text(name, row[i] if i < len(row) else "")
            values[name] = text
            if reason:
                why.append((name, reason))
        # A bad cell is reported, and the row still goes through the services: its other
        # cells' errors, and the rows after it that repeat its plate, are reported too.
        problems.extend((line, name, reason) for name, reason in why)
        rows.append((line, values))
    if not rows and not problems:
        raise FileRefused("o arquivo não tem nenhuma linha de dados")
    return names, rows, problems
