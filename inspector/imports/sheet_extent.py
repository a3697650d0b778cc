"""How far each sheet of a workbook reaches, read before any cell is: the reader builds a
dense grid from the first to the last cell, so two cells far apart (A1 and XFD1048576 in a
1.5 KB .xlsx, or an .ods row repeated a million times) would ask it for hundreds of
gigabytes. Every sheet's declared extent (the .xlsx `dimension`, the .xls DIMENSIONS record)
and actual extent (the last cell with content, repeats counted, in .ods) is checked against
the import's limits here, streaming the XML with a bounded parser and walking the .xls
records; a sheet past them refuses the file, naming the limit."""
from __future__ import annotations

import io
import posixpath
import re
import struct
import zipfile
from xml.parsers import expat

from inspector.imports.csv_format import MAX_ROWS, FileRefused

# The header, blank lines above it and a few more beside the data rows.
MAX_SHEET_ROWS = MAX_ROWS + 100
# The spreadsheet has 45 columns; a sheet wider than this is not the registry.
MAX_SHEET_COLUMNS = 100
_CHUNK = 64 * 1024

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships}"
_RID = "http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_REF = re.compile(r"\$?([A-Za-z]{1,4})\$?([0-9]{1,8})$")


def _number(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def refuse_extent(sheet: str, rows: int, columns: int) -> None:
    """Refuse a sheet reaching past the import's limits, naming the limit and the fix."""
    if rows > MAX_SHEET_ROWS:
        raise FileRefused(
            f"a aba “{sheet}” vai até a linha {_number(rows)}; o limite é {_number(MAX_SHEET_ROWS)} "
            f"linhas por aba ({_number(MAX_ROWS)} de dados, o cabeçalho e linhas em branco): apague "
            "as linhas abaixo dos dados (inclusive as vazias formatadas) ou divida a planilha")
    if columns > MAX_SHEET_COLUMNS:
        raise FileRefused(
            f"a aba “{sheet}” vai até a coluna {_number(columns)}; o limite é {MAX_SHEET_COLUMNS} "
            "colunas por aba: apague as colunas à direita dos dados (inclusive as vazias "
            "formatadas)")


def _column_number(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _cell(ref: str) -> tuple[int, int] | None:
    """(row, column), 1-based, of a reference like 'XFD1048576' (None when it is not one)."""
    m = _REF.match(ref.strip())
    return (int(m[2]), _column_number(m[1])) if m else None


def _no_doctype(*_args) -> None:
    raise FileRefused("a planilha traz uma declaração DOCTYPE, que nenhuma planilha usa")


def _parse(stream, start, end=None, text=None) -> None:
    """Stream an XML member through expat's handlers, in chunks, building no tree: memory
    stays bounded whatever the document's size. A document type declaration is refused (no
    workbook has one; entity bombs begin with it). Names come as 'namespace}local'."""
    parser = expat.ParserCreate(namespace_separator="}")
    parser.StartDoctypeDeclHandler = _no_doctype
    parser.StartElementHandler = start
    if end:
        parser.EndElementHandler = end
    if text:
        parser.CharacterDataHandler = text
    try:
        while chunk := stream.read(_CHUNK):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except expat.ExpatError:
        raise FileRefused("a planilha está corrompida (XML inválido); abra-a e salve de novo") \
            from None


# -- .xlsx --------------------------------------------------------------------------------
def _xlsx_sheets(z: zipfile.ZipFile) -> list[tuple[str, str]]:
    """(sheet name, zip member) of every worksheet the workbook names, and any other
    worksheet part in the zip (a reader may find it)."""
    names = set(z.namelist())
    targets: dict[str, str] = {}
    sheets: list[tuple[str, str]] = []

    def relationship(tag, attrs):
        if tag == f"{_RELS}Relationship" and attrs.get("Type", "").endswith("/worksheet"):
            target = attrs.get("Target", "")
            targets[attrs.get("Id", "")] = target.lstrip("/") if target.startswith("/") else \
                posixpath.normpath(posixpath.join("xl", target))

    def sheet(tag, attrs):
        if tag == f"{_MAIN}sheet" and targets.get(attrs.get(_RID, "")) in names:
            sheets.append((attrs.get("name", "?"), targets[attrs[_RID]]))

    if "xl/_rels/workbook.xml.rels" in names:
        _parse(z.open("xl/_rels/workbook.xml.rels"), relationship)
    _parse(z.open("xl/workbook.xml"), sheet)
    seen = {member for _, member in sheets}
    sheets += [(posixpath.basename(n), n) for n in sorted(names)
               if re.search(r"(^|/)worksheets/[^/]+\.xml$", n) and n not in seen]
    return sheets


def _check_xlsx_sheet(z: zipfile.ZipFile, sheet: str, member: str) -> None:
    at = {"row": 0, "col": 0}

    def start(tag, attrs):
        if tag == f"{_MAIN}dimension":   # declared: 'A1:XFD1048576' or 'A1'
            for ref in attrs.get("ref", "").split(":"):
                if (cell := _cell(ref)) is not None:
                    refuse_extent(sheet, *cell)
        elif tag == f"{_MAIN}row":
            r = attrs.get("r", "")
            at["row"], at["col"] = (int(r) if r.isdigit() else at["row"] + 1), 0
            refuse_extent(sheet, at["row"], 0)
        elif tag == f"{_MAIN}c":
            cell = _cell(attrs.get("r", ""))
            at["row"], at["col"] = cell if cell else (at["row"], at["col"] + 1)
            refuse_extent(sheet, at["row"], at["col"])

    _parse(z.open(member), start)


def check_xlsx(z: zipfile.ZipFile) -> None:
    """Refuse an .xlsx any of whose sheets reaches past the import's limits."""
    for sheet, member in _xlsx_sheets(z):
        _check_xlsx_sheet(z, sheet, member)


# -- .ods ---------------------------------------------------------------------------------
def _repeat(attrs: dict, attribute: str) -> int:
    value = attrs.get(f"{_TABLE}{attribute}", "1")
    return int(value) if value.isdigit() else 1


def check_ods(z: zipfile.ZipFile) -> None:
    """Refuse an .ods any of whose tables reaches past the import's limits: its last row and
    column with content, repeats counted (trailing blank repeats, which LibreOffice writes at
    the end of a sheet, reach nowhere)."""
    if "content.xml" not in z.namelist():
        raise FileRefused("a planilha .ods não tem conteúdo (content.xml); abra-a e salve de novo")
    cells = (f"{_TABLE}table-cell", f"{_TABLE}covered-table-cell")
    # table name, rows before this one, this row's repeat, columns so far, last column with
    # content, and the open cell: its repeat and whether it holds anything
    at = {"sheet": "?", "rows": 0, "repeat": 1, "col": 0, "last": 0, "cell": None, "full": False}

    def start(tag, attrs):
        if at["cell"] is not None:
            at["full"] = True   # a paragraph, an annotation: content
        elif tag in cells:
            at["cell"] = _repeat(attrs, "number-columns-repeated")
            at["full"] = bool(attrs.get(f"{_OFFICE}value-type"))
        elif tag == f"{_TABLE}table-row":
            at.update(repeat=_repeat(attrs, "number-rows-repeated"), col=0, last=0)
        elif tag == f"{_TABLE}table":
            at.update(sheet=attrs.get(f"{_TABLE}name", "?"), rows=0)

    def text(data):
        if at["cell"] is not None and data.strip():
            at["full"] = True

    def end(tag):
        if tag in cells:
            at["col"] += at["cell"] or 1
            if at["full"]:
                at["last"] = at["col"]
                refuse_extent(at["sheet"], at["rows"] + 1, at["last"])
            at["cell"], at["full"] = None, False
        elif tag == f"{_TABLE}table-row":
            if at["last"]:
                refuse_extent(at["sheet"], at["rows"] + at["repeat"], at["last"])
            at["rows"] += at["repeat"]

    _parse(z.open("content.xml"), start, end, text)


# -- .xls ---------------------------------------------------------------------------------
# BIFF records that hold one cell (row, column first) and those that hold a run of them.
_CELL_RECORDS = {0x0006, 0x00D6, 0x00FD, 0x0201, 0x0203, 0x0204, 0x0205, 0x027E}
_RUN_RECORDS = {0x00BD, 0x00BE}   # MULRK, MULBLANK: row, first column, ..., last column
_BOF, _BOUNDSHEET, _DIMENSIONS = 0x0809, 0x0085, 0x0200


def check_xls(data: bytes) -> None:
    """Refuse an .xls any of whose worksheets reaches past the import's limits: the
    DIMENSIONS each declares and the cells it holds (the reader reads every sheet at once)."""
    import olefile

    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
        stream = next((s for s in ("Workbook", "Book") if ole.exists(s)), None)
        if stream is None:
            raise FileRefused("a planilha .xls não tem uma pasta de trabalho; abra-a e salve de novo")
        book = ole.openstream(stream).read()
    except FileRefused:
        raise
    except Exception:   # olefile's own errors: the container is damaged
        raise FileRefused("a planilha .xls está corrompida; abra-a e salve de novo") from None
    names, sheet_index, sheet = [], -1, "?"
    pos, end = 0, len(book)
    while pos + 4 <= end:
        kind, size = struct.unpack_from("<HH", book, pos)
        body = book[pos + 4:pos + 4 + size]
        pos += 4 + size
        if kind == _BOUNDSHEET and size >= 8:
            length = body[6]
            raw = body[8:8 + length * (2 if body[7] & 1 else 1)]
            names.append(raw.decode("utf-16-le" if body[7] & 1 else "latin-1", "replace"))
        elif kind == _BOF and size >= 4 and struct.unpack_from("<H", body, 2)[0] == 0x0010:
            sheet_index += 1
            sheet = names[sheet_index] if sheet_index < len(names) else f"{sheet_index + 1}"
        elif kind == _DIMENSIONS and size >= 14:   # BIFF8: last row + 1, last column + 1
            _, rows, _, cols = struct.unpack_from("<IIHH", body)
            refuse_extent(sheet, rows, cols)
        elif kind == _DIMENSIONS and size >= 10:   # BIFF5
            _, rows, _, cols = struct.unpack_from("<HHHH", body)
            refuse_extent(sheet, rows, cols)
        elif kind in _CELL_RECORDS and size >= 4:
            row, col = struct.unpack_from("<HH", body)
            refuse_extent(sheet, row + 1, col + 1)
        elif kind in _RUN_RECORDS and size >= 6:
            row, = struct.unpack_from("<H", body)
            last, = struct.unpack_from("<H", body, size - 2)
            refuse_extent(sheet, row + 1, last + 1)
