"""The rules engine: which pack holds, the checklist, a vehicle's and a driver's violations.

Pure functions over `facts` dataclasses and loaded packs. No town's rule is written
here: the engine knows what a parameter means ("max_age_years"); the packs say which
town has it, from when, with which value and citation.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from inspector.rules.errors import LawNotInForce, UnknownService, UnknownTown
from inspector.rules.facts import DriverFacts, StatusCause, VehicleFacts
from inspector.rules.loader import SERVICES, load_all
from inspector.rules.model import ChecklistItem, RulePack, Version
from inspector.rules.results import Citation, Violation

DUE_SOON_DAYS = 30  # "due within 30 days": a product setting, not a rule of any law


def fmt_date(day: date) -> str:
    """A date as people in Brazil write it: 31/12/2026."""
    return day.strftime("%d/%m/%Y")


# --- which pack ------------------------------------------------------------------------------

def find_pack(town: str, service: str, on: date,
              packs: tuple[RulePack, ...] | None = None) -> RulePack:
    """The pack of this town and service in force on `on`; typed errors otherwise."""
    packs = load_all() if packs is None else packs
    if service not in SERVICES:
        raise UnknownService(service)
    towns = sorted({p.town for p in packs})
    if town not in towns:
        raise UnknownTown(town, towns)
    mine = [p for p in packs if p.town == town and p.service == service]
    for p in mine:
        if p.span.covers(on):
            return p
    if not mine:
        raise LawNotInForce(town, service, on, "a cidade não tem lei para este serviço")
    detail = "; ".join(f"a {p.law} vigora de {fmt_date(p.span.start)}"
                       + (f" a {fmt_date(p.span.last)}" if p.span.last else "")
                       for p in sorted(mine, key=lambda p: p.span.start))
    raise LawNotInForce(town, service, on, detail)


def packs_for_town(town: str, packs: tuple[RulePack, ...] | None = None) -> list[RulePack]:
    """Every pack of one town (any service, any date)."""
    return [p for p in (load_all() if packs is None else packs) if p.town == town]


# --- a pack resolved on one day ------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    """A pack with every parameter resolved on one day: cheap to ask many times."""

    pack: RulePack
    on: date
    versions: dict[str, Version]

    def value(self, path: str, default: Any = None) -> Any:
        """The parameter's value on this day, or `default`."""
        v = self.versions.get(path)
        return default if v is None else v.value

    def cite(self, path: str) -> Citation | None:
        """The citation of the parameter's value on this day."""
        v = self.versions.get(path)
        return None if v is None else v.citation

    def message(self, path: str, default: str, **fields) -> str:
        """The pack's message for this parameter (or the default), filled in."""
        p = self.pack.parameters.get(path)
        if p is not None and p.message:
            try:
                return p.message.format(**fields)
            except (KeyError, IndexError, ValueError):
                pass  # a template naming a field this rule does not have: use the default
        return default.format(**fields)


def rules_on(pack: RulePack, on: date) -> Rules:
    """Resolve every parameter of a pack on a day."""
    versions = {}
    for path, param in pack.parameters.items():
        v = param.at(on)
        if v is not None:
            versions[path] = v
    return Rules(pack, on, versions)


def resolve(town: str, service: str, on: date,
            packs: tuple[RulePack, ...] | None = None) -> Rules:
    """`find_pack` then `rules_on`."""
    return rules_on(find_pack(town, service, on, packs), on)


# --- checklist -----------------------------------------------------------------------------------

def checklist(town: str, service: str, on: date, seat_population: int | None = None,
              packs: tuple[RulePack, ...] | None = None,
              decrees: frozenset[str] | set[str] | None = None) -> list[ChecklistItem]:
    """The items in force on `on`; conditional items are dropped only when the town's
    population (or its decrees) is known and the condition is not met."""
    pack = find_pack(town, service, on, packs)
    return checklist_of(pack, on, seat_population, decrees)


def checklist_of(pack: RulePack, on: date, seat_population: int | None = None,
                 decrees: frozenset[str] | set[str] | None = None) -> list[ChecklistItem]:
    """The items of one pack in force on a day. `decrees`: the decree keys the town has a
    value for that day (DOMAIN "Conditional items apply only when their condition is
    recorded"); None when unknown, e.g. reading the law without a town."""
    items = []
    for it in pack.checklist:
        if not it.span.covers(on):
            continue
        if it.seat_population_over is not None and seat_population is not None \
                and seat_population <= it.seat_population_over:
            continue
        if it.applies_if_decree is not None and decrees is not None \
                and it.applies_if_decree not in decrees:
            continue
        items.append(it)
    return items


# --- vehicle -----------------------------------------------------------------------------------

def vehicle_age(vehicle: VehicleFacts, on: date) -> int:
    """Age in whole years counted from the year of manufacture (the year alone)."""
    return on.year - vehicle.year_of_manufacture


def add_years(day: date, years: int) -> date:
    """The same day and month `years` later; 29/02 on a year without it ends on 01/03 (Lei
    810/1949 Art. 3º: with no corresponding day, the period ends on the next day)."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return date(day.year + years, 3, 1)


def months_later(day: date, months: int) -> date:
    """The same day `months` later; a day the month lacks ends on the 1st of the next month
    (Lei 810/1949 Art. 3º). (`add_months`, used for the vistoria, keeps its clamping.)"""
    y, m = divmod(day.month - 1 + months, 12)
    year, month = day.year + y, m + 1
    try:
        return day.replace(year=year, month=month)
    except ValueError:
        return date(year + (month == 12), month % 12 + 1, 1)


# --- validity a law sets for a document ------------------------------------------
VALIDITY_PATHS = {"licence": "periodicity.licence_months", "permit": "periodicity.permit_months",
                  "registration": "periodicity.registration_months"}
DOCUMENT_WORDS = {"licence": "o Alvará", "permit": "a permissão (autorização)",
                  "registration": "a inscrição do condutor"}


@dataclass(frozen=True)
class ValidityLimit:
    """The last day a document starting on `start` may be valid by its law."""

    document: str        # licence | permit | registration
    start: date
    last: date
    citation: Citation | None
    words: str           # pt-BR: "o Alvará vale durante o exercício (até 31/12/2026)"


def validity_limit(r: Rules, document: str, start: date) -> ValidityLimit | None:
    """What the law in `r` allows a document starting on `start`: the exercício (until 31
    December of its year, Sapezal Art. 10) or N months (until the same day N months later,
    Lei 810/1949); None where the law sets none."""
    what = DOCUMENT_WORDS[document]
    if document == "licence" and r.value("periodicity.licence_until_year_end"):
        last = date(start.year, 12, 31)
        return ValidityLimit(document, start, last, r.cite("periodicity.licence_until_year_end"),
                             f"{what} vale durante o exercício (até {fmt_date(last)})")
    path = VALIDITY_PATHS[document]
    months = r.value(path)
    if not months:
        return None
    # Lei 810/1949 Arts. 1º-2º: a year (a month) runs from the day it starts to the same day
    # of the next year (month): a validity of 1 year from 01/03/2026 may end on 01/03/2027
    last = months_later(start, months)
    span = "1 ano" if months == 12 else f"{months} meses"
    return ValidityLimit(document, start, last, r.cite(path),
                         f"{what} vale no máximo {span} (de {fmt_date(start)} a {fmt_date(last)})")


def validity_violation(r: Rules, document: str, start: date | None, until: date | None,
                       subject: str | None, label: str) -> Violation | None:
    """A document registered valid beyond what its law allows; None when within or unknown."""
    if start is None or until is None:
        return None
    limit = validity_limit(r, document, start)
    if limit is None or until <= limit.last:
        return None
    rule_id = {"licence": "licence.validity", "permit": "permit.validity",
               "registration": "driver.registration.validity"}[document]
    return Violation(rule_id, f"{label}: validade registrada até {fmt_date(until)}, mas "
                     f"{limit.words}.", limit.citation, subject=subject)


@dataclass(frozen=True)
class AgeLimit:
    """When a vehicle passes an age limit of N years, and what it was counted from.

    ../shared/DOMAIN.md ("completarem N anos de fabricação" / "atingirem" / "anos de uso"):
    counted from the registered manufacture date, or the first licensing date for "uso", when
    known: the vehicle has completed N years at the end of its Nth anniversary and is out from
    the next day; with only the year of manufacture it is out only once it has certainly
    completed N years, from 1 January of year + N + 1."""

    limit: int
    out_from: date          # the first day the vehicle no longer meets the limit
    since: date | None      # the day counted from (None: only the year is known)
    basis: str              # "fabricado em 15/06/2020", "em uso desde ...", "fabricado em 2020"
    year_only: bool

    def text(self) -> str:
        """pt-BR: what was counted, said plainly on the card."""
        if self.year_only:
            return (f"{self.basis}, só o ano é conhecido: completa com certeza {self.limit} "
                    f"anos em 31/12/{self.out_from.year - 1}")
        return (f"{self.basis}: completa {self.limit} anos em "
                f"{fmt_date(self.out_from - timedelta(days=1))}")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def age_limit(v: VehicleFacts, limit: int, use: bool = False) -> AgeLimit:
    """When the vehicle passes `limit` years (see AgeLimit); `use`: "anos de uso" (counted from
    the first licensing when known, else from manufacture)."""
    if use and v.first_licensed_on is not None:
        since, basis = v.first_licensed_on, f"em uso desde {fmt_date(v.first_licensed_on)} " \
                                            f"(primeiro licenciamento)"
    elif v.manufactured_on is not None:
        since, basis = v.manufactured_on, f"fabricado em {fmt_date(v.manufactured_on)}"
    else:
        return AgeLimit(limit, date(v.year_of_manufacture + limit + 1, 1, 1), None,
                        f"fabricado em {v.year_of_manufacture}", True)
    return AgeLimit(limit, add_years(since, limit) + timedelta(days=1), since, basis, False)


def age_limits(r: Rules, v: VehicleFacts) -> list[tuple[str, AgeLimit]]:
    """The age limits in force for the vehicle: (parameter path, AgeLimit)."""
    use = bool(r.value("limits.vehicle.age_counts_use"))
    out = []
    for path in ("limits.vehicle.max_age_years", "limits.vehicle.replace_at_age_years"):
        limit = r.value(path)
        if limit is not None:
            out.append((path, age_limit(v, limit, use)))
    return out


def vehicle_violations(town: str, service: str, vehicle: VehicleFacts, on: date,
                       packs: tuple[RulePack, ...] | None = None) -> list[Violation]:
    """What the vehicle itself breaks on `on`: age, engine size, trail, doors."""
    return vehicle_limit_violations(resolve(town, service, on, packs), vehicle)


def vehicle_limit_violations(r: Rules, v: VehicleFacts) -> list[Violation]:
    """Age, engine size, trail and doors against the rules of one day."""
    out: list[Violation] = []
    age = vehicle_age(v, r.on)
    subject = v.subject
    # with only the year the wording is the one people know ("tem 8 anos e o limite é 5"),
    # plus when the limit was certainly reached; with a date, the days themselves
    year_only = {"limits.vehicle.max_age_years": "Veículo fabricado em {year}: tem {age} anos e "
                                                 "o limite é {limit} anos ({certain}; irregular "
                                                 "desde {out}).",
                 "limits.vehicle.replace_at_age_years": "Veículo fabricado em {year} completou "
                                                        "{age} anos: a lei manda substituí-lo "
                                                        "quando completar {limit} anos "
                                                        "({certain}; irregular desde {out})."}
    dated = {"limits.vehicle.max_age_years": "{Counted}; a lei admite no máximo {limit} anos: "
                                             "irregular desde {out}.",
             "limits.vehicle.replace_at_age_years": "{Counted}; a lei manda substituí-lo quando "
                                                    "completar {limit} anos: irregular desde "
                                                    "{out}."}
    for path, a in age_limits(r, v):
        if r.on >= a.out_from:
            text = (year_only if a.year_only else dated)[path]
            out.append(Violation("vehicle.age", r.message(
                path, text, year=v.year_of_manufacture, age=age, limit=a.limit,
                counted=a.text(), Counted=_cap(a.text()), out=fmt_date(a.out_from),
                certain=f"só o ano é conhecido: completou com certeza {a.limit} anos em "
                        f"31/12/{a.out_from.year - 1}"),
                r.cite(path), subject=subject))
    if v.engine_cc is not None:
        limit = r.value("limits.vehicle.min_cc")
        if limit is not None and v.engine_cc < limit:
            out.append(Violation("vehicle.cc.min", r.message(
                "limits.vehicle.min_cc",
                "Motocicleta de {cc} cc: a lei exige no mínimo {limit} cc.",
                cc=v.engine_cc, limit=limit), r.cite("limits.vehicle.min_cc"), subject=subject))
        limit = r.value("limits.vehicle.max_cc")
        if limit is not None and v.engine_cc > limit:
            out.append(Violation("vehicle.cc.max", r.message(
                "limits.vehicle.max_cc",
                "Motocicleta de {cc} cc: a lei permite no máximo {limit} cc.",
                cc=v.engine_cc, limit=limit), r.cite("limits.vehicle.max_cc"), subject=subject))
    if v.is_trail and r.value("limits.vehicle.trail_banned"):
        out.append(Violation("vehicle.trail", r.message(
            "limits.vehicle.trail_banned",
            "Motocicleta do tipo trail: a lei não permite trail neste serviço."),
            r.cite("limits.vehicle.trail_banned"), subject=subject))
    allowed = r.value("limits.vehicle.allowed_doors")
    if allowed and v.doors is not None and v.doors not in allowed:
        out.append(Violation("vehicle.doors", r.message(
            "limits.vehicle.allowed_doors", "Veículo com {doors} portas: a lei aceita {allowed}.",
            doors=v.doors, allowed=" ou ".join(str(d) for d in allowed)),
            r.cite("limits.vehicle.allowed_doors"), subject=subject))
    return out


def age_warning(r: Rules, v: VehicleFacts) -> Violation | None:
    """A warning when the vehicle will pass its age limit within DUE_SOON_DAYS."""
    if any(x.rule_id == "vehicle.age" for x in vehicle_limit_violations(r, v)):
        return None
    soon = r.on + timedelta(days=DUE_SOON_DAYS)
    later = Rules(r.pack, soon, r.versions)
    for path, a in age_limits(later, v):
        if r.on < a.out_from <= soon:
            detail = a.text().split(": ", 1)[1] if not a.year_only else \
                a.text().split(", ", 1)[1]
            return Violation("vehicle.age.due", f"Veículo {a.basis} atinge o limite de idade em "
                             f"{fmt_date(a.out_from)} ({detail}).",
                             later.cite(path), severity="warning", subject=v.subject,
                             due_on=a.out_from)
    return None


def _until(last_day: date | None) -> str:
    """" até dd/mm/aaaa" for a suspension with an end, "" for one without."""
    return f" até {fmt_date(last_day)}" if last_day else ""


SERVICE_NOUNS = {"mototaxi": "moto-táxi", "taxi": "táxi"}


def _ended_word(cause: StatusCause | None, gender: str) -> str:
    """"cassada" / "cassado", or "cancelada" / "cancelado" where the law lapses it itself."""
    word = "cancelad" if cause is not None and cause.cancelled else "cassad"
    return word + ("a" if gender == "f" else "o")


def _since(cause: StatusCause | None) -> str:
    """" em 06/12/2026 (seguro do moto-táxi SAF9Q98 vencido)" for a status an act set."""
    return f" em {fmt_date(cause.on)} ({cause.words})" if cause is not None else ""


def _why(cause: StatusCause | None) -> str:
    """" (caixa luminosa ausente)": why a suspension was decided, when an act says."""
    return f" ({cause.words})" if cause is not None else ""


def _cause_cite(cause: StatusCause | None, default: Citation | None) -> Citation | None:
    """The article of the act that set the status (the cause's), else the law's default."""
    return cause.citation if cause is not None and cause.citation is not None else default


def _permit_fall(r: Rules, p, state: str, until: str) -> str:
    """A permit that does not hold. A company's permit covers all its vehicles: said so, as
    every rider of the company reads it ("nenhum moto-táxi da empresa pode circular")."""
    if not p.company:
        return f"Permissão {p.number} {state}."
    noun = SERVICE_NOUNS.get(r.pack.service, "veículo")
    return (f"Permissão {p.number} da empresa {p.company} {state}: nenhum {noun} da empresa "
            f"pode circular{until}.")


def _due(rule_id: str, text: str, citation, subject, until: date, on: date) -> Violation | None:
    if on <= until <= on + timedelta(days=DUE_SOON_DAYS):
        return Violation(rule_id, text.format(date=fmt_date(until)), citation,
                         severity="warning", subject=subject, due_on=until)
    return None


def vehicle_document_violations(r: Rules, v: VehicleFacts) -> list[Violation]:
    """Licence, permit, insurance and vistoria on the day (warnings for what falls due)."""
    out: list[Violation | None] = []
    on, subject = r.on, v.subject
    if r.value("requirements.licence"):
        # The article that requires the Alvará answers for a missing one; an expired one cites
        # the article that sets its validity (`licence_months`), a suspended or revoked one the
        # article that provides the sanction (`sanctions.suspension`), where the pack has them.
        c = r.cite("requirements.licence")
        c_valid = r.cite("periodicity.licence_months") or c
        c_sanction = r.pack.suspension.citation if r.pack.suspension is not None else c
        lic = v.licence
        if lic is None:
            out.append(Violation("licence.missing", "Veículo sem alvará registrado.", c,
                                 subject=subject))
        elif lic.status == "revoked":
            out.append(Violation("licence.revoked", f"Alvará {lic.number} "
                                 f"{_ended_word(lic.cause, 'm')}{_since(lic.cause)}.",
                                 _cause_cite(lic.cause, c_sanction), subject=subject))
        elif lic.status == "suspended":
            out.append(Violation("licence.suspended", f"Alvará {lic.number} suspenso"
                                 f"{_until(lic.suspended_until)}{_why(lic.cause)}.",
                                 _cause_cite(lic.cause, c_sanction), subject=subject,
                                 due_on=lic.suspended_until, effect="suspended"))
        elif lic.valid_until < on:
            out.append(Violation("licence.expired", f"Alvará {lic.number} vencido em "
                                 f"{fmt_date(lic.valid_until)}.", c_valid, subject=subject,
                                 due_on=lic.valid_until))
        elif lic.valid_from > on:
            out.append(Violation("licence.not_yet_valid", f"Alvará {lic.number} só vale a "
                                 f"partir de {fmt_date(lic.valid_from)}.", c, subject=subject))
        else:
            out.append(_due("licence.due", f"Alvará {lic.number} vence em {{date}}.", c_valid,
                            subject, lic.valid_until, on))
    if r.value("requirements.permit"):
        # A suspended or revoked permit cites the article that provides that sanction for the
        # permit (`sanctions.suspension.permit_citation`), where the law names one.
        c = r.cite("requirements.permit")
        s = r.pack.suspension
        c_sanction = s.permit_citation if s is not None and s.permit_citation else c
        p = v.permit
        if p is None:
            out.append(Violation("permit.missing", "Sem permissão (termo de permissão ou "
                                 "autorização) registrada.", c, severity="warning",
                                 subject=subject))
        elif p.status == "revoked":
            out.append(Violation("permit.revoked", _permit_fall(
                r, p, f"{_ended_word(p.cause, 'f')}{_since(p.cause)}", ""),
                _cause_cite(p.cause, c_sanction), subject=subject))
        elif p.status == "suspended":
            out.append(Violation("permit.suspended", _permit_fall(
                r, p, f"suspensa{_until(p.suspended_until)}{_why(p.cause)}",
                _until(p.suspended_until)), _cause_cite(p.cause, c_sanction), subject=subject,
                due_on=p.suspended_until, effect="suspended"))
        elif p.valid_until is not None and p.valid_until < on:
            out.append(Violation("permit.expired", f"Permissão {p.number} vencida em "
                                 f"{fmt_date(p.valid_until)}.", c, subject=subject,
                                 due_on=p.valid_until))
        elif p.valid_from > on:
            out.append(Violation("permit.not_yet_valid", f"Permissão {p.number} só vale a "
                                 f"partir de {fmt_date(p.valid_from)}.", c, subject=subject))
        elif p.valid_until is not None:
            out.append(_due("permit.due", f"Permissão {p.number} vence em {{date}}.", c,
                            subject, p.valid_until, on))
    if r.value("requirements.insurance"):
        out.extend(_insurance(r, v))
    prior = r.pack.vistoria.kind("prior")
    if v.last_vistoria_on is None and prior is not None:
        # the law licenses a vehicle only after a vistoria (Nova Santa Helena Art. 32, Sapezal
        # Art. 11, Tapurah Art. 13, Nortelândia 030 Art. 2): none on record is not in order
        out.append(Violation("vistoria.missing", "Nenhuma vistoria registrada: a lei exige "
                             "vistoria do veículo para licenciá-lo e mantê-lo em circulação.",
                             prior.citation, subject=subject))
    elif r.value("periodicity.vistoria_months"):
        if v.last_vistoria_on is None:
            out.append(Violation("vistoria.missing", "Nenhuma vistoria registrada.",
                                 r.cite("periodicity.vistoria_months"), severity="warning",
                                 subject=subject))
        else:
            due, c, short = vistoria_end(r, v)
            how = " (validade reduzida na vistoria)" if short else ""
            if due < on:
                out.append(Violation("vistoria.overdue", f"Vistoria vencida desde "
                                     f"{fmt_date(due)}{how} (a última foi em "
                                     f"{fmt_date(v.last_vistoria_on)}).", c, subject=subject,
                                     due_on=due))
            else:
                out.append(_due("vistoria.due", f"Vistoria vence em {{date}}{how}.", c,
                                subject, due, on))
    return [x for x in out if x is not None]


def vistoria_end(r: Rules, v: VehicleFacts) -> tuple[date | None, Citation | None, bool]:
    """The vistoria's last valid day, its citation, and whether it was shortened: the earlier
    of last vistoria + `vistoria_months` and the inspector's shortened day, the latter only
    where the pack allows it (`vistoria_may_be_shortened`) and only when it falls after the
    vistoria and before the normal end."""
    months = r.value("periodicity.vistoria_months")
    if not months or v.last_vistoria_on is None:
        return None, r.cite("periodicity.vistoria_months"), False
    normal = add_months(v.last_vistoria_on, months)
    short = v.vistoria_valid_until
    if (short is not None and r.value("periodicity.vistoria_may_be_shortened")
            and v.last_vistoria_on < short < normal):
        return short, r.cite("periodicity.vistoria_may_be_shortened"), True
    return normal, r.cite("periodicity.vistoria_months"), False


def _insurance(r: Rules, v: VehicleFacts) -> list[Violation | None]:
    c, on = r.cite("requirements.insurance"), r.on
    covering = [p for p in v.insurance if p.valid_from <= on <= p.valid_until]
    if covering:
        until = max(p.valid_until for p in covering)
        return [_due("insurance.due", "Seguro obrigatório vence em {date}.", c, v.subject,
                     until, on)]
    past = [p for p in v.insurance if p.valid_until < on]
    if past:
        until = max(p.valid_until for p in past)
        return [Violation("insurance.lapsed", f"Seguro obrigatório vencido em "
                          f"{fmt_date(until)}.", c, subject=v.subject, due_on=until)]
    return [Violation("insurance.missing", "Sem seguro obrigatório em vigor.", c,
                      subject=v.subject)]


def add_months(day: date, months: int) -> date:
    """The same day `months` later (clamped to the month's last day)."""
    y, m = divmod(day.month - 1 + months, 12)
    year, month = day.year + y, m + 1
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month, d)
        except ValueError:
            continue
    raise AssertionError(day)


# --- driver --------------------------------------------------------------------------------------

def driver_violations(town: str, service: str, driver: DriverFacts, on: date,
                      packs: tuple[RulePack, ...] | None = None) -> list[Violation]:
    """A driver's registration, status and CNH on `on` (warnings for what falls due)."""
    return driver_rule_violations(resolve(town, service, on, packs), driver)


def driver_rule_violations(r: Rules, d: DriverFacts) -> list[Violation]:
    """A driver against the rules of one day."""
    out: list[Violation | None] = []
    on, subject = r.on, d.subject
    if r.value("requirements.driver_registration"):
        c = r.cite("requirements.driver_registration")
        if d.status == "revoked":
            out.append(Violation("driver.registration.revoked",
                                 f"Registro do condutor {_ended_word(d.cause, 'm')}"
                                 f"{_since(d.cause)}.", _cause_cite(d.cause, c),
                                 subject=subject))
        elif d.status == "suspended":
            out.append(Violation("driver.registration.suspended",
                                 f"Registro do condutor suspenso{_until(d.suspended_until)}"
                                 f"{_why(d.cause)}.", _cause_cite(d.cause, c), subject=subject,
                                 due_on=d.suspended_until, effect="suspended"))
        # a revoked (or cancelled) registration is ended whatever its day: its expiry is not a
        # second reason ("CASSADO" and "CANCELADO" side by side)
        if d.registration_expiry is not None and d.status != "revoked":
            out.append(_registration(r, d, c))
    if r.value("requirements.cnh") and d.cnh_expiry is not None:
        c = r.cite("requirements.cnh")
        if d.cnh_expiry < on:
            out.append(Violation("driver.cnh.expired", f"CNH do condutor vencida em "
                                 f"{fmt_date(d.cnh_expiry)}.", c, subject=subject,
                                 due_on=d.cnh_expiry))
        else:
            out.append(_due("driver.cnh.due", "CNH do condutor vence em {date}.", c, subject,
                            d.cnh_expiry, on))
    need = r.value("limits.driver.cnh_category")
    if need and d.cnh_category and need.upper() not in d.cnh_category.upper():
        out.append(Violation("driver.cnh.category", r.message(
            "limits.driver.cnh_category",
            "CNH categoria {category}: é exigida a categoria {need}.",
            category=d.cnh_category, need=need), r.cite("limits.driver.cnh_category"),
            subject=subject))
    return [x for x in out if x is not None]


def _registration(r: Rules, d: DriverFacts, c: Citation) -> Violation | None:
    on, expiry = r.on, d.registration_expiry
    c = r.cite("periodicity.registration_months") or c  # "revalidated yearly" where the law says so
    if expiry >= on:
        return _due("driver.registration.due", "Inscrição do condutor vence em {date}.", c,
                    d.subject, expiry, on)
    grace = r.value("periodicity.registration_grace_days")
    if grace is None:
        return Violation("driver.registration.expired", f"Inscrição do condutor vencida em "
                         f"{fmt_date(expiry)}.", c, subject=d.subject, due_on=expiry)
    cg = r.cite("periodicity.registration_grace_days")
    cancel = expiry + timedelta(days=grace)   # the last day it may still be revalidated
    # a message names the day the thing happens: cancelled the day after that last day
    # `due_on` stays the last day (the tick's act keys are built on it)
    cancelled = cancel + timedelta(days=1)
    if on <= cancel:
        return Violation("driver.registration.expired", f"Inscrição do condutor vencida em "
                         f"{fmt_date(expiry)}; sem revalidação até {fmt_date(cancel)} será "
                         f"cancelada em {fmt_date(cancelled)}.", cg, subject=d.subject,
                         due_on=cancel)
    return Violation("driver.registration.cancelled", f"Inscrição do condutor cancelada "
                     f"automaticamente em {fmt_date(cancelled)}: não foi revalidada em até "
                     f"{grace} dias após o vencimento ({fmt_date(expiry)}).", cg,
                     subject=d.subject, due_on=cancel)


# --- standing ------------------------------------------------------------------------------------

def standing_status(reasons: list[Violation]) -> str:
    """regular when nothing is wrong; suspended when all that is wrong is a suspension."""
    if not reasons:
        return "regular"
    return "suspended" if all(x.effect == "suspended" for x in reasons) else "irregular"


def vehicle_check(r: Rules, v: VehicleFacts) -> tuple[list[Violation], list[Violation]]:
    """(violations, warnings) of one vehicle: its limits and its documents."""
    found = vehicle_limit_violations(r, v) + vehicle_document_violations(r, v)
    warn = age_warning(r, v)
    if warn is not None:
        found.append(warn)
    return ([x for x in found if x.severity == "violation"],
            [x for x in found if x.severity == "warning"])
