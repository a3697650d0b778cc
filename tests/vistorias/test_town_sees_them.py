"""The town sees its vistorias (docs/vistoria.md, "The dashboard" and "Exports and open data"):
the dashboard's counts per month link to the list of those vistorias (done, approved,
rejected); the spreadsheet export has one row per vistoria with its result, validity or return
day and what to fix with the articles; the open data counts them per month and kind without a
plate or a name. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import csv
import io
import re
import uuid

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Vehicle
from tests import factories
from tests.support.field_api import jpeg
from tests.support.vistorias import vistoria_body


def _two(api, moto):
    """An approved periodic vistoria and a rejected prior one (Tapurah Lei 406/2001 Art. 23 X,
    Art. 13), both today."""
    ok, bad = moto(), moto()
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(ok.id, "tapurah", "mototaxi",
                                                            "periodic"))
    assert r.json["vistoria"]["result"] == "approved"
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(bad.id, "tapurah", "mototaxi",
                                                            "prior", fail={"mirrors": jpeg(9)}))
    assert r.json["vistoria"]["result"] == "rejected"
    return ok, bad


def test_the_dashboards_counts_link_to_those_vistorias(app, api, moto, make):
    ok, bad = _two(api, moto)
    staff = app.test_client()
    assert staff.login(make(factories.user, "supervisor", "tapurah").username).status_code == 302
    page = staff.get("/painel").get_data(as_text=True)
    month = default_day().strftime("%Y-%m")
    links = dict(re.findall(r'data-label="(Feitas|Aprovadas|Reprovadas)"><a href="([^"]+)"', page))
    assert links["Aprovadas"] == f"/vistorias?mes={month}&amp;resultado=approved"
    approved = staff.get(links["Aprovadas"].replace("&amp;", "&")).get_data(as_text=True)
    rejected = staff.get(links["Reprovadas"].replace("&amp;", "&")).get_data(as_text=True)
    done = staff.get(links["Feitas"]).get_data(as_text=True)
    assert ok.plate in approved and bad.plate not in approved
    assert bad.plate in rejected and ok.plate not in rejected
    assert ok.plate in done and bad.plate in done
    assert "aprovadas" in approved and "Ver todas" in approved
    # a month with none lists none; a bad month is ignored, not an error
    assert ok.plate not in staff.get("/vistorias?mes=2020-01").get_data(as_text=True)
    assert staff.get("/vistorias?mes=zz&resultado=qualquer").status_code == 200


def test_the_export_has_one_row_per_vistoria_with_what_to_fix(app, api, moto, make):
    ok, bad = _two(api, moto)
    staff = app.test_client()
    assert staff.login(make(factories.user, "supervisor", "tapurah").username).status_code == 302
    assert "/painel/exportar/vistorias-lei.csv" in staff.get("/painel").get_data(as_text=True)
    r = staff.get("/painel/exportar/vistorias-lei.csv")
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    header, body = rows[0], rows[1:]
    by_plate = {row[header.index("Placa")]: dict(zip(header, row)) for row in body}
    assert by_plate[ok.plate]["Resultado"] == "aprovada"
    assert by_plate[ok.plate]["Tipo"] == "vistoria periódica"
    assert by_plate[ok.plate]["Certificado nº"].startswith("CV-")
    assert by_plate[bad.plate]["Resultado"] == "reprovada"
    assert by_plate[bad.plate]["Retorno até"]
    assert "Lei 406/2001" in by_plate[bad.plate]["Corrigir (artigo)"]
    x = staff.get("/painel/exportar/vistorias-lei.xlsx")
    assert x.status_code == 200 and x.data[:2] == b"PK"


def test_the_open_data_counts_them_without_a_plate_or_a_name(app, api, moto, client):
    ok, bad = _two(api, moto)
    r = app.test_client().get("/transparencia/dados/tapurah/vistorias_previas_periodicas.csv")
    assert r.status_code == 200
    text = r.get_data(as_text=True).lstrip("\ufeff")
    rows = list(csv.reader(io.StringIO(text), delimiter=";" if ";" in text.splitlines()[0] else ","))
    assert rows[0] == ["mes", "previas", "periodicas", "aprovadas", "reprovadas"]
    month = default_day().replace(day=1).strftime("%d/%m/%Y")  # the CSV writes dates in pt-BR
    found = [row for row in rows[1:] if row[0] == month]
    assert len(found) == 1, rows[-3:]
    [row] = found
    assert row[1:] == ["1", "1", "1", "1"]
    whole = app.test_client().get("/transparencia/dados/tapurah.json").get_data(as_text=True)
    assert "vistorias_previas_periodicas" in whole
    with app.app_context():
        holders = [db.session.get(Vehicle, v.id).holder for v in (ok, bad)]
        personal_data = [ok.plate, bad.plate] + [h.name for h in holders] + [h.tax_id for h in holders]
    for personal in personal_data:
        assert personal not in whole and personal not in text
    dictionary = app.test_client().get("/transparencia/dados").get_data(as_text=True)
    assert "Vistorias prévias e periódicas por mês" in dictionary
