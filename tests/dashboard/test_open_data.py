"""Open data for citizens: public, no login; per town the fleet and its
share regular today, inspections, acts and fines per month, as CSV and JSON, with a data
dictionary; no name, plate or document number anywhere; cacheable (Cache-Control, ETag,
304); linked from the transparency page."""
from __future__ import annotations

import csv
import io
import json
import re

PLATE = re.compile(r"\b[A-Z]{3}-?\d[A-Z0-9]\d{2}\b")
CPF_CNPJ = re.compile(r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}|\d{2}\.?\d{3}\.?\d{3}/?\d{4}-?\d{2}")
NAMES = re.compile(r"Agente|Supervisora|Titular \d|Condutor \d|Condutor de Teste|Empresa \d")


def _no_personal_data(text: str) -> None:
    assert not PLATE.search(text), PLATE.search(text)
    assert not CPF_CNPJ.search(text), CPF_CNPJ.search(text)
    assert not NAMES.search(text), NAMES.search(text)


def _march_acts(app) -> int:
    from sqlalchemy import func, select

    from inspector.extensions import db
    from inspector.models import Municipality, Sanction
    from tests.support.enforcement import local

    with app.app_context():
        town = db.session.scalar(select(Municipality.id).filter_by(slug="tapurah"))
        return db.session.scalar(select(func.count()).select_from(Sanction).where(
            Sanction.municipality_id == town, Sanction.proposed_at >= local(2026, 3, 1, 0),
            Sanction.proposed_at < local(2026, 4, 1, 0)))


def test_the_towns_figures_as_json_and_csv_without_personal_data(app, client, town):
    r = client.get("/transparencia/dados/tapurah.json")
    assert r.status_code == 200 and r.mimetype == "application/json"
    text = r.get_data(as_text=True)
    _no_personal_data(text)
    data = json.loads(text)
    assert data["municipio"]["codigo_ibge"] == "5108006"
    assert data["dados"]["frota"] == [{"servico": "mototaxi", "veiculos": 3,
                                       "regulares": data["dados"]["frota"][0]["regulares"],
                                       "irregulares": data["dados"]["frota"][0]["irregulares"],
                                       "suspensos": 0, "parte_regular":
                                       data["dados"]["frota"][0]["parte_regular"]}]
    march = {m["mes"]: m for m in data["dados"]["vistorias"]}["2026-03"]
    assert (march["vistorias"], march["com_reprovacao"]) == (7, 4)
    fines = {m["mes"]: m for m in data["dados"]["multas"]}["2026-03"]
    assert fines == {"mes": "2026-03", "multas_emitidas": 1, "valor_emitido": 525.0,
                     "pagamentos": 1, "valor_pago": 100.0}
    acts = [a for a in data["dados"]["atos"] if a["mes"] == "2026-03"]
    assert sum(a["propostos"] for a in acts) == _march_acts(app) > 0 and all("(" in a["tipo"] for a in acts)
    for dataset in ("frota", "vistorias", "atos", "multas"):
        r = client.get(f"/transparencia/dados/tapurah/{dataset}.csv")
        assert r.status_code == 200 and r.get_data().startswith(b"\xef\xbb\xbf")
        body = r.get_data().decode("utf-8-sig")
        _no_personal_data(body)
        rows = list(csv.reader(io.StringIO(body), delimiter=";"))
        assert len(rows) >= 2, dataset
    rows = list(csv.reader(io.StringIO(client.get("/transparencia/dados/tapurah/multas.csv")
                                       .get_data().decode("utf-8-sig")), delimiter=";"))
    assert ["01/03/2026", "1", "525,00", "1", "100,00"] in rows


def test_another_towns_work_is_not_in_it(client, town):
    data = client.get("/transparencia/dados/sapezal.json").get_json()
    assert [f["servico"] for f in data["dados"]["frota"]] == ["taxi"]
    march = {m["mes"]: m for m in data["dados"]["vistorias"]}["2026-03"]
    assert march["vistorias"] == 2
    assert client.get("/transparencia/dados/atlantida.json").status_code == 404
    assert client.get("/transparencia/dados/tapurah/senhas.csv").status_code == 404


def test_cacheable_with_an_etag(client, town):
    first = client.get("/transparencia/dados/tapurah.json")
    assert "public" in first.headers["Cache-Control"] and "max-age" in first.headers["Cache-Control"]
    etag = first.headers["ETag"]
    again = client.get("/transparencia/dados/tapurah.json", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert client.get("/transparencia/dados/tapurah/atos.csv").headers["ETag"]


def test_the_transparency_page_links_the_data_and_its_dictionary(client, town):
    page = client.get("/transparencia").get_data(as_text=True)
    assert 'href="/transparencia/dados"' in page and 'href="/transparencia/registro"' in page
    assert 'href="/transparencia/dados"' in client.get("/transparencia/registro").get_data(as_text=True)
    dictionary = client.get("/transparencia/dados").get_data(as_text=True)
    for column in ("parte_regular", "com_reprovacao", "em_vigor", "valor_pago"):
        assert f"<code>{column}</code>" in dictionary
    assert 'href="/transparencia/dados/tapurah/multas.csv"' in dictionary
    _no_personal_data(page + dictionary)
