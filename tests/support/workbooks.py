"""Registry spreadsheets as the town's staff save them: an Excel workbook (written with
openpyxl, cells typed: numbers, dates, text) and a LibreOffice .ods (written by hand, the
OpenDocument format is a zip of XML), for the import tests."""
from __future__ import annotations

import io
import zipfile
from datetime import date, datetime
from xml.sax.saxutils import escape

from tests.support.registry_csv import HEADER


def xlsx(rows: list[dict], header: list[str] | None = None, blank_lines: int = 0) -> bytes:
    """An .xlsx whose first sheet holds the header (after `blank_lines` empty lines) and rows."""
    import openpyxl

    header = header or HEADER
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Frota"
    for _ in range(blank_lines):
        ws.append([])
    ws.append(header)
    for r in rows:
        ws.append([r.get(h, "") if r.get(h, "") != "" else None for h in header])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _ods_cell(value) -> str:
    if value is None or value == "":
        return "<table:table-cell/>"
    if isinstance(value, (date, datetime)):
        return (f'<table:table-cell office:value-type="date" office:date-value="'
                f'{value.isoformat()}"><text:p>{value:%d/%m/%Y}</text:p></table:table-cell>')
    if isinstance(value, (int, float)):
        return (f'<table:table-cell office:value-type="float" office:value="{value}">'
                f"<text:p>{value}</text:p></table:table-cell>")
    return (f'<table:table-cell office:value-type="string"><text:p>{escape(str(value))}'
            f"</text:p></table:table-cell>")


def ods(rows: list[dict], header: list[str] | None = None) -> bytes:
    """An .ods (OpenDocument spreadsheet) with the header and rows in its first table."""
    header = header or HEADER
    lines = ["<table:table-row>" + "".join(_ods_cell(h) for h in header) + "</table:table-row>"]
    lines += ["<table:table-row>" + "".join(_ods_cell(r.get(h, "")) for h in header)
              + "</table:table-row>" for r in rows]
    return ods_table("".join(lines))


# -- hostile workbooks: a few bytes that claim a huge sheet -----------------------------------
def far_cells_xlsx() -> bytes:
    """Two cells, A1 and XFD1048576 (Excel's last): a grid of 16,384 × 1,048,576 to a
    reader that fills the space between them (512 GiB of cells)."""
    import openpyxl

    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Frota"
    ws["A1"], ws["XFD1048576"] = "placa", "QBA1D23"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def ods_table(body: str, name: str = "Frota") -> bytes:
    """An .ods whose first table's XML is `body` (rows written as given, repeats and all)."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f'<office:body><office:spreadsheet><table:table table:name="{name}">{body}'
        "</table:table></office:spreadsheet></office:body></office:document-content>")
    return _ods_zip(content)


def _ods_zip(content: str) -> bytes:
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type='
        '"application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry '
        'manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
    return out.getvalue()


_TEXT_CELL = '<table:table-cell{repeat} office:value-type="string"><text:p>x</text:p></table:table-cell>'


def far_cells_ods() -> bytes:
    """The .ods form of far_cells_xlsx: a cell, 16,382 empty ones, a cell; a million empty rows
    (number-rows-repeated), a cell."""
    cell = _TEXT_CELL.format(repeat="")
    return ods_table(
        f'<table:table-row>{cell}<table:table-cell table:number-columns-repeated="16382"/>{cell}'
        '</table:table-row><table:table-row table:number-rows-repeated="1048574"><table:table-cell/>'
        f'</table:table-row><table:table-row>{cell}</table:table-row>')


def row_repeat_ods() -> bytes:
    """A row of 45 filled cells (the spreadsheet's width) repeated a million times: 45 million
    cells, 1.4 GB to the reader, in 800 bytes."""
    cell = _TEXT_CELL.format(repeat=' table:number-columns-repeated="45"')
    return ods_table(f'<table:table-row table:number-rows-repeated="1000000">{cell}</table:table-row>')


def far_cells_xls(sheets: int = 4) -> bytes:
    """An old .xls whose sheets each hold A1 and IV65536 (its last cell): the reader reads
    every sheet at once, 512 MiB each."""
    import xlwt

    book = xlwt.Workbook()
    for k in range(sheets):
        ws = book.add_sheet(f"Frota{k + 1}")
        ws.write(0, 0, "placa")
        ws.write(65535, 255, "x")
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
