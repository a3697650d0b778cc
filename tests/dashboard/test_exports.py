"""Exports: the town's lists as CSV (UTF-8 with BOM, ';', dd/mm/aaaa, as
Excel in pt-BR reads it) and XLSX, read back here by independent readers (Python's csv,
openpyxl) and compared with the screens they mirror; the screens' filters apply; every text
cell a spreadsheet would evaluate is neutralised; only supervisors and admins; another
town's rows never."""
from __future__ import annotations

import csv
import io
import re
from datetime import datetime

import openpyxl
import pytest

from inspector.extensions import db
from inspector.models import Holder, Vehicle
from tests.support.dashboard import PERIOD

EVIL = "=HYPERLINK(\"http://exemplo.invalid\",\"clique\")"


def _csv(client, path: str) -> list[list[str]]:
    r = client.get(path)
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    assert r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    data = r.get_data()
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""), delimiter=";"))


def _xlsx(client, path: str) -> list[tuple]:
    r = client.get(path)
    assert r.status_code == 200
    book = openpyxl.load_workbook(io.BytesIO(r.get_data()), read_only=True)
    return [tuple(row) for row in book.worksheets[0].iter_rows(values_only=True)]


def _linked(html: str, kind: str) -> set[int]:
    return {int(i) for i in re.findall(rf'class="row-link" href="/revisao/{kind}/(\d+)', html)}


def test_acts_as_csv_and_xlsx_are_the_acts_list(client, town):
    client.login(town["sup"])
    for query in (PERIOD, f"{PERIOD}&situacao=decided", f"{PERIOD}&tipo=notice", ""):
        shown = _linked(client.get(f"/revisao/atos?{query}").get_data(as_text=True), "atos")
        rows = _csv(client, f"/painel/exportar/atos.csv?{query}")
        assert rows[0][:4] == ["Ato nº", "Documento", "Tipo", "Situação"]
        assert {int(r[0]) for r in rows[1:]} == shown, query
        sheet = _xlsx(client, f"/painel/exportar/atos.xlsx?{query}")
        assert sheet[0] == tuple(rows[0])
        assert {r[0] for r in sheet[1:]} == shown
    rows = _csv(client, f"/painel/exportar/atos.csv?{PERIOD}")
    fine = next(r for r in rows if r[0] == str(town["fine"]))
    assert fine[2] == "Multa" and fine[3] == "Confirmado" and fine[12] == "525,00"
    assert re.fullmatch(r"17/03/2026 \d\d:\d\d", fine[13])           # proposed, local time
    sheet = {r[0]: r for r in _xlsx(client, f"/painel/exportar/atos.xlsx?{PERIOD}")[1:]}
    assert sheet[town["fine"]][12] == 525.0 and isinstance(sheet[town["fine"]][13], datetime)


def test_inspections_one_row_per_answer_with_its_article(client, town):
    client.login(town["sup"])
    rows = _csv(client, f"/painel/exportar/vistorias.csv?{PERIOD}&situacao=todas")
    header, body = rows[0], rows[1:]
    assert header[-2:] == ["Lei", "Artigo"]
    queue = _linked(client.get(f"/revisao?{PERIOD}&situacao=todas").get_data(as_text=True),
                    "vistorias")
    assert {int(r[0]) for r in body} == queue and len(queue) == 7
    assert len(body) == 10                       # the answers of the seven inspections
    failed = [r for r in body if r[9] == "não conforme"]
    assert len(failed) == 5 and all(r[11] == "Lei 406/2001" and r[12].startswith("Art.")
                                    for r in failed)
    assert all(re.fullmatch(r"\d\d/03/2026 \d\d:\d\d", r[1]) for r in body)
    one_item = _csv(client, f"/painel/exportar/vistorias.csv?{PERIOD}&situacao=todas&item=mirrors")
    assert {r[0] for r in one_item[1:]} == {r[0] for r in failed if r[7] == "mirrors"}
    sheet = _xlsx(client, f"/painel/exportar/vistorias.xlsx?{PERIOD}&agente={town['ana']}&situacao=todas")
    assert len(sheet) - 1 == sum(1 for r in body if r[2] == "Ana Agente")


def test_fines_payments_registry_and_credentials(client, town):
    client.login(town["sup"])
    fines = _csv(client, f"/painel/exportar/multas.csv?{PERIOD}")
    [fine] = [r for r in fines[1:] if r[0] == str(town["fine"])]
    assert fine[8:12] == ["525,00", "100,00", "425,00", "paga parcialmente"]
    pays = _csv(client, f"/painel/exportar/pagamentos.csv?{PERIOD}")
    assert [r[:3] for r in pays[1:]] == [["20/03/2026", "100,00", "DAM-1"]]
    registry = _csv(client, "/painel/exportar/cadastro.csv")
    col = {name: i for i, name in enumerate(registry[0])}
    assert len(registry) == 1 + 3
    assert registry[0][4:7] == ["Ano", "Data de fabricação", "1º licenciamento"]  # ages count from them
    assert {r[col["Situação hoje"]] for r in registry[1:]} <= {"regular", "irregular", "suspenso"}
    assert all(re.fullmatch(r"\d{3}\.\d{3}\.\d{3}-\d\d", r[col["CPF/CNPJ do titular"]])
               for r in registry[1:])
    creds = _xlsx(client, "/painel/exportar/credenciais.xlsx")
    assert creds[0][0] == "Credencial nº"


def test_formula_cells_are_neutralised_in_both_formats(app, client, town):
    with app.app_context():
        v = db.session.get(Vehicle, town["vehicles"][0])
        v.make_model = EVIL
        db.session.get(Holder, v.holder_id).name = "+55 65 9999-0000"
        db.session.commit()
    client.login(town["sup"])
    rows = _csv(client, "/painel/exportar/cadastro.csv")
    row = next(r for r in rows if r[3].startswith("'="))
    assert row[3] == "'" + EVIL and row[rows[0].index("Titular")] == "'+55 65 9999-0000"
    sheet = _xlsx(client, "/painel/exportar/cadastro.xlsx")
    cells = [c for r in sheet for c in r if isinstance(c, str)]
    assert "'" + EVIL in cells and "'+55 65 9999-0000" in cells
    assert not any(c.startswith(("=", "+", "-", "@")) for c in cells)


def test_only_the_towns_supervisors_and_admins_export_and_only_their_town(client, town):
    c = client.application.test_client()
    c.login(town["agent"])
    assert c.get("/painel/exportar/atos.csv").status_code == 403
    c = client.application.test_client()
    c.login(town["far_sup"])
    rows = _csv(c, f"/painel/exportar/vistorias.csv?{PERIOD}")
    assert len(rows) == 1 + 2 and all(r[4] != "" for r in rows[1:])
    registry = _csv(c, "/painel/exportar/cadastro.csv")
    assert len(registry) == 2
    assert client.get("/painel/exportar/segredos.csv").status_code in (302, 303, 401)


@pytest.mark.parametrize("query", ["de=31/02/2026", "agente=abc"])
def test_bad_filters_say_why(client, town, query):
    client.login(town["sup"])
    assert client.get(f"/painel/exportar/atos.csv?{query}").status_code == 400
