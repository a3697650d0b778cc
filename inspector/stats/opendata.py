"""Open data for citizens: per town, what anyone may know and reuse — the
fleet by service and its share regular today, inspections and acts per month by kind, fines
issued and paid per month. Counts and sums only: no name, plate, document number, address,
agent or record number (LGPD: nothing here identifies a person; a month's count of one is
published as one, like any public report of a town's activity)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import case, func, select

from inspector.extensions import db
from inspector.models import EFFECTIVE, KIND_LABELS, Fine, FinePayment, Inspection, Sanction, Vistoria
from inspector.rules import FINE_KINDS
from inspector.stats import fleet
from inspector.stats.period import Period
from inspector.stats.sql import local_date, within

OPEN_DATA_MONTHS = 24
ZERO = Decimal("0.00")

# The data dictionary: dataset -> (title, what one row is, [(column, type, meaning)]).
OPEN_DATA_DICTIONARY = {
    "frota": ("Frota por serviço hoje", "um serviço (táxi ou mototáxi) do município, hoje", [
        ("servico", "texto", "taxi ou mototaxi"),
        ("veiculos", "inteiro", "veículos cadastrados no serviço"),
        ("regulares", "inteiro", "veículos em dia com a lei municipal hoje (a mesma avaliação "
                                 "da página do passageiro)"),
        ("irregulares", "inteiro", "veículos com algum documento ou requisito fora da lei hoje"),
        ("suspensos", "inteiro", "veículos com permissão, alvará ou condutor suspenso hoje"),
        ("parte_regular", "decimal", "regulares ÷ veículos (0 a 1)"),
    ]),
    "vistorias": ("Vistorias por mês", "um mês", [
        ("mes", "data", "primeiro dia do mês (horário de Cuiabá)"),
        ("vistorias", "inteiro", "vistorias concluídas no mês"),
        ("com_reprovacao", "inteiro", "das quais com ao menos um item reprovado"),
    ]),
    "vistorias_previas_periodicas": ("Vistorias prévias e periódicas por mês", "um mês", [
        ("mes", "data", "primeiro dia do mês (horário de Cuiabá)"),
        ("previas", "inteiro", "vistorias prévias (antes do primeiro licenciamento ou da troca "
                               "do veículo) feitas no mês"),
        ("periodicas", "inteiro", "vistorias periódicas feitas no mês"),
        ("aprovadas", "inteiro", "das quais aprovadas (certificado emitido)"),
        ("reprovadas", "inteiro", "das quais reprovadas (o veículo volta após corrigir)"),
    ]),
    "atos": ("Atos por mês e tipo", "um tipo de ato em um mês", [
        ("mes", "data", "primeiro dia do mês em que os atos foram propostos"),
        ("tipo", "texto", "advertência, notificação, multa, suspensão... (código e nome)"),
        ("propostos", "inteiro", "atos propostos no mês (pela vistoria ou pela lei)"),
        ("em_vigor", "inteiro", "dos quais decididos e não anulados hoje (confirmados, "
                                "cumpridos, em recurso, encerrados...)"),
    ]),
    "multas": ("Multas por mês", "um mês", [
        ("mes", "data", "primeiro dia do mês"),
        ("multas_emitidas", "inteiro", "multas e multas diárias propostas no mês e em vigor hoje"),
        ("valor_emitido", "decimal (R$)", "o que elas cobram hoje (a diária: o acumulado)"),
        ("pagamentos", "inteiro", "pagamentos com data no mês (estornos não contam)"),
        ("valor_pago", "decimal (R$)", "soma desses pagamentos"),
    ]),
}


@dataclass(frozen=True)
class OpenData:
    """A town's open datasets: rows of the dictionary's columns, in its order."""

    on: date
    period: Period
    tables: dict[str, list[list]]


def months(period: Period) -> list[date]:
    """The first day of each month of the period."""
    out, day = [], period.first.replace(day=1)
    while day <= period.last:
        out.append(day)
        day = (day + timedelta(days=32)).replace(day=1)
    return out


def last_months(today: date, n: int = OPEN_DATA_MONTHS) -> Period:
    """The current month and the n-1 before it."""
    first = today.replace(day=1)
    for _ in range(n - 1):
        first = (first - timedelta(days=1)).replace(day=1)
    return Period(first, today)


def open_data(town_id: int, today: date) -> OpenData:
    """Every dataset of the town (the fleet's counts of today are recorded: the caller
    commits)."""
    period = last_months(today)
    starts = months(period)
    month_of = {}

    def bucket(day: date) -> date:
        if day not in month_of:
            month_of[day] = day.replace(day=1)
        return month_of[day]

    tables: dict[str, list[list]] = {}
    tables["frota"] = [[f.service, f.vehicles, f.regular, f.irregular, f.suspended,
                        round(f.share, 4) if f.share is not None else None]
                       for f in fleet.fleet_today(town_id, today)]
    day = local_date(Inspection.finished_at, town_id)
    per = defaultdict(lambda: [0, 0])
    for d, n, failed in db.session.execute(
            select(day, func.count(), func.sum(case((Inspection.failed_items > 0, 1), else_=0)))
            .where(Inspection.municipality_id == town_id, *within(Inspection.finished_at, period, town_id))
            .group_by(day)):
        per[bucket(d)][0] += n
        per[bucket(d)][1] += failed or 0
    tables["vistorias"] = [[m, *per[m]] for m in starts]
    # the law's vistorias (docs/vistoria.md): counts only, no plate, no name
    law = defaultdict(lambda: [0, 0, 0, 0])
    for d, kind, result, n in db.session.execute(
            select(Vistoria.performed_on, Vistoria.kind, Vistoria.result, func.count())
            .where(Vistoria.municipality_id == town_id, Vistoria.performed_on >= period.first,
                   Vistoria.performed_on <= period.last)
            .group_by(Vistoria.performed_on, Vistoria.kind, Vistoria.result)):
        row = law[bucket(d)]
        row[0 if getattr(kind, "value", kind) == "prior" else 1] += n
        row[2 if getattr(result, "value", result) == "approved" else 3] += n
    tables["vistorias_previas_periodicas"] = [[m, *law[m]] for m in starts]
    proposed = local_date(Sanction.proposed_at, town_id)
    acts = defaultdict(lambda: [0, 0])
    for d, kind, status, n in db.session.execute(
            select(proposed, Sanction.kind, Sanction.status, func.count())
            .where(Sanction.municipality_id == town_id, *within(Sanction.proposed_at, period, town_id))
            .group_by(proposed, Sanction.kind, Sanction.status)):
        row = acts[(bucket(d), kind)]
        row[0] += n
        row[1] += n if status in EFFECTIVE else 0
    tables["atos"] = [[m, f"{k} ({KIND_LABELS.get(k, k)})", *acts[(m, k)]]
                      for m in starts for k in sorted({k for mm, k in acts if mm == m})]
    due = case((Fine.per == "day", Fine.accrued_brl), else_=Fine.amount_brl)
    money = defaultdict(lambda: [0, ZERO, 0, ZERO])
    for d, n, total in db.session.execute(
            select(proposed, func.count(), func.sum(due))
            .outerjoin(Fine, Fine.sanction_id == Sanction.id)
            .where(Sanction.municipality_id == town_id, Sanction.kind.in_(FINE_KINDS),
                   Sanction.status.in_(EFFECTIVE), *within(Sanction.proposed_at, period, town_id))
            .group_by(proposed)):
        money[bucket(d)][0] += n
        money[bucket(d)][1] += Decimal(total or 0)
    for d, n, total in db.session.execute(
            select(FinePayment.paid_on, func.count(), func.sum(FinePayment.amount_brl))
            .where(FinePayment.municipality_id == town_id, FinePayment.reversed_at.is_(None),
                   FinePayment.paid_on >= period.first, FinePayment.paid_on <= period.last)
            .group_by(FinePayment.paid_on)):
        money[bucket(d)][2] += n
        money[bucket(d)][3] += Decimal(total or 0)
    tables["multas"] = [[m, r[0], r[1].quantize(ZERO), r[2], r[3].quantize(ZERO)]
                        for m in starts for r in [money[m]]]
    return OpenData(today, period, tables)


def open_data_json(town, data: OpenData, dictionary_url: str) -> dict:
    """The town's datasets as one JSON document (numbers as numbers, months as YYYY-MM)."""
    def value(v):
        if isinstance(v, date):
            return v.strftime("%Y-%m")
        if isinstance(v, Decimal):
            return float(v)
        return v
    return {"municipio": {"slug": town.slug, "nome": town.name, "codigo_ibge": town.ibge_code},
            "gerado_em": data.on.isoformat(), "periodo": {"de": data.period.first.isoformat(),
                                                        "ate": data.period.last.isoformat()},
            "dicionario": dictionary_url,
            "dados": {name: [dict(zip([c[0] for c in OPEN_DATA_DICTIONARY[name][2]], map(value, row)))
                             for row in rows] for name, rows in data.tables.items()}}
