"""A town's registry against its law: fleet cap, quotas, company shares, auxiliaries,
one licence per person, and every vehicle's and driver's documents."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from inspector.rules.engine import (
    driver_rule_violations,
    find_pack,
    rules_on,
    validity_violation,
    vehicle_check,
)
from inspector.rules.facts import Registry, VehicleFacts
from inspector.rules.model import RulePack
from inspector.rules.results import Citation, Violation


@dataclass(frozen=True)
class QuotaUse:
    """How much of a limit on the number of vehicles is used."""

    rule_id: str
    label: str
    used: int
    limit: int | None          # None: the population is not known, cannot compute
    citation: Citation | None
    detail: str = ""

    @property
    def over(self) -> bool:
        """Whether the town is above the limit."""
        return self.limit is not None and self.used > self.limit


@dataclass(frozen=True)
class ShareUse:
    """One company's share of the fleet against the law's maximum share."""

    holder_id: int
    holder_name: str
    vehicles: int
    total: int
    limit: Fraction
    citation: Citation | None

    @property
    def share(self) -> Fraction:
        """The company's fraction of the fleet."""
        return Fraction(self.vehicles, self.total) if self.total else Fraction(0)

    @property
    def over(self) -> bool:
        """Whether the company holds more than the law allows."""
        return self.share > self.limit


@dataclass(frozen=True)
class TownReport:
    """Everything the compliance page shows for one town and service on one day."""

    town: str
    service: str
    on: date
    pack: RulePack
    fleet: int
    quotas: list[QuotaUse] = field(default_factory=list)
    company_shares: list[ShareUse] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)


def in_fleet(v: VehicleFacts) -> bool:
    """A vehicle counts against the caps while it holds a licence that is not revoked."""
    return v.licence is not None and v.licence.status != "revoked"


def _pct(f: Fraction) -> str:
    return f"{float(f) * 100:.1f}%".replace(".", ",")


def town_report(registry: Registry, on: date,
                packs: tuple[RulePack, ...] | None = None) -> TownReport:
    """Check a town's registry for one service against the law in force on `on`."""
    pack = find_pack(registry.town.slug, registry.service, on, packs)
    r = rules_on(pack, on)
    town = registry.town
    fleet_vehicles = [v for v in registry.vehicles if in_fleet(v)]
    fleet = len(fleet_vehicles)
    quotas: list[QuotaUse] = []
    violations: list[Violation] = []
    warnings: list[Violation] = []

    cap = r.value("limits.town.fleet_cap")
    if cap is not None:
        quotas.append(QuotaUse("town.fleet_cap", "Número máximo de veículos", fleet, cap,
                               r.cite("limits.town.fleet_cap")))
    per = r.value("limits.town.inhabitants_per_vehicle")
    if per:
        pop = None if town.population_seat is None or town.population_interior is None \
            else town.population_seat + town.population_interior
        quotas.append(QuotaUse("town.quota", f"1 veículo para cada {per} habitantes", fleet,
                               None if pop is None else pop // per,
                               r.cite("limits.town.inhabitants_per_vehicle"),
                               "" if pop is None else f"{pop} habitantes"))
    seat = r.value("limits.town.inhabitants_per_vehicle_seat")
    interior = r.value("limits.town.inhabitants_per_vehicle_interior")
    if seat and interior:
        known = town.population_seat is not None and town.population_interior is not None
        limit = (town.population_seat // seat + town.population_interior // interior) \
            if known else None
        detail = (f"sede: {town.population_seat} hab. (1 a cada {seat}); interior: "
                  f"{town.population_interior} hab. (1 a cada {interior})") if known else ""
        quotas.append(QuotaUse("town.quota", f"1 veículo a cada {seat} habitantes na sede e "
                               f"1 a cada {interior} no interior", fleet, limit,
                               r.cite("limits.town.inhabitants_per_vehicle_seat"), detail))
    for q in quotas:
        if q.over:
            violations.append(Violation(q.rule_id, f"{q.used} veículos licenciados: o limite "
                                        f"da lei é {q.limit} ({q.label.lower()}"
                                        + (f"; {q.detail}" if q.detail else "") + ").",
                                        q.citation, subject="town"))

    holders = {h.id: h for h in registry.holders}
    per_holder = Counter(v.holder_id for v in fleet_vehicles if v.holder_id is not None)
    shares: list[ShareUse] = []
    share_limit = r.value("limits.town.company_max_share")
    if share_limit is not None:
        for hid, n in sorted(per_holder.items()):
            h = holders.get(hid)
            if h is not None and h.kind == "company":
                s = ShareUse(hid, h.name, n, fleet, share_limit,
                             r.cite("limits.town.company_max_share"))
                shares.append(s)
                if s.over:
                    violations.append(Violation(
                        "town.company_share", f"{h.name} tem {n} de {fleet} veículos "
                        f"({_pct(s.share)}): o limite por empresa é {_pct(share_limit)}.",
                        s.citation, subject=f"holder:{hid}"))
    person_max = r.value("limits.town.max_vehicles_per_person")
    if person_max is not None:
        for hid, n in sorted(per_holder.items()):
            h = holders.get(hid)
            if h is not None and h.kind == "person" and n > person_max:
                violations.append(Violation(
                    "town.person_vehicles", f"{h.name} (motorista autônomo) tem {n} veículos: "
                    f"a lei permite {person_max}.", r.cite("limits.town.max_vehicles_per_person"),
                    subject=f"holder:{hid}"))
    aux_max = r.value("limits.driver.max_auxiliaries_per_vehicle")
    permits_seen: set[str] = set()
    for v in registry.vehicles:
        if aux_max is not None and v.auxiliaries > aux_max:
            violations.append(Violation(
                "town.auxiliaries", f"Veículo {v.plate or v.id} tem {v.auxiliaries} motoristas "
                f"auxiliares: o limite é {aux_max}.",
                r.cite("limits.driver.max_auxiliaries_per_vehicle"), subject=v.subject))
        bad, due = vehicle_check(r, v)
        violations.extend(bad)
        warnings.extend(due)
        # a document registered valid for longer than its law allows
        if v.licence is not None:
            violations.extend(x for x in [validity_violation(
                r, "licence", v.licence.valid_from, v.licence.valid_until, v.subject,
                f"Alvará nº {v.licence.number}")] if x)
        if v.permit is not None and v.permit.number not in permits_seen:
            permits_seen.add(v.permit.number)   # a company's permit covers many vehicles
            violations.extend(x for x in [validity_violation(
                r, "permit", v.permit.valid_from, v.permit.valid_until, v.subject,
                f"Permissão nº {v.permit.number}")] if x)
    for d in registry.drivers:
        for x in driver_rule_violations(r, d):
            (violations if x.severity == "violation" else warnings).append(x)
        # revalidated yearly: however recently granted (at the latest today), an expiry more
        # than a year from today is longer than the law allows (Nortelândia 127 Art. 8)
        x = validity_violation(r, "registration", on, d.registration_expiry, d.subject,
                               f"Inscrição nº {d.registration_number or d.id}")
        if x is not None:
            violations.append(x)
    return TownReport(town=town.slug, service=registry.service, on=on, pack=pack, fleet=fleet,
                      quotas=quotas, company_shares=shares, violations=violations,
                      warnings=warnings)
