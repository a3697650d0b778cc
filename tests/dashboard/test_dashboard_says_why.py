"""The dashboard says why the fleet is not regular and what falls due: today's irregular
vehicles counted by cause, with the article of the cause, each count a link to exactly those
vehicles; documents in force falling due within 30, 60 and 90 days, each count a link to the
list of them; empty weeks folded into one row, "1 vistoria" in the singular; the trend's axis
reads "100%"; no legend is cut; every export value is a Portuguese word. Runs on SQLite and
PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import html as html_lib
import re
from datetime import timedelta

import pytest

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Status, Vehicle
from tests import factories
from tests.support.enforcement import fleet, inspect, local

TODAY = default_day()


def text(response) -> str:
    return html_lib.unescape(response.get_data(as_text=True))


def table(page: str, ident: str) -> list[list[str]]:
    """A table's body rows as a person reads them (cells' text)."""
    m = re.search(rf'<table[^>]*id="{ident}".*?<tbody>(.*?)</tbody>', page, re.S)
    assert m, ident
    rows = re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S)
    return [[" ".join(re.sub(r"<[^>]+>", " ", c).split())
             for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]


@pytest.fixture
def tapurah(app, client):
    """Four moto-taxis of Tapurah (Lei 406/2001): one in order, one whose insurance lapsed
    yesterday (Art. 17), one whose Alvará expired last week, one whose Alvará is suspended;
    one Alvará falls due in 20 days, one policy in 50, a CNH in 80."""
    with app.app_context():
        ok, lapsed, expired, rider = (fleet("tapurah", "mototaxi") for _ in range(4))
        lapsed["vehicle"].insurance_policies[0].valid_until = TODAY - timedelta(days=1)
        expired["licence"].valid_until = TODAY - timedelta(days=7)
        rider["licence"].status = Status.SUSPENDED
        ok["licence"].valid_until = TODAY + timedelta(days=20)
        ok["vehicle"].insurance_policies[0].valid_until = TODAY + timedelta(days=50)
        ok["driver"].cnh_expiry = TODAY + timedelta(days=80)
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        username = sup.username
        plates = {k: c["vehicle"].plate for k, c in
                  (("ok", ok), ("lapsed", lapsed), ("expired", expired), ("rider", rider))}
        ids = {k: c["vehicle"].id for k, c in
               (("ok", ok), ("lapsed", lapsed), ("expired", expired), ("rider", rider))}
    client.login(username)
    return {"plates": plates, "ids": ids, "sup": username}


def test_irregular_vehicles_by_cause_with_the_article_each_a_link_to_them(client, tapurah):
    page = text(client.get("/painel"))
    rows = table(page, "causas")
    assert ["Seguro obrigatório vencido", "Mototáxi", "Lei 406/2001, Art. 17", "1"] in rows
    assert ["Alvará vencido", "Mototáxi"] == next(r for r in rows if r[0] == "Alvará vencido")[:2]
    assert any(r[0] == "Alvará suspenso" and r[3] == "1" for r in rows), rows
    assert len(rows) == 3                               # the vehicle in order has no cause
    link = re.search(r'href="([^"]*causa=insurance.lapsed[^"]*)"', page).group(1)
    listed = text(client.get(link.replace("&amp;", "&")))
    assert tapurah["plates"]["lapsed"] in listed
    assert all(tapurah["plates"][k] not in listed for k in ("ok", "expired", "rider"))
    assert "por seguro obrigatório vencido" in listed and "1 veículo em" in listed
    assert client.get("/painel/frota?causa=nada").status_code == 400


def test_documents_falling_due_in_30_60_90_days_each_a_link_to_the_list(client, tapurah):
    page = text(client.get("/painel"))
    rows = table(page, "vencem")
    assert ["Alvarás", "1", "1", "1"] in rows              # in 20 days
    assert ["Seguros obrigatórios", "0", "1", "1"] in rows  # in 50 days
    assert ["CNHs de condutores", "0", "0", "1"] in rows    # in 80 days
    due = text(client.get("/painel/vencimentos?documento=alvara&dias=30"))
    assert tapurah["plates"]["ok"] in due and "1 documento em vigor" in due
    assert (TODAY + timedelta(days=20)).strftime("%d/%m/%Y") in due
    assert tapurah["plates"]["expired"] not in due          # already expired: not "falling due"
    assert client.get("/painel/vencimentos?dias=45").status_code == 400


def test_empty_weeks_fold_and_one_inspection_is_singular(app, client, tapurah):
    with app.app_context():
        vehicle = db.session.get(Vehicle, tapurah["ids"]["ok"])
        agent = factories.user("agent", "tapurah")
        inspect(vehicle, agent, {"mirrors": "ok"}, local(2026, 3, 18, 10))
        db.session.commit()
    page = text(client.get("/painel?de=2026-01-05&ate=2026-03-29"))   # 12 weeks
    assert re.search(r"<strong>1</strong> vistoria</a>", page)
    rows = table(page, "vistorias-periodo")
    assert rows == [["05/01 a 15/03/2026", "0"], ["16/03 a 22/03/2026", "1"],
                    ["23/03 a 29/03/2026", "0"]]
    empty = text(client.get("/painel?de=2025-01-05&ate=2025-03-29"))
    assert "Nenhuma vistoria no período." in empty and 'id="vistorias-periodo"' not in empty


def test_charts_read_100_percent_and_no_legend_is_cut(client, tapurah):
    page = text(client.get("/painel"))
    ticks = re.findall(r'<text class="tick"[^>]*>([^<]*%)</text>', page)
    assert ticks == ["0%", "50%", "100%"]
    lines = re.search(r'<svg[^>]*>(?:(?!</svg>).)*?100%.*?</svg>', page, re.S).group(0)
    x = float(re.search(r'x="([\d.]+)"[^>]*>100%<', lines).group(1))
    assert x >= 30          # room for "100%" at 11 units a character of ~6.5: it starts past 0
    legends = re.findall(r'<text class="legend"[^>]*>([^<]*)</text>', page)
    assert legends and not any("…" in t for t in legends), legends


ENGLISH = re.compile(r"(?<![\w/.-])(active|suspended|revoked|expired|pending|proposed|confirmed|"
                     r"rejected|open|partial|paid|void|vehicle|driver|holder|company|person|"
                     r"taxi|mototaxi|regular_|true|false|None)(?![\w/.-])")


def test_every_export_value_is_in_portuguese(app, client, tapurah):
    with app.app_context():       # a suspended Alvará and a revoked permit in the registry
        v = db.session.get(Vehicle, tapurah["ids"]["expired"])
        v.licences[0].status = Status.SUSPENDED
        v.holder.permits[0].status = Status.REVOKED
        db.session.commit()
    for dataset in ("vistorias", "atos", "multas", "pagamentos", "cadastro", "credenciais"):
        body = client.get(f"/painel/exportar/{dataset}.csv").get_data(as_text=True)
        values = [cell for line in body.splitlines()[1:] for cell in line.split(";")]
        found = [c for c in values if ENGLISH.search(c)]
        assert found == [], (dataset, found)
