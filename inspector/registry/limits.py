"""The law's limits on a registry record, shown when an admin saves it, and the one refusal.

Nothing here decides a limit: the findings come from `compliance.town_compliance`, the same
run the compliance page (/conformidade) shows, and this module only picks those about the
saved record (its vehicle, holder, driver or stand, and the town's fleet for its service).

Refusal or warning, and why (the law's words):

- REFUSED, HTTP 422 and nothing written: a new Alvará for a holder with an unpaid fine where
  the law bars it. Nortelândia Lei 127/2009 (taxi), Art. 23: "Não será expedido Alvará ao
  permissionário em débito com tributos relativos a atividades ou multas que digam respeito
  ao veículo, até que comprove o pagamento"; Art. 34: "Não será expedido ou transferido o
  Alvará de Estacionamento relativo a quem esteja em débito com o Município". The law forbids
  the act itself, at the moment it is done, and says what lifts the bar (payment); the
  registry knows the debt (fines and their payments). No other law shipped (Nortelândia
  030, Nova Santa Helena 535, Sapezal 060, Tapurah 406) bars a licence for a debt, so other
  towns and the moto-taxi service are unaffected (the pack parameter
  `requirements.no_debt_for_licence` lists the articles). A debt is a fine
  "em aberto" or "paga parcialmente" (reversed payments do not count) that is not void
  (rejected, upheld on appeal) nor held by a suspensive appeal; a fine whose value in reais
  the town has not set is not counted, since it cannot be paid.
- REFUSED unless the law lets the town pass them (registry/caps.py): the caps on the number
  of vehicles (fleet cap, quotas per inhabitant, company share, stand capacity), when the
  save adds to one. Passed before the save, they are warnings like the rest.
- WARNED, saved and shown with the article (and listed on /conformidade until fixed): one
  permit or one licence per self-employed driver ("declaração de não possuir outra
  permissão", Nortelândia 127 Art. 4 III; NSH Art. 9 § 1º; Sapezal Art. 13 § ú), where a
  replacement is entered before the old record is closed; auxiliaries ("Serão admitidos até
  02 (dois)", Nortelândia 127 Art. 9); vehicle age (Nortelândia 127 Art. 18 binds the
  *first* Alvará only, "requerido em caráter inicial", and § 1º-§ 2º keep older cars with a
  CIRETRAN report; Sapezal Art. 11, NSH Art. 14), engine size and trail bikes (Tapurah
  Art. 13, Nortelândia 030 Art. 2), doors. These hold only for a first licence the registry
  cannot tell from a renewal, or pass through a transient state while a clerk enters a
  replacement: the registry must be able to record what the Prefeitura did, and the warning
  (and the compliance page) says it breaks the law.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import or_, select

from inspector import clock, laws, rules
from inspector.extensions import db
from inspector.models import (
    Driver,
    DriverCategory,
    Fine,
    Holder,
    InsurancePolicy,
    Licence,
    Municipality,
    Permit,
    Sanction,
    Service,
    Stand,
    Vehicle,
)
from inspector.rules import Citation, RulesError, Violation

# Findings that are limits of the law (documents due or expired are the compliance page's).
LIMIT_RULES = frozenset({
    "town.fleet_cap", "town.quota", "town.company_share", "town.person_vehicles",
    "town.person_permits", "town.auxiliaries", "town.stand_capacity", "vehicle.age",
    "vehicle.age.due", "vehicle.cc.min", "vehicle.cc.max", "vehicle.trail", "vehicle.doors",
    "driver.cnh.category"})
TOWN_RULES = ("town.fleet_cap", "town.quota")

OWED = ("open", "partial")   # payments.balance states that are a debt


@dataclass(frozen=True)
class Scope:
    """What a record touches: ids of vehicles, holders, drivers, stands, and its services."""

    services: frozenset[str]
    vehicles: frozenset[int] = frozenset()
    holders: frozenset[int] = frozenset()
    drivers: frozenset[int] = frozenset()
    stands: frozenset[int] = frozenset()
    town: bool = False          # the town's fleet limits concern it (a vehicle or licence)


def _ids(*values) -> frozenset[int]:
    return frozenset(v for v in values if v is not None)


def _value(x) -> str:
    return str(getattr(x, "value", x))


def scope_of(obj) -> Scope:
    """The rows a saved record touches, for picking the findings about it."""
    if isinstance(obj, (Licence, InsurancePolicy)):
        obj = obj.vehicle
    if isinstance(obj, Vehicle):
        return Scope(frozenset({_value(obj.service)}), _ids(obj.id), _ids(obj.holder_id),
                     stands=_ids(obj.stand_id), town=True)
    if isinstance(obj, Driver):
        service = Service.MOTOTAXI if obj.category == DriverCategory.MOTOTAXISTA \
            else Service.TAXI
        return Scope(frozenset({service.value}), _ids(*(v.id for v in obj.vehicles)),
                     _ids(obj.holder_id), _ids(obj.id))
    if isinstance(obj, Permit):
        return Scope(frozenset({_value(obj.service)}), holders=_ids(obj.holder_id))
    if isinstance(obj, Holder):
        return Scope(frozenset(s.value for s in Service), holders=_ids(obj.id))
    if isinstance(obj, Stand):
        return Scope(frozenset({_value(obj.service)}), stands=_ids(obj.id))
    return Scope(frozenset())


def _about(v: Violation, scope: Scope) -> bool:
    kind, _, raw = (v.subject or "town").partition(":")
    if kind == "town":
        return scope.town and v.rule_id in TOWN_RULES
    ident = int(raw) if raw.isdigit() else None
    return ident in {"vehicle": scope.vehicles, "holder": scope.holders,
                     "driver": scope.drivers, "stand": scope.stands}.get(kind, ())


def limits_for(obj, on: date | None = None,
               run: laws.TownCompliance | None = None) -> list[Violation]:
    """The limits of the law a registry record breaks (or is about to), each with its
    article, from the town's compliance run on `on` (the town's today by default), or from `run`
    when the caller already has it (an import: one run for the whole file)."""
    scope = scope_of(obj)
    if not scope.services:
        return []
    if run is None:
        town = db.session.get(Municipality, obj.municipality_id)
        run = laws.town_compliance(town, on or clock.today(town))
    out: list[Violation] = []
    for report in run.reports:
        if report.service not in scope.services:
            continue
        found = [v for v in report.violations + report.warnings
                 if v.rule_id in LIMIT_RULES and _about(v, scope)]
        out.extend(found)
        out.extend(_fleet_full(report, scope, found))
    return out


def _fleet_full(report, scope: Scope, found: list[Violation]) -> list[Violation]:
    """A vehicle not yet licensed in a town whose fleet is already at a limit: its licence
    would break it (from the same quota figures; nothing recomputed)."""
    if not scope.town or len(scope.vehicles) != 1 or any(v.rule_id in TOWN_RULES
                                                           for v in found):
        return []
    vid = next(iter(scope.vehicles))
    vehicle = db.session.get(Vehicle, vid)
    lic = vehicle.current_licence if vehicle is not None else None
    if lic is not None and _value(lic.status) != "revoked":
        return []
    return [Violation(q.rule_id, f"O município já tem {q.used} veículos licenciados e o "
                      f"limite da lei é {q.limit} ({q.label.lower()}): um alvará para este "
                      f"veículo ultrapassa o limite.", q.citation, severity="warning",
                      subject="town")
            for q in report.quotas if q.limit is not None and q.used >= q.limit]


# --- the refusal: a licence while the holder owes a fine -------------------------------------

def debt_bar(vehicle: Vehicle, on: date) -> tuple[list[Citation], list[str]]:
    """Whether the law in force bars a new licence for this vehicle's holder: the articles
    and the unpaid fines (notice number and what is owed); ([], []) when it does not."""
    from inspector.enforcement import balance  # the fines' own arithmetic, not redone here

    town = db.session.get(Municipality, vehicle.municipality_id)
    try:
        pack = rules.find_pack(town.slug, _value(vehicle.service), on)
    except RulesError:
        return [], []
    articles = pack.value("requirements.no_debt_for_licence", on)
    holder_id = vehicle.holder.id if vehicle.holder is not None else None
    if not articles or holder_id is None:
        return [], []
    own_vehicles = select(Vehicle.id).where(Vehicle.holder_id == holder_id)
    fines = db.session.scalars(
        select(Fine).join(Sanction, Sanction.id == Fine.sanction_id)
        .where(Fine.municipality_id == town.id,
               or_(Sanction.holder_id == holder_id, Sanction.vehicle_id.in_(own_vehicles)))
        .order_by(Fine.value_on, Fine.id)).all()
    owed = []
    for fine in fines:
        b = balance(fine)
        if b.state in OWED and not b.act.suspended:
            number = b.act.notice.number if b.act.notice is not None else f"ato {b.act.id}"
            owed.append(f"{number} ({b.text})")
    if not owed:
        return [], []
    return [c for c in (laws.article_citation(pack, a) for a in articles) if c is not None], owed


def debt_message(holder_name: str, citations: list[Citation], owed: list[str]) -> str:
    """The refusal in pt-BR: who owes what, and the articles with the law's words."""
    law = citations[0].law if citations else ""
    arts = " e ".join(c.article.replace("Art. ", "") for c in citations)
    quote = citations[0].quote if citations else ""
    return (f"Alvará não expedido: {holder_name} tem multa em aberto ({'; '.join(owed)}). "
            f"{law}, Arts. {arts}: “{quote}” Registre o pagamento da multa e tente de novo.")


