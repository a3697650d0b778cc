"""The dashboard's figures for one town over a period, each read from an index (migration
0022, models/stats.py) and grouped by the database: a period's rows are never loaded.

Every figure is defined as the list it links to defines it (the review queue by finishing
day, the acts list by the day an act was proposed, the open fines list), so a number and
the rows behind its link agree.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import and_, case, func, or_, select

from inspector.enforcement import paid_so_far
from inspector.extensions import db
from inspector.models import (
    CONCLUDED,
    DECIDED,
    EFFECTIVE,
    KIND_LABELS,
    VOID,
    Fine,
    FinePayment,
    Inspection,
    InspectionItem,
    ItemResult,
    PassengerReport,
    ReportCategory,
    ReportStatus,
    Sanction,
    SanctionStatus,
    User,
)
from inspector.rules import FINE_KINDS, ActKind
from inspector.stats.period import Period
from inspector.stats.sql import local_date, within

ZERO_BRL = Decimal("0.00")
# The states of an act the dashboard counts, in order; "awaiting_delivery" is part of
# "decided" (shown beside it, not added to the total). Each is a filter of /revisao/atos.
ACT_STATES = {
    "proposed": ("Propostos", (SanctionStatus.PROPOSED,)),
    "decided": ("Decididos", DECIDED),
    "awaiting_delivery": ("Aguardando entrega", ()),
    "complied": ("Cumpridos", (SanctionStatus.COMPLIED,)),
    "converted_to_daily_fine": ("Convertidos em multa diária",
                                (SanctionStatus.CONVERTED_TO_DAILY_FINE,)),
    "appealed": ("Em recurso", (SanctionStatus.APPEALED,)),
    "other": ("Rejeitados, encerrados ou com recurso decidido",
              CONCLUDED),
}
STATE_OF = {s: key for key, (_, statuses) in ACT_STATES.items() for s in statuses}
FINE_LABELS = {ActKind.FINE: "Multas", ActKind.DAILY_FINE: "Multas diárias"}


@dataclass
class Inspections:
    """Inspections finished in the period: per bucket (week or month), per agent."""

    total: int = 0
    with_failures: int = 0
    buckets: list[int] = field(default_factory=list)
    agents: list[tuple[int, str, int, int]] = field(default_factory=list)  # id, name, n, failed


@dataclass(frozen=True)
class FailedItem:
    """A checklist item and how many inspections of the period found it failed."""

    item_id: str
    label: str
    law: str
    article: str
    count: int


@dataclass
class ActsByKind:
    """The period's acts of one kind, by state."""

    kind: str
    label: str
    states: dict[str, int]
    total: int


@dataclass
class Fines:
    """Fines and daily fines proposed in the period and in effect, what was paid in the
    period, and what is open today (whenever it was issued)."""

    issued: dict[str, tuple[int, Decimal, int]]  # kind -> (count, R$ due, without R$ value)
    paid_count: int
    paid_brl: Decimal
    open_count: int
    open_brl: Decimal
    open_undefined: int

    @property
    def issued_count(self) -> int:
        """How many fines were issued."""
        return sum(n for n, _, _ in self.issued.values())

    @property
    def issued_brl(self) -> Decimal:
        """What they ask, in R$ (those with a value in reais)."""
        return sum((v for _, v, _ in self.issued.values()), ZERO_BRL)


@dataclass
class Reports:
    """Passenger reports received in the period, by category and state."""

    total: int
    new: int
    by_category: list[tuple[str, str, int, int]]  # category, label, count, still new


def inspection_figures(town_id: int, period: Period) -> Inspections:
    """Inspections finished in the period, by local day and agent, read from the index
    (municipality_id, finished_at, agent_id, failed_items)."""
    day = local_date(Inspection.finished_at, town_id)
    rows = db.session.execute(
        select(day, Inspection.agent_id, func.count(),
               func.sum(case((Inspection.failed_items > 0, 1), else_=0)))
        .where(Inspection.municipality_id == town_id, *within(Inspection.finished_at, period, town_id))
        .group_by(day, Inspection.agent_id)).all()
    out = Inspections(buckets=[0] * len(period.buckets()))
    per_agent: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for d, agent, n, failed in rows:
        out.total += n
        out.with_failures += failed or 0
        index = period.bucket_of(d)
        if 0 <= index < len(out.buckets):
            out.buckets[index] += n
        per_agent[agent][0] += n
        per_agent[agent][1] += failed or 0
    names = dict(db.session.execute(select(User.id, User.name).where(
        User.id.in_(sorted(per_agent)))).all()) if per_agent else {}
    out.agents = sorted(((a, names.get(a, f"#{a}"), n, f) for a, (n, f) in per_agent.items()),
                        key=lambda r: (-r[2], r[1]))
    return out


def failed_items(town_id: int, period: Period, limit: int = 10) -> list[FailedItem]:
    """The checklist items most often failed in the period's inspections, with the law and
    article their answers cite (as recorded by the newest of them)."""
    count = func.count().label("n")
    rows = db.session.execute(
        select(InspectionItem.item_id, count, func.max(InspectionItem.id))
        .join(Inspection, Inspection.id == InspectionItem.inspection_id)
        .where(Inspection.municipality_id == town_id, Inspection.failed_items > 0,
               *within(Inspection.finished_at, period, town_id), InspectionItem.result == ItemResult.FAIL)
        .group_by(InspectionItem.item_id).order_by(count.desc(), InspectionItem.item_id)
        .limit(limit)).all()
    newest = {r[2]: r for r in rows}
    wording = {i: (label, citation) for i, label, citation in db.session.execute(
        select(InspectionItem.id, InspectionItem.label, InspectionItem.citation)
        .where(InspectionItem.id.in_(sorted(newest))))} if newest else {}
    out = []
    for item_id, n, last in rows:
        label, citation = wording.get(last, (None, None))
        cited = _citation(citation)
        out.append(FailedItem(item_id, label or item_id, cited.get("law", ""),
                              cited.get("article", ""), n))
    return out


def _citation(value: dict | None) -> dict:
    return value if isinstance(value, dict) else {}


def act_figures(town_id: int, period: Period) -> list[ActsByKind]:
    """The acts proposed in the period, by kind and by the state they are in today."""
    awaiting = case((and_(Sanction.notified_at.is_(None), Sanction.decided_at.is_not(None)), 1),
                    else_=0)
    rows = db.session.execute(
        select(Sanction.kind, Sanction.status, awaiting, func.count())
        .where(Sanction.municipality_id == town_id, *within(Sanction.proposed_at, period, town_id))
        .group_by(Sanction.kind, Sanction.status, awaiting)).all()
    kinds: dict[str, ActsByKind] = {}
    for kind, status, waits, n in rows:
        row = kinds.setdefault(kind, ActsByKind(kind, KIND_LABELS.get(kind, kind),
                                                dict.fromkeys(ACT_STATES, 0), 0))
        status = SanctionStatus(status)
        row.states[STATE_OF[status]] += n
        row.total += n
        if waits and status in ACT_STATES["decided"][1]:
            row.states["awaiting_delivery"] += n
    return sorted(kinds.values(), key=lambda k: (-k.total, k.label))


def fine_figures(town_id: int, period: Period) -> Fines:
    """Fines issued in the period (proposed in it and in effect today: what the acts list
    shows for `tipo=fine&situacao=effective`), paid in it (payments not reversed, by the day
    paid), and open today (the open fines list)."""
    due = case((Fine.per == "day", Fine.accrued_brl), else_=Fine.amount_brl)
    issued = {kind: (n, Decimal(total or 0).quantize(ZERO_BRL), undefined)
              for kind, n, total, undefined in db.session.execute(
                  select(Sanction.kind, func.count(), func.sum(due),
                         func.sum(case((due.is_(None), 1), else_=0)))
                  .outerjoin(Fine, Fine.sanction_id == Sanction.id)
                  .where(Sanction.municipality_id == town_id, Sanction.kind.in_(FINE_KINDS),
                         Sanction.status.in_(EFFECTIVE), *within(Sanction.proposed_at, period, town_id))
                  .group_by(Sanction.kind))}
    paid_n, paid = db.session.execute(
        select(func.count(), func.sum(FinePayment.amount_brl))
        .where(FinePayment.municipality_id == town_id, FinePayment.reversed_at.is_(None),
               FinePayment.paid_on >= period.first, FinePayment.paid_on <= period.last)).one()
    paid_now = paid_so_far()
    open_n, open_brl, undefined = db.session.execute(
        select(func.count(), func.sum(due - paid_now), func.sum(case((due.is_(None), 1), else_=0)))
        .join(Sanction, Sanction.id == Fine.sanction_id)
        .where(Fine.municipality_id == town_id, Sanction.status.not_in(VOID),
               or_(due.is_(None), and_(due > 0, paid_now < due)))).one()
    return Fines(issued, paid_n, Decimal(paid or 0).quantize(ZERO_BRL), open_n,
                 Decimal(open_brl or 0).quantize(ZERO_BRL), undefined or 0)


def report_figures(town_id: int, period: Period) -> Reports:
    """Passenger reports received in the period, by category, and how many are still new."""
    rows = db.session.execute(
        select(PassengerReport.category, func.count(),
               func.sum(case((PassengerReport.status == ReportStatus.NEW, 1), else_=0)))
        .where(PassengerReport.municipality_id == town_id,
               *within(PassengerReport.created_at, period, town_id))
        .group_by(PassengerReport.category)).all()
    by = [(ReportCategory(c).value, ReportCategory(c).label, n, new or 0) for c, n, new in rows]
    by.sort(key=lambda r: (-r[2], r[1]))
    return Reports(sum(r[2] for r in by), sum(r[3] for r in by), by)
