"""What the compliance page (/conformidade) shows for one town on one day.

Built on `compliance.town_compliance` and `compliance.decree_status`: the engine's
findings grouped the way a supervisor reads them (limits of the fleet, company shares,
auxiliaries, stands over capacity, vehicles past their age, documents expired or due within
30 days), each row
naming the vehicle, driver or holder it is about and carrying its citation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from sqlalchemy import select

from inspector import rules
from inspector.extensions import db
from inspector.identifiers import format_plate
from inspector.laws import compliance
from inspector.laws.pages import SERVICE_LABELS
from inspector.models import Driver, Holder, Municipality, Stand, Vehicle
from inspector.rules import Citation, QuotaUse, ShareUse, TownReport, Violation

# Document groups: (title, rule-id prefixes, the requirement that makes the group apply)
DOCUMENT_GROUPS = (
    ("Alvarás", ("licence.",), "requirements.licence"),
    ("Permissões e autorizações", ("permit.",), "requirements.permit"),
    ("Inscrições de condutores", ("driver.registration.",), "requirements.driver_registration"),
    ("CNH dos condutores", ("driver.cnh.expired", "driver.cnh.due"), "requirements.cnh"),
    ("Seguros", ("insurance.",), "requirements.insurance"),
    ("Vistorias", ("vistoria.",), "periodicity.vistoria_months"),
)
# Shown in the tables of limits and shares, not again among "other" findings.
TABLE_RULES = ("town.fleet_cap", "town.quota", "town.company_share", "town.auxiliaries")


@dataclass(frozen=True)
class Row:
    """One finding, about someone, with its citation."""

    rule_id: str
    kind: str                  # vehicle | driver | holder | town
    ident: int | None
    who: str
    message: str
    citation: Citation | None
    severity: str              # violation | warning
    due_on: date | None
    effect: str = "irregular"  # irregular | suspended (a suspension's due_on is its last day)


@dataclass(frozen=True)
class Group:
    """A titled list of rows (a kind of document, say) with the rule that applies."""

    title: str
    rows: list[Row]
    citation: Citation | None = None
    rule: str = ""


@dataclass(frozen=True)
class QuotaRow:
    """A limit on the number of vehicles and every article it rests on."""

    quota: QuotaUse
    citations: list[Citation]


@dataclass
class ServiceView:
    """One service's section: its law, fleet, limits, shares and findings."""

    service: str
    service_label: str
    law: str
    law_slug: str
    fleet: int
    quotas: list[QuotaRow]
    shares: list[ShareUse]
    share_limit: Fraction | None
    share_citation: Citation | None
    auxiliaries: Group | None
    age: Group | None
    documents: list[Group] = field(default_factory=list)
    others: list[Row] = field(default_factory=list)
    stands: Group | None = None


@dataclass
class PageView:
    """The whole page."""

    town: str
    on: date
    services: list[ServiceView]
    not_covered: list[str]
    decrees: list[compliance.DecreeStatus]


class _Names:
    """Who a finding's subject ("vehicle:12") is, in the signed-in user's town only."""

    def __init__(self, town_id: int):
        self.vehicles = {i: format_plate(p) for i, p in db.session.execute(
            select(Vehicle.id, Vehicle.plate).where(Vehicle.municipality_id == town_id))}
        self.drivers = dict(db.session.execute(
            select(Driver.id, Driver.name).where(Driver.municipality_id == town_id)).all())
        self.holders = dict(db.session.execute(
            select(Holder.id, Holder.name).where(Holder.municipality_id == town_id)).all())
        self.stands = {i: f"Ponto {c}" for i, c in db.session.execute(
            select(Stand.id, Stand.code).where(Stand.municipality_id == town_id))}
        self.stand_services = dict(db.session.execute(
            select(Stand.id, Stand.service).where(Stand.municipality_id == town_id)).all())

    def row(self, v: Violation) -> Row:
        kind, _, raw = (v.subject or "town").partition(":")
        ident = int(raw) if raw.isdigit() else None
        names = {"vehicle": self.vehicles, "driver": self.drivers, "holder": self.holders,
                 "stand": self.stands}
        who = names.get(kind, {}).get(ident, "") if ident is not None else ""
        if not who:
            who = "Município" if kind == "town" else f"{kind} {raw}".strip()
        return Row(v.rule_id, kind, ident, who, v.message, v.citation, v.severity, v.due_on,
                   v.effect)


def _by_due(rows: list[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: (r.severity != "violation", r.due_on or date.max, r.who))


def _matches(rule_id: str, prefixes: tuple[str, ...]) -> bool:
    return any(rule_id == p or rule_id.startswith(p) for p in prefixes)


def _service_view(report: TownReport, names: _Names) -> ServiceView:
    r = rules.rules_on(report.pack, report.on)
    rows = [names.row(v) for v in report.violations + report.warnings]
    used: set[int] = set()

    def take(pred) -> list[Row]:
        out = [x for i, x in enumerate(rows) if i not in used and pred(x)]
        used.update(i for i, x in enumerate(rows) if pred(x))
        return _by_due(out)

    aux_limit = r.value("limits.driver.max_auxiliaries_per_vehicle")
    aux_rows = take(lambda x: x.rule_id == "town.auxiliaries")
    auxiliaries = Group(f"Até {aux_limit} motoristas auxiliares por veículo", aux_rows,
                        r.cite("limits.driver.max_auxiliaries_per_vehicle"),
                        "limits.driver.max_auxiliaries_per_vehicle") \
        if aux_limit is not None or aux_rows else None
    age_path = next((p for p in ("limits.vehicle.max_age_years",
                                 "limits.vehicle.replace_at_age_years")
                     if r.value(p) is not None), None)
    age_rows = take(lambda x: x.rule_id in ("vehicle.age", "vehicle.age.due"))
    age = Group(f"Idade máxima: {r.value(age_path)} anos" if age_path else "Idade do veículo",
                age_rows, r.cite(age_path) if age_path else None, age_path or "") \
        if age_path or age_rows else None
    stand_rows = take(lambda x: x.rule_id == "town.stand_capacity")
    has_stands = any(getattr(svc, "value", svc) == report.service
                     for svc in names.stand_services.values())
    stands = Group("Veículos por ponto, até a capacidade de cada ponto", stand_rows,
                   next((x.citation for x in stand_rows if x.citation), None),
                   "town.stand_capacity") if has_stands or stand_rows else None
    documents = []
    for title, prefixes, requirement in DOCUMENT_GROUPS:
        found = take(lambda x, p=prefixes: _matches(x.rule_id, p))
        if found or r.value(requirement):
            documents.append(Group(title, found, r.cite(requirement), requirement))
    take(lambda x: x.rule_id in TABLE_RULES)
    interior = r.cite("limits.town.inhabitants_per_vehicle_interior")
    quotas = []
    for q in report.quotas:
        cites = [c for c in (q.citation,) if c is not None]
        if q.rule_id == "town.quota" and r.value("limits.town.inhabitants_per_vehicle_seat") \
                and interior is not None and interior not in cites:
            cites.append(interior)  # seat and interior quotas: two items of one article
        quotas.append(QuotaRow(q, cites))
    others = take(lambda x: True)
    return ServiceView(
        service=report.service, service_label=SERVICE_LABELS.get(report.service,
                                                                 report.service),
        law=report.pack.law, law_slug=report.pack.law_slug, fleet=report.fleet,
        quotas=quotas, shares=report.company_shares,
        share_limit=r.value("limits.town.company_max_share"),
        share_citation=r.cite("limits.town.company_max_share"),
        auxiliaries=auxiliaries, age=age, documents=documents, others=others, stands=stands)


def build_compliance_page(municipality: Municipality, on: date) -> PageView:
    """The compliance page of one town on one day."""
    result = compliance.town_compliance(municipality, on)
    names = _Names(municipality.id)
    return PageView(town=municipality.name, on=on,
                    services=[_service_view(rep, names) for rep in result.reports],
                    not_covered=result.not_covered,
                    decrees=compliance.decree_status(municipality, on))


def pct(value: Fraction) -> str:
    """A share as people read it: 33,3%."""
    return f"{float(value) * 100:.1f}%".replace(".", ",")
