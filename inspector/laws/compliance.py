"""Registry rows -> the rules engine: a vehicle's standing and a town's compliance.

Public interface (stable; the passenger page, the field snapshot and the compliance
page rely on it):
- `vehicle_standing(vehicle, on) -> Standing`
- `driver_standing(driver, on) -> Standing`
- `town_compliance(municipality, on) -> TownCompliance`
- `propose_sanction(municipality, service, rule_id, history, on) -> rules.Proposal`
- `decree_status(municipality, on) -> list[DecreeStatus]`
- `stand_capacity_findings`, `person_permit_findings`: the two limits the engine's facts do
  not carry (stands and permits), checked here and added to `town_compliance`'s reports.
- `town_facts`, `vehicle_facts`, `driver_facts`: ORM rows -> engine dataclasses.
"""
from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import selectinload

from inspector import audit, render_cache, rules
from inspector.extensions import db
from inspector.laws.causes import cause_of, preloaded_causes
from inspector.laws.town_calendar import calendar_for
from inspector.models import (
    DecreeValue,
    Driver,
    DriverCategory,
    Holder,
    HolderKind,
    Licence,
    Municipality,
    Permit,
    Service,
    Stand,
    Status,
    Vehicle,
)
from inspector.rules import (
    Citation,
    DatedAmount,
    DriverFacts,
    Finding,
    HolderFacts,
    InsuranceFacts,
    LicenceFacts,
    PermitFacts,
    PriorSanction,
    Registry,
    RulesError,
    TownFacts,
    TownReport,
    VehicleFacts,
    Violation,
)

__all__ = ["Citation", "DecreeStatus", "Standing", "TownCompliance", "Violation",
           "decree_status", "driver_facts", "driver_standing", "fiscal_unit_of",
           "propose_sanction", "town_compliance", "town_facts", "vehicle_facts", "vehicle_standing"]


@dataclass(frozen=True)
class Standing:
    """Is this vehicle (or driver) licensed right now? `status`: regular | irregular | suspended.

    `reasons` are the violations that make it irregular or suspended (each with rule_id,
    message in plain pt-BR, citation with law, article, anchor, law_slug and quote);
    `warnings` are things due soon, or missing from the registry, that do not change
    the status.
    """

    status: str
    reasons: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)
    on: date | None = None

    @property
    def is_regular(self) -> bool:
        """True when nothing stops this vehicle from carrying passengers."""
        return self.status == "regular"

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"status": self.status, "on": self.on.isoformat() if self.on else None,
                "reasons": [r.as_dict() for r in self.reasons],
                "warnings": [w.as_dict() for w in self.warnings]}


def _value(x) -> str:
    return str(getattr(x, "value", x))


# --- rows -> facts -------------------------------------------------------------------------

def fiscal_unit_of(town: Municipality) -> str:
    """The town's own fiscal unit: the one its laws name (Tapurah's UFIM), else the
    municipality's recorded label (UFM by default, for laws that name none)."""
    named = {p.fiscal_unit for p in rules.packs_for_town(town.slug) if p.fiscal_unit}
    return named.pop() if len(named) == 1 else town.fiscal_unit_name


# read for every proposal and price: built once, the town a bound parameter
_DECREE_VALUES = select(DecreeValue).where(DecreeValue.municipality_id == bindparam("town"))


def town_facts(town: Municipality, decree_rows: list[DecreeValue] | None = None) -> TownFacts:
    """A town's population, unit values and decree values as the engine reads them."""
    if decree_rows is None:
        decree_rows = list(db.session.scalars(_DECREE_VALUES, {"town": town.id}))
    decree: dict[str, list[DatedAmount]] = {}
    for d in decree_rows:
        decree.setdefault(d.key, []).append(DatedAmount(d.valid_from, d.amount, d.unit,
                                                        d.source))
    dated = {"fiscal_unit": [], "minimum_wage": []}
    for v in town.dated_values:
        if v.kind in dated:
            dated[v.kind].append(DatedAmount(v.valid_from, v.value_brl, "BRL", v.source))
    return TownFacts(slug=town.slug, name=town.name, population_seat=town.population_seat,
                     population_interior=town.population_interior,
                     fiscal_unit_brl=tuple(dated["fiscal_unit"]),
                     minimum_wage_brl=tuple(dated["minimum_wage"]),
                     decree_values={k: tuple(v) for k, v in decree.items()},
                     fiscal_unit=fiscal_unit_of(town))


def _licence(lic: Licence | None) -> LicenceFacts | None:
    if lic is None:
        return None
    return LicenceFacts(lic.number, lic.valid_from, lic.valid_until, _value(lic.status),
                        lic.suspended_until, cause_of("licence", lic))


def _permit_row(vehicle: Vehicle) -> Permit | None:
    lic = vehicle.current_licence
    if lic is not None and lic.permit_id is not None and lic.permit is not None:
        return lic.permit
    mine = [p for p in vehicle.holder.permits if p.service == vehicle.service] \
        if vehicle.holder is not None else []
    if not mine:
        return None
    # the active one if any, else the newest: what the holder can show today
    return max(mine, key=lambda p: (_value(p.status) == "active", p.valid_from))


def permit_facts(p: Permit) -> PermitFacts:
    """A permit row as engine facts: with the act behind its status, and its company's name
    (a company's permit covers all its vehicles)."""
    company = p.holder.name if p.holder is not None and p.holder.kind == HolderKind.COMPANY else ""
    return PermitFacts(p.number, p.valid_from, p.valid_until, _value(p.status), p.suspended_until,
                       cause_of("permit", p), company)


def vehicle_facts(vehicle: Vehicle) -> VehicleFacts:
    """A vehicle row with its licence, permit, insurance and auxiliaries as engine facts."""
    p = _permit_row(vehicle)
    return VehicleFacts(
        year_of_manufacture=vehicle.year_of_manufacture, id=vehicle.id, plate=vehicle.plate,
        manufactured_on=vehicle.manufactured_on, first_licensed_on=vehicle.first_licensed_on,
        engine_cc=vehicle.engine_cc, is_trail=bool(vehicle.is_trail), doors=vehicle.doors,
        holder_id=vehicle.holder_id, last_vistoria_on=vehicle.last_vistoria_on,
        vistoria_valid_until=vehicle.vistoria_valid_until,
        licence=_licence(vehicle.current_licence),
        permit=None if p is None else permit_facts(p),
        insurance=tuple(InsuranceFacts(i.valid_from, i.valid_until, i.policy_number)
                        for i in vehicle.insurance_policies),
        auxiliaries=sum(1 for d in vehicle.drivers if d.category == DriverCategory.AUXILIAR))


def driver_facts(driver: Driver) -> DriverFacts:
    """A driver row as engine facts."""
    return DriverFacts(id=driver.id, name=driver.name, category=_value(driver.category),
                       holder_id=driver.holder_id, cnh_category=driver.cnh_category,
                       cnh_expiry=driver.cnh_expiry,
                       registration_number=driver.registration_number,
                       registration_expiry=driver.registration_expiry,
                       status=_value(driver.status), suspended_until=driver.suspended_until,
                       cause=cause_of("driver", driver))


# --- standing ---------------------------------------------------------------------------------

def _rules(town: str, service: str, on: date) -> rules.Rules:
    """The rules of one town, service and day (not cached: resolving them costs less than a
    twentieth of the cheapest request, bench/caches.py)."""
    return rules.resolve(town, service, on)


def _no_law(e: RulesError, on: date, subject: str) -> Standing:
    return Standing("irregular", [Violation("law.none", f"Sem lei em vigor para este serviço: "
                                            f"{e}.", None, subject=subject)], [], on)


def vehicle_standing(vehicle: Vehicle, on: date) -> Standing:
    """The standing of one vehicle on a day, with the reasons and their citations."""
    return judge_vehicle(vehicle, on)[0]


def judge_vehicle(vehicle: Vehicle, on: date) -> tuple[Standing, VehicleFacts, rules.Rules | None]:
    """The vehicle's standing on a day, with the facts and the rules it was judged on (None
    where no law is in force): `laws.standing` reads each document's finding from them."""
    town = _town_slug(vehicle.municipality_id)
    facts = vehicle_facts(vehicle)
    try:
        r = _rules(town, _value(vehicle.service), on)
    except RulesError as e:
        return _no_law(e, on, facts.subject), facts, None
    bad, due = rules.vehicle_check(r, facts)
    return Standing(rules.standing_status(bad), bad, due, on), facts, r


def rules_for_driver(driver: Driver, on: date) -> rules.Rules | None:
    """The rules a driver is judged by on a day (his service's law), None where none is in force."""
    service = Service.MOTOTAXI if driver.category == DriverCategory.MOTOTAXISTA else Service.TAXI
    try:
        return _rules(_town_slug(driver.municipality_id), service.value, on)
    except RulesError:
        return None


def driver_standing(driver: Driver, on: date) -> Standing:
    """The standing of one driver on a day (registration, status, CNH)."""
    service = Service.MOTOTAXI if driver.category == DriverCategory.MOTOTAXISTA else Service.TAXI
    facts = driver_facts(driver)
    try:
        r = _rules(_town_slug(driver.municipality_id), service.value, on)
    except RulesError as e:
        return _no_law(e, on, facts.subject)
    found = rules.driver_rule_violations(r, facts)
    bad = [x for x in found if x.severity == "violation"]
    return Standing(rules.standing_status(bad), bad,
                    [x for x in found if x.severity == "warning"], on)


def _town_slug(town_id: int) -> str:
    # session.get answers from the identity map after the first load: no query per vehicle
    return db.session.get(Municipality, town_id).slug


# --- a town -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class TownCompliance:
    """A town's registry against its laws on a day: one report per service with a law."""

    town: str
    on: date
    reports: list[TownReport]
    not_covered: list[str]        # services with vehicles but no law in force (messages)

    @property
    def violations(self) -> list[Violation]:
        """Every violation of every service."""
        return [v for r in self.reports for v in r.violations]

    @property
    def warnings(self) -> list[Violation]:
        """Everything due within 30 days (or missing from the registry)."""
        return [w for r in self.reports for w in r.warnings]


def registry_facts(town: Municipality, service: str, tf: TownFacts | None = None) -> Registry:
    """One service's registry of a town, loaded in a few queries, as engine facts."""
    tf = tf or town_facts(town)
    holders = list(db.session.scalars(
        select(Holder).where(Holder.municipality_id == town.id)
        .options(selectinload(Holder.permits))))
    vehicles = list(db.session.scalars(
        select(Vehicle).where(Vehicle.municipality_id == town.id, Vehicle.service == service)
        .options(selectinload(Vehicle.licences).selectinload(Licence.permit),
                 selectinload(Vehicle.insurance_policies), selectinload(Vehicle.drivers),
                 selectinload(Vehicle.holder).selectinload(Holder.permits))))
    category = DriverCategory.MOTOTAXISTA if service == "mototaxi" else None
    q = select(Driver).where(Driver.municipality_id == town.id)
    q = q.where(Driver.category == category) if category else \
        q.where(Driver.category != DriverCategory.MOTOTAXISTA)
    drivers = list(db.session.scalars(q))
    with preloaded_causes({"licence": [lic for v in vehicles for lic in v.licences],
                    "permit": [p for h in holders for p in h.permits], "driver": drivers}):
        return Registry(town=tf, service=service,
                        holders=tuple(HolderFacts(h.id, _value(h.kind), h.name) for h in holders),
                        vehicles=tuple(vehicle_facts(v) for v in vehicles),
                        drivers=tuple(driver_facts(d) for d in drivers))


def town_compliance(municipality: Municipality, on: date, *,
                    reuse: bool = True) -> TownCompliance:
    """Check every service of a town against the law in force on `on`. The result is reused
    (read-only) while the town's audit version and the day stay the same: every registry
    change writes an audit entry of its town, and the registry pages (registry/limits.py) and
    /conformidade ask for it on every view. COMPLIANCE_SECONDS bounds its age anyway.
    `reuse=False` checks afresh and keeps nothing: for rows not committed yet (an import
    that may be rolled back), whose audit version another change may take later."""
    if not reuse:
        return _town_compliance(municipality, on)
    key = (municipality.id, audit.town_version(municipality.id), on)
    # bench/caches.py: /conformidade 2.9x (20 vehicles) to 5.2x (500) slower without it
    return render_cache.reuse("compliance", key, lambda: _town_compliance(municipality, on),
                              size=32, seconds=120)


def _town_compliance(municipality: Municipality, on: date) -> TownCompliance:
    tf = town_facts(municipality)
    reports, not_covered = [], []
    for service in rules.SERVICES:
        try:
            rules.find_pack(municipality.slug, service, on)
        except RulesError as e:
            has_vehicles = db.session.scalar(select(Vehicle.id).where(
                Vehicle.municipality_id == municipality.id, Vehicle.service == service)
                .limit(1))
            if has_vehicles is not None:
                not_covered.append(str(e))
            continue
        report = rules.town_report(registry_facts(municipality, service, tf), on)
        report.violations.extend(stand_capacity_findings(municipality, report))
        report.violations.extend(person_permit_findings(municipality, report))
        reports.append(report)
    return TownCompliance(municipality.slug, on, reports, not_covered)


# --- limits on rows the engine's facts do not carry: stands and permits ---------------------------

_ARTICLE = re.compile(r"\bArt(?:igo|\.)?\s*(\d+)", re.I)


def article_citation(pack: rules.RulePack, article: int,
                     words=lambda text: " ".join(text.split())) -> Citation | None:
    """A citation of one article of the pack's law, quoting `words(its text)` (all of it by
    default); None when the law text has no such article."""
    text = rules.law_text(pack.law_slug)
    unit = text.locate(article) if text is not None else None
    if unit is None:
        return None
    return Citation(pack.law, pack.law_slug, unit.label, unit.anchor, words(unit.text))


def stand_citation(stand: Stand, pack: rules.RulePack) -> Citation | None:
    """The article a stand's capacity rests on: the "Art. N" of its legal basis, when the law
    in force for its service has that article (Sapezal 060 Art. 14 lists each stand's cars)."""
    m = _ARTICLE.search(stand.legal_basis or "")
    if m is None:
        return None
    # the words before its table
    return article_citation(pack, int(m.group(1)),
                            lambda text: " ".join(text.split(":")[0].split())[:200])


def stand_capacity_findings(municipality: Municipality, report: TownReport) -> list[Violation]:
    """Stands of one service holding more vehicles than their capacity (Sapezal 060 Art. 14:
    4/2/2/4/1/2 cars). Every vehicle placed on the stand counts, as the stand's page lists."""
    stands = list(db.session.scalars(select(Stand).where(
        Stand.municipality_id == municipality.id, Stand.service == report.service)
        .order_by(Stand.code)))
    if not stands:
        return []
    used = dict(db.session.execute(
        select(Vehicle.stand_id, func.count(Vehicle.id))
        .where(Vehicle.municipality_id == municipality.id,
               Vehicle.stand_id.in_([s.id for s in stands]))
        .group_by(Vehicle.stand_id)).all())
    out = []
    for s in stands:
        n = used.get(s.id, 0)
        if n > s.capacity:
            out.append(Violation(
                "town.stand_capacity", f"Ponto {s.code} ({s.place}) tem {n} veículos: a "
                f"capacidade do ponto é {s.capacity}.", stand_citation(s, report.pack),
                subject=f"stand:{s.id}"))
    return out


def _in_force(p: Permit, on: date) -> bool:
    return (p.status == Status.ACTIVE and p.valid_from <= on
            and (p.valid_until is None or p.valid_until >= on))


def person_permit_findings(municipality: Municipality, report: TownReport) -> list[Violation]:
    """Self-employed holders with more permits in force than the law allows (one: Nortelândia
    127 Art. 4 III, Nova Santa Helena 535 Art. 9 § 1º), where the law requires a permit."""
    r = rules.rules_on(report.pack, report.on)
    limit = r.value("limits.town.max_vehicles_per_person")
    if limit is None or not r.value("requirements.permit"):
        return []
    permits = db.session.scalars(select(Permit).join(Holder, Holder.id == Permit.holder_id).where(
        Permit.municipality_id == municipality.id, Permit.service == report.service,
        Holder.kind == HolderKind.PERSON)).all()
    count = Counter(p.holder_id for p in permits if _in_force(p, report.on))
    names = {p.holder_id: p.holder.name for p in permits}
    return [Violation("town.person_permits", f"{names[hid]} (motorista autônomo) tem {n} "
                      f"permissões em vigor: a lei permite {limit}.",
                      r.cite("limits.town.max_vehicles_per_person"), subject=f"holder:{hid}")
            for hid, n in sorted(count.items()) if n > limit]


# --- sanctions and decree values -----------------------------------------------------------------

def propose_sanction(municipality: Municipality, service: str, rule_id: str,
                     history: list[PriorSanction], on: date,
                     affects_safety: bool | None = None,
                     grant: rules.Grant | None = None,
                     calendar: rules.TownCalendar | None = None,
                     facts: TownFacts | None = None) -> rules.Proposal:
    """The law's proposed sanction for a finding, with amounts from the town's values and
    its appeal window and deadline counted over the town's calendar (a discretionary
    `grant`, Tapurah Art. 19, when asked and allowed: rules.GrantRefused otherwise).
    `calendar`: the town's, when the caller has read it already (`calendar_for`); `facts`:
    the town's facts with its calendar (`town_facts`), when the caller has read them already
    for several findings (`calendar` is then unused)."""
    if facts is None:
        if calendar is None:
            calendar = calendar_for(municipality.id)
        facts = dataclasses.replace(town_facts(municipality), calendar=calendar)
    return rules.propose_sanction(facts, service, Finding(rule_id, affects_safety), history, on,
                                  grant=grant)


def propose_step(municipality: Municipality, service: str, step_id: str, rule_id: str,
                 history: list[PriorSanction], on: date) -> rules.Proposal:
    """A rung the law grades by gravity, chosen by the supervisor (rules.propose_step)."""
    facts = dataclasses.replace(town_facts(municipality), calendar=calendar_for(municipality.id))
    return rules.propose_step(facts, service, step_id, Finding(rule_id), history, on)


@dataclass(frozen=True)
class DecreeStatus:
    """A value a law leaves to a decree, and what the town has set (None: não definido)."""

    pack_id: str
    law: str
    key: str
    label: str
    unit: str
    citation: Citation
    value: DatedAmount | None

    @property
    def text(self) -> str:
        """The value as shown, or "não definido"."""
        if self.value is None:
            return "não definido"
        return f"{self.value.amount} {self.value.unit}"


def decree_status(municipality: Municipality, on: date) -> list[DecreeStatus]:
    """Every decree key of the town's laws in force on `on` and its configured value."""
    tf = town_facts(municipality)
    out = []
    for pack in rules.packs_for_town(municipality.slug):
        if not pack.span.covers(on):
            continue
        for d in pack.decree:
            out.append(DecreeStatus(pack.id, pack.law, d.key, d.label, d.unit, d.citation,
                                    tf.decree_on(d.key, on)))
    return out
