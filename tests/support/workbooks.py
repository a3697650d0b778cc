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
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        '<office:body><office:spreadsheet><table:table table:name="Frota">'
        + "".join(lines) + "</table:table></office:spreadsheet></office:body>"
        "</office:document-content>")
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
