"""Rows out as spreadsheets the town's staff open: CSV as Excel in pt-BR reads it (UTF-8 with
a BOM, ";" between cells, dd/mm/aaaa dates, decimal commas) and XLSX (XlsxWriter, real
dates and numbers). Both are generators: a large town's rows never sit in memory at once
(the XLSX is written row by row to a temporary file in XlsxWriter's constant-memory mode,
then sent in chunks).

Every text cell a spreadsheet would take for a formula (starting with = + - @, a tab or a
carriage return) is written with a leading apostrophe, so a name or note typed as
"=HYPERLINK(...)" stays text (CSV injection). Numbers and dates are typed by us and never are.
"""
from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime
from decimal import Decimal

from inspector import clock

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CHUNK = 64 * 1024


def neutral(text: str) -> str:
    """A text cell that no spreadsheet evaluates: "'=1+1" for "=1+1"."""
    return "'" + text if text.startswith(FORMULA_START) else text


def _local(moment: datetime, town) -> datetime:
    """The moment on the wall clock of the town whose data the sheet holds."""
    return clock.town_moment(town, moment).replace(tzinfo=None)


def csv_cell(value, town=None) -> str:
    """One value as Excel in pt-BR reads it from a CSV (a moment on the clock of `town`, a
    Municipality or an IANA zone name)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "sim" if value else "não"
    if isinstance(value, datetime):
        return _local(value, town).strftime("%d/%m/%Y %H:%M")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    if isinstance(value, Decimal):
        return f"{value:.2f}".replace(".", ",")
    if isinstance(value, (int, float)):
        return str(value).replace(".", ",")
    return neutral(str(value))


def csv_stream(header: Sequence[str], rows: Iterable[Sequence], town) -> Iterator[bytes]:
    """The CSV's bytes, a few hundred rows at a time: BOM, header, rows (CRLF lines); moments
    on the clock of `town`."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow([neutral(h) for h in header])
    yield "\ufeff".encode() + out.getvalue().encode()
    out.seek(0)
    out.truncate()
    for n, row in enumerate(rows, start=1):
        writer.writerow([csv_cell(v, town) for v in row])
        if n % 500 == 0:
            yield out.getvalue().encode()
            out.seek(0)
            out.truncate()
    if out.tell():
        yield out.getvalue().encode()


def xlsx_stream(sheet: str, header: Sequence[str], rows: Iterable[Sequence], town
                ) -> Iterator[bytes]:
    """The XLSX's bytes: rows written one by one to a temporary file (constant memory), the
    file then sent in chunks and removed; moments on the clock of `town`."""
    import xlsxwriter

    handle, path = tempfile.mkstemp(prefix="inspector-export-", suffix=".xlsx")
    os.close(handle)
    try:
        book = xlsxwriter.Workbook(path, {"constant_memory": True, "strings_to_formulas": False,
                                          "strings_to_urls": False, "strings_to_numbers": False,
                                          "tmpdir": tempfile.gettempdir()})
        ws = book.add_worksheet(sheet[:31])
        bold = book.add_format({"bold": True})
        day = book.add_format({"num_format": "dd/mm/yyyy"})
        moment = book.add_format({"num_format": "dd/mm/yyyy hh:mm"})
        money = book.add_format({"num_format": "#,##0.00"})
        for c, name in enumerate(header):
            ws.write_string(0, c, neutral(name), bold)
        for c, name in enumerate(header):
            ws.set_column(c, c, min(max(len(name), 10), 40))
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row):
                if value is None or value == "":
                    continue
                if isinstance(value, bool):
                    ws.write_string(r, c, "sim" if value else "não")
                elif isinstance(value, datetime):
                    ws.write_datetime(r, c, _local(value, town), moment)
                elif isinstance(value, date):
                    ws.write_datetime(r, c, datetime(value.year, value.month, value.day), day)
                elif isinstance(value, Decimal):
                    ws.write_number(r, c, float(value), money)
                elif isinstance(value, (int, float)):
                    ws.write_number(r, c, value)
                else:
                    ws.write_string(r, c, neutral(str(value)))
        ws.freeze_panes(1, 0)
        book.close()
        with open(path, "rb") as f:
            while block := f.read(CHUNK):
                yield block
    finally:
        os.unlink(path)
