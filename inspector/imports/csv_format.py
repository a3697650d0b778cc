"""The registry spreadsheet: its columns, how its bytes are read, what a header must hold.

One row per vehicle, with its holder, permit, licence, main driver and (moto-taxi)
insurance. Column names are Portuguese, matched without regard to case, accents or
spacing ("Ano Fabricação" is `ano_fabricacao`). The format is documented for people
in docs/csv-import.md; keep the two in step.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta

MAX_BYTES = 2 * 1024 * 1024
MAX_ROWS = 5000


@dataclass(frozen=True)
class Column:
    """A spreadsheet column: which record and field of the services it fills."""

    name: str
    group: str      # holder | vehicle | permit | licence | driver | insurance
    field: str      # the services' key in `data`
    required: bool  # must be in the header
    example: str = ""


COLUMNS: tuple[Column, ...] = (
    Column("placa", "vehicle", "plate", True, "QBA1D23"),
    Column("servico", "vehicle", "service", True, "mototaxi"),
    Column("marca_modelo", "vehicle", "make_model", True, "Honda CG 160"),
    Column("ano_fabricacao", "vehicle", "year_of_manufacture", True, "2023"),
    # The CRLV's days, when known: ages count from them ("completarem N anos de fabricação",
    # "anos de uso"); with only the year a vehicle is out once it has surely reached N years.
    Column("data_fabricacao", "vehicle", "manufactured_on", False, ""),
    Column("primeiro_licenciamento", "vehicle", "first_licensed_on", False, ""),
    Column("cor", "vehicle", "colour", True, "Vermelha"),
    Column("cilindrada", "vehicle", "engine_cc", False, "160"),
    Column("portas", "vehicle", "doors", False, ""),
    # The company's code and number (Tapurah Lei 406/2001 Art. 22 II): a digits-only example
    # like 0101 loses its zero when Excel opens the model, and the import cannot tell.
    Column("prefixo", "vehicle", "prefix", False, "MR01"),
    Column("trail", "vehicle", "is_trail", False, "não"),
    Column("ponto", "vehicle", "stand_code", False, ""),
    Column("ultima_vistoria", "vehicle", "last_vistoria_on", False, "15/01/2026"),
    # Only where the town's law lets the inspector shorten a vistoria (vistoria_validity).
    Column("vistoria_validade_reduzida", "vehicle", "vistoria_valid_until", False, ""),
    Column("titular_documento", "holder", "tax_id", True, "11.222.333/0001-81"),
    Column("titular_nome", "holder", "name", True, "Moto Rápida Ltda"),
    Column("titular_tipo", "holder", "kind", False, "empresa"),
    Column("titular_endereco", "holder", "address", False, "Av. Brasil, 100"),
    Column("titular_telefone", "holder", "phone", False, "(65) 99999-0000"),
    Column("titular_email", "holder", "email", False, ""),
    Column("permissao_numero", "permit", "number", True, "AUT-001/2024"),
    Column("permissao_tipo", "permit", "kind", False, "autorizacao"),
    Column("permissao_inicio", "permit", "valid_from", True, "01/02/2024"),
    Column("permissao_fim", "permit", "valid_until", False, ""),
    Column("permissao_situacao", "permit", "status", False, "ativa"),
    Column("alvara_numero", "licence", "number", True, "ALV-123/2025"),
    Column("alvara_tipo", "licence", "kind", False, ""),
    Column("alvara_inicio", "licence", "valid_from", True, "01/03/2025"),
    Column("alvara_fim", "licence", "valid_until", True, "28/02/2026"),
    Column("alvara_situacao", "licence", "status", False, "ativo"),
    Column("condutor_nome", "driver", "name", True, "João da Silva"),
    Column("condutor_cpf", "driver", "cpf", True, "111.444.777-35"),
    Column("condutor_rg", "driver", "rg_number", False, "12.345.678-9"),
    Column("condutor_rg_orgao", "driver", "rg_issuer", False, "SSP/MT"),
    Column("condutor_categoria", "driver", "category", False, "mototaxista"),
    Column("condutor_cnh", "driver", "cnh_number", True, "01234567890"),
    Column("condutor_cnh_categoria", "driver", "cnh_category", True, "A"),
    Column("condutor_cnh_validade", "driver", "cnh_expiry", True, "31/12/2030"),
    Column("condutor_registro", "driver", "registration_number", True, "MT-001"),
    Column("condutor_registro_validade", "driver", "registration_expiry", True, "30/06/2026"),
    Column("condutor_situacao", "driver", "status", False, "ativo"),
    Column("seguro_seguradora", "insurance", "insurer", False, "Seguradora Exemplo"),
    Column("seguro_apolice", "insurance", "policy_number", False, "AP-5555"),
    Column("seguro_inicio", "insurance", "valid_from", False, "01/03/2025"),
    Column("seguro_fim", "insurance", "valid_until", False, "28/02/2026"),
)
BY_NAME = {c.name: c for c in COLUMNS}
GROUPS = ("holder", "vehicle", "permit", "licence", "driver", "insurance")
# Insurance columns are optional, but all four come together.
ALL_OR_NONE = {"insurance": ("seguro_seguradora", "seguro_apolice", "seguro_inicio",
                             "seguro_fim")}

# Where a service's reference fields point in the spreadsheet.
REFERENCE_COLUMNS = {"holder_tax_id": "titular_documento", "vehicle_plate": "placa",
                     "permit_number": "permissao_numero", "service": "servico"}


# How .xlsx/.ods (a zip) and old .xls (an OLE compound file) begin.
_WORKBOOK_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")


class FileRefused(Exception):
    """The file as a whole cannot be read (encoding, size, header): nothing is imported."""


def column_key(header: str) -> str:
    """A header cell as a column name: 'Ano Fabricação ' -> 'ano_fabricacao'."""
    plain = unicodedata.normalize("NFKD", header or "").encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")


def column_for(group: str, field: str) -> str:
    """The spreadsheet column a service's error on (group, field) belongs to."""
    for c in COLUMNS:
        if c.group == group and c.field == field:
            return c.name
    return REFERENCE_COLUMNS.get(field, field)


def decode(data: bytes) -> str:
    """UTF-8 text (a leading BOM is dropped); any other encoding is refused with advice."""
    if len(data) > MAX_BYTES:
        raise FileRefused(f"arquivo grande demais: o limite é {MAX_BYTES // (1024 * 1024)} MB")
    if data.startswith(_WORKBOOK_MAGIC):
        raise FileRefused("o arquivo é uma pasta de trabalho do Excel ou do Calc (.xlsx, "
                          ".xls, .ods), não um CSV; abra-o e use “Salvar como” → “CSV UTF-8”")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1  # what a spreadsheet numbers, header = 1
        raise FileRefused(f"o arquivo não está em UTF-8 (caractere inválido na linha {line}, "
                          "talvez um acento); no Excel, salve como “CSV UTF-8”") from None
    if "\x00" in text:
        raise FileRefused("o arquivo não é um CSV de texto")
    if not text.strip():
        raise FileRefused("o arquivo está vazio")
    return text


def delimiter_of(text: str) -> str:
    """';' (Brazilian spreadsheets), ',' or a tab (cells pasted from a spreadsheet, Excel's
    'Texto separado por tabulações'), whichever the header line uses most."""
    first = text.splitlines()[0] if text else ""
    return max((",", ";", "\t"), key=first.count)


def check_header(cells: list[str]) -> list[str]:
    """The header's column names; a missing, unknown or repeated column refuses the file."""
    names = [column_key(c) for c in cells]
    while names and not names[-1]:
        names.pop()  # trailing empty cells that spreadsheets leave
    problems = []
    missing = [c.name for c in COLUMNS if c.required and c.name not in names]
    for _group, cols in ALL_OR_NONE.items():
        present = [c for c in cols if c in names]
        if present:
            missing += [c for c in cols if c not in names]
    unknown = [cells[i].strip() or f"(coluna {i + 1} sem nome)" for i, n in enumerate(names)
               if n not in BY_NAME]
    repeated = sorted({n for n in names if n in BY_NAME and names.count(n) > 1})
    if missing:
        problems.append("faltam as colunas " + ", ".join(missing))
    if unknown:
        problems.append("colunas desconhecidas: " + ", ".join(unknown))
    if repeated:
        problems.append("colunas repetidas: " + ", ".join(repeated))
    if problems:
        raise FileRefused("cabeçalho inválido: " + "; ".join(problems) +
                          " (veja a planilha modelo)")
    return names


def read_rows(data: bytes) -> tuple[list[str], list[tuple[int, dict[str, str]]], list[tuple[int, str]]]:
    """The header and every non-blank row as (spreadsheet line, {column: value}).

    Line numbers are what a spreadsheet shows: the header is line 1. Rows with more
    filled cells than the header has columns, or too few to reach a required column (a
    row broken in two), come back as problems (line, reason). A quote that is never
    closed (it would swallow the rest of the file into one cell) refuses the file.
    """
    text = decode(data)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter_of(text))
    line = 0  # the last line read whole (a quote left open spoils the one after it)
    try:
        header = next(reader)
        line = 1
        names = check_header(header)
        needed = max(i for i, n in enumerate(names) if BY_NAME[n].required) + 1
        rows, problems, last = [], [], []
        for line, cells in enumerate(reader, start=2):
            last = cells
            if not any(c.strip() for c in cells):
                continue
            if len(rows) >= MAX_ROWS:
                raise FileRefused(f"linhas demais: o limite é {MAX_ROWS} por arquivo; "
                                  "divida a planilha")
            if any(c.strip() for c in cells[len(names):]) or len(cells) < needed:
                problems.append((line, f"a linha tem {len(cells)} colunas e o cabeçalho "
                                       f"{len(names)}"))
                continue
            rows.append((line, {n: (cells[i].strip() if i < len(cells) else "")
                                for i, n in enumerate(names)}))
    except csv.Error as e:
        if _open_quote(text):
            raise FileRefused(_OPEN_QUOTE.format(line=line + 1)) from None
        raise FileRefused(f"CSV malformado perto da linha {reader.line_num}: {e}") from None
    if _open_quote(text) and any("\n" in c for c in last):  # it ran to the end
        raise FileRefused(_OPEN_QUOTE.format(line=line))
    if not rows and not problems:
        raise FileRefused("o arquivo não tem nenhuma linha de dados")
    return names, rows, problems


_OPEN_QUOTE = ("aspas (\") sem fechamento na linha {line}: o resto do arquivo ficaria "
               "dentro de uma célula; feche as aspas ou apague-as e envie de novo")


def _open_quote(text: str) -> bool:
    """Whether the text has an odd number of double quotes: one of them never closes."""
    return text.count('"') % 2 == 1


# Document columns whose numbers may start with 0, and their lengths in digits.
_ZERO_COLUMNS = {"condutor_cnh": (11,), "condutor_cpf": (11,), "titular_documento": (11, 14)}


def zeros_hint(column: str, value: str) -> str:
    """Why a digits-only document came out short (Excel dropped its leading zeros), or ''."""
    value = value.strip()
    lengths = _ZERO_COLUMNS.get(column, ())
    if not value.isdigit() or not any(len(value) < n <= len(value) + 3 for n in lengths):
        return ""
    return (f" (só {len(value)} algarismos: se o número começa com zero, a planilha o "
            "apagou; formate a coluna como Texto e digite o número de novo)")


def _years_after(day: date, years: int) -> date:
    """The same day `years` later (29 February becomes the 28th)."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def example_dates(today: date) -> dict[str, str]:
    """The example row's dates, counted from today, so a copied row is in force: the
    vistoria and the permit already done, the alvará, registration and insurance valid
    from today (the town's) for a year, the CNH for five."""
    year = _years_after(today, 1)
    dates = {"ultima_vistoria": today - timedelta(days=30),
             "permissao_inicio": _years_after(today, -1), "alvara_inicio": today,
             "alvara_fim": year, "condutor_cnh_validade": _years_after(today, 5),
             "condutor_registro_validade": year, "seguro_inicio": today, "seguro_fim": year}
    return {name: d.strftime("%d/%m/%Y") for name, d in dates.items()}


def examples(today: date) -> dict[str, str]:
    """Every column's example value, its dates counted from today (see example_dates)."""
    return {**{c.name: c.example for c in COLUMNS}, **example_dates(today)}


def template_csv(today: date, delimiter: str = ";") -> str:
    """A header line and one example row (its documents in force from today), for people
    to start from."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow([c.name for c in COLUMNS])
    row = examples(today)
    writer.writerow([row[c.name] for c in COLUMNS])
    return out.getvalue()
