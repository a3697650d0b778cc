"""The strict rule-pack loader: every error names the file and the key path.

Rejected: unknown keys, duplicate keys, bad dates, a missing citation, a cited article,
paragraph, item or alínea the law text does not have, a quote not found in the cited
unit, an unknown parameter, an undeclared decree key, two packs of one town and service
in force on the same day.
"""
from __future__ import annotations

import functools
from datetime import date, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from inspector.rules.model import (
    AUTHORITIES,
    DEFAULT_COUNTING,
    FINE_KINDS,
    OVERRIDES,
    SUSPENSION_KINDS,
    ActKind,
    Amount,
    Appeal,
    ChecklistItem,
    Counting,
    Deadline,
    DecreeKey,
    Measure,
    Offence,
    Override,
    Parameter,
    Reincidence,
    RulePack,
    Span,
    Step,
    SuspensionBounds,
    Version,
    VistoriaKind,
    VistoriaRules,
    finding_matches,
)
from inspector.rules.reading import (
    RulePackError,
    _bool,
    _choice,
    _citation,
    _Ctx,
    _date,
    _decimal,
    _int,
    _mapping,
    _parse,
    _span,
    _str,
)

HERE = Path(__file__).resolve().parent
PACKS_DIR = HERE / "packs"
LAWS_DIR = HERE / "laws"

SERVICES = ("taxi", "mototaxi")
UNITS = ("UFM", "UFIM", "minimum_wage", "BRL")
CHECKS = ("vehicle", "equipment", "document", "driver", "passenger", "conduct")
MEASURE_KINDS = tuple(k.value for k in ActKind)
TARGETS = ("driver", "holder", "permit", "licence", "registration", "vehicle", "company")
GRANTS = ("vehicle_not_affecting_safety",)  # who may get a discretionary deadline
COUNTING_RULES = ("continuous", "business")
# Rule ids the engine reports (or a supervisor records) that an offence may name.
RULE_IDS = ("vehicle.age", "vehicle.cc.min", "vehicle.cc.max", "vehicle.trail", "vehicle.doors",
            "licence.missing", "licence.revoked", "licence.suspended", "licence.expired",
            "permit.revoked", "permit.suspended", "permit.expired", "insurance.lapsed",
            "insurance.missing", "vistoria.overdue", "driver.registration.expired",
            "driver.registration.cancelled", "driver.cnh.expired", "driver.cnh.category",
            "town.fleet_cap", "town.quota", "town.company_share", "town.person_vehicles",
            "town.auxiliaries", "holder.employer_inaction",
            # recorded by a supervisor on the review of an inspection with a failed item:
            # an infraction the authority judges grave (Nova Santa Helena Art. 25 III), an
            # inquiry with full defence concluded (Art. 29)
            "infraction.grave", "inquiry.concluded")

# What the engine reports against a vehicle or its driver as a violation (engine.py
# vehicle_limit_violations, vehicle_document_violations, driver_rule_violations): the findings a
# checklist item's `registry_findings` may name, one by one or by family ("driver.registration.").
# Warnings (".due", a missing permit) are left out: they fail nothing on the street. A missing
# vistoria is a violation where the law sets a prior vistoria (engine.py).
# tests/pure/test_registry_findings.py runs the engine to keep this list its own.
REGISTRY_FINDINGS = (
    "vehicle.age", "vehicle.cc.min", "vehicle.cc.max", "vehicle.trail", "vehicle.doors",
    "licence.missing", "licence.revoked", "licence.suspended", "licence.expired",
    "licence.not_yet_valid", "permit.revoked", "permit.suspended", "permit.expired",
    "permit.not_yet_valid", "insurance.lapsed", "insurance.missing", "vistoria.overdue",
    "vistoria.missing", "driver.registration.revoked", "driver.registration.suspended",
    "driver.registration.expired", "driver.registration.cancelled", "driver.cnh.expired",
    "driver.cnh.category")

# Every parameter a pack may set, with the type of its value.
PARAMETERS: dict[str, str] = {
    "limits.vehicle.max_age_years": "int",
    "limits.vehicle.replace_at_age_years": "int",
    "limits.vehicle.min_cc": "int",
    "limits.vehicle.max_cc": "int",
    "limits.vehicle.trail_banned": "bool",
    "limits.vehicle.age_counts_use": "bool",
    "limits.vehicle.allowed_doors": "int_list",
    "limits.driver.max_auxiliaries_per_vehicle": "int",
    "limits.driver.cnh_category": "str",
    "limits.town.fleet_cap": "int",
    "limits.town.inhabitants_per_vehicle": "int",
    "limits.town.inhabitants_per_vehicle_seat": "int",
    "limits.town.inhabitants_per_vehicle_interior": "int",
    "limits.town.company_max_share": "fraction",
    "limits.town.max_vehicles_per_person": "int",
    "periodicity.vistoria_months": "int",
    "periodicity.vistoria_may_be_shortened": "bool",
    "periodicity.licence_months": "int",
    "periodicity.licence_until_year_end": "bool",
    "periodicity.permit_months": "int",
    "periodicity.registration_months": "int",
    "periodicity.registration_grace_days": "int",
    "requirements.licence": "bool",
    "requirements.permit": "bool",
    "requirements.driver_registration": "bool",
    "requirements.cnh": "bool",
    "requirements.insurance": "bool",
    "requirements.no_debt_for_licence": "int_list",
}
SECTIONS = sorted({p.rsplit(".", 1)[0] for p in PARAMETERS})
# The caps on the number of vehicles (the town's, a company's): the registry refuses a save
# that would pass one, unless the pack names the article by which the town may (`override`).
CAPS = ("limits.town.fleet_cap", "limits.town.inhabitants_per_vehicle",
        "limits.town.inhabitants_per_vehicle_seat", "limits.town.inhabitants_per_vehicle_interior",
        "limits.town.company_max_share")


# --- parameters -----------------------------------------------------------------------------------

def _value(ctx: _Ctx, kind: str, data: Any, key: str) -> Any:
    if kind == "int":
        return _int(ctx, data, key)
    if kind == "bool":
        return _bool(ctx, data, key)
    if kind == "str":
        return _str(ctx, data, key)
    if kind == "int_list":
        if not isinstance(data, list) or not data:
            ctx.fail(key, "must be a list of whole numbers")
        return tuple(_int(ctx, x, f"{key}[{i}]") for i, x in enumerate(data))
    if kind == "fraction":
        try:
            f = Fraction(str(data))
        except (ValueError, ZeroDivisionError):
            ctx.fail(key, f"bad share '{data}' (use 1/3 or 0.2)")
        if not 0 < f <= 1:
            ctx.fail(key, "a share must be above 0 and at most 1")
        return f
    raise AssertionError(kind)


def _parameter(ctx: _Ctx, path: str, data: Any, key: str) -> Parameter:
    _mapping(ctx, data, key, required=("values",), optional=("message", "note", "override"))
    override = _override(ctx, data["override"], f"{key}.override", path) \
        if "override" in data else None
    values = data["values"]
    if not isinstance(values, dict) or not values:
        ctx.fail(f"{key}.values", "must map dates to values")
    versions = []
    for raw_day, entry in values.items():
        vkey = f"{key}.values.{raw_day}"
        day = _date(ctx, raw_day, vkey)
        if day < ctx.start:
            ctx.fail(vkey, f"{day} is before the law took effect ({ctx.start})")
        if entry is None:
            versions.append(Version(day, None, None, ended=True))
            continue
        _mapping(ctx, entry, vkey, required=("value", "citation"))
        versions.append(Version(day, _value(ctx, PARAMETERS[path], entry["value"],
                                            f"{vkey}.value"),
                                _citation(ctx, entry["citation"], f"{vkey}.citation")))
    versions.sort(key=lambda v: v.start)
    message = _str(ctx, data["message"], f"{key}.message") if "message" in data else None
    note = _str(ctx, data["note"], f"{key}.note") if "note" in data else None
    return Parameter(path, tuple(versions), message, note, override)


def _override(ctx: _Ctx, data: Any, key: str, path: str) -> Override:
    """`override: {by: decree, citation: ...}`: the article that lets the town pass this cap."""
    if path not in CAPS:
        ctx.fail(key, "only a cap on the number of vehicles may be passed "
                      f"({', '.join(CAPS)})")
    _mapping(ctx, data, key, required=("by", "citation"))
    return Override(_choice(ctx, data["by"], f"{key}.by", OVERRIDES),
                    _citation(ctx, data["citation"], f"{key}.citation"))


def _parameters(ctx: _Ctx, raw: dict) -> dict[str, Parameter]:
    out: dict[str, Parameter] = {}
    for top in ("limits", "periodicity", "requirements"):
        if top not in raw:
            continue
        block = raw[top]
        if not isinstance(block, dict):
            ctx.fail(top, "must be a mapping")
        if top == "limits":
            _mapping(ctx, block, top, optional=("vehicle", "driver", "town"))
            groups = [(f"limits.{g}", block[g]) for g in block]
        else:
            groups = [(top, block)]
        for prefix, group in groups:
            names = [p.rsplit(".", 1)[1] for p in PARAMETERS if p.rsplit(".", 1)[0] == prefix]
            _mapping(ctx, group, prefix, optional=names)
            for name, data in group.items():
                out[f"{prefix}.{name}"] = _parameter(ctx, f"{prefix}.{name}", data,
                                                     f"{prefix}.{name}")
    return out


# --- sanctions ----------------------------------------------------------------------------------

def _amount(ctx, data, key, decree_keys) -> Amount:
    _mapping(ctx, data, key, optional=("unit", "amount", "max", "decree", "per"))
    decree = data.get("decree")
    if decree is not None and decree not in decree_keys:
        ctx.fail(f"{key}.decree", f"decree key '{decree}' is not declared under 'decree'")
    if sum(k in data for k in ("amount", "max", "decree")) != 1:
        ctx.fail(key, "give exactly one of amount, max or decree")
    unit = data.get("unit")
    if decree is None:
        unit = _choice(ctx, unit, f"{key}.unit", UNITS)
    elif unit is not None:
        ctx.fail(f"{key}.unit", "a decree value carries its own unit")
    per = data.get("per")
    if per is not None and per != "day":
        ctx.fail(f"{key}.per", "only 'day' is known")
    return Amount(unit=unit,
                  amount=_decimal(ctx, data["amount"], f"{key}.amount") if "amount" in data
                  else None,
                  max=_decimal(ctx, data["max"], f"{key}.max") if "max" in data else None,
                  decree=decree, per=per)


def _appeal(ctx, data, key) -> Appeal:
    _mapping(ctx, data, key, required=("days", "to", "suspensive", "citation"))
    days = data["days"]
    return Appeal(days=None if days is None else _int(ctx, days, f"{key}.days"),
                  to=_choice(ctx, data["to"], f"{key}.to", AUTHORITIES),
                  suspensive=None if data["suspensive"] is None
                  else _bool(ctx, data["suspensive"], f"{key}.suspensive"),
                  citation=_citation(ctx, data["citation"], f"{key}.citation"))


def _measure(ctx, data, key, decree_keys) -> Measure:
    _mapping(ctx, data, key, required=("kind", "target", "label", "decided_by", "citation"),
             optional=("fine", "appeal", "automatic", "copy_to_company", "repeat_only",
                       "immediate"))
    kind = ActKind(_choice(ctx, data["kind"], f"{key}.kind", MEASURE_KINDS))
    fine = _amount(ctx, data["fine"], f"{key}.fine", decree_keys) if "fine" in data else None
    if kind in FINE_KINDS and fine is None:
        ctx.fail(f"{key}.fine", "a fine needs its amount (or its decree key)")
    return Measure(kind=kind, target=_choice(ctx, data["target"], f"{key}.target", TARGETS),
                   label=_str(ctx, data["label"], f"{key}.label"),
                   decided_by=_choice(ctx, data["decided_by"], f"{key}.decided_by", AUTHORITIES),
                   citation=_citation(ctx, data["citation"], f"{key}.citation"), fine=fine,
                   appeal=_appeal(ctx, data["appeal"], f"{key}.appeal") if "appeal" in data
                   else None,
                   automatic=_bool(ctx, data["automatic"], f"{key}.automatic")
                   if "automatic" in data else False,
                   copy_to_company=_copy_to_company(ctx, data, key),
                   repeat_only=_bool(ctx, data["repeat_only"], f"{key}.repeat_only")
                   if "repeat_only" in data else False,
                   immediate=_bool(ctx, data["immediate"], f"{key}.immediate")
                   if "immediate" in data else False)


def _copy_to_company(ctx, data, key):
    """The citation of a law that wants a copy of the act sent to the company, or None."""
    if "copy_to_company" not in data:
        return None
    entry = data["copy_to_company"]
    _mapping(ctx, entry, f"{key}.copy_to_company", required=("citation",), optional=())
    return _citation(ctx, entry["citation"], f"{key}.copy_to_company.citation")


def _measures(ctx, data, key, decree_keys) -> tuple[Measure, ...]:
    if not isinstance(data, list) or not data:
        ctx.fail(key, "must be a non-empty list")
    return tuple(_measure(ctx, m, f"{key}[{i}]", decree_keys) for i, m in enumerate(data))


def _deadline(ctx, data, key) -> Deadline:
    _mapping(ctx, data, key, required=("citation",), optional=("hours", "days", "grant"))
    if ("hours" in data) == ("days" in data):
        ctx.fail(key, "give exactly one of hours or days")
    grant = data.get("grant")
    if grant is not None and "days" not in data:
        ctx.fail(f"{key}.grant", "a granted deadline is a number of days")
    return Deadline(citation=_citation(ctx, data["citation"], f"{key}.citation"),
                    hours=_int(ctx, data["hours"], f"{key}.hours") if "hours" in data else None,
                    days=_int(ctx, data["days"], f"{key}.days") if "days" in data else None,
                    grant=None if grant is None
                    else _choice(ctx, grant, f"{key}.grant", GRANTS))


def _reincidence(ctx, data, key) -> Reincidence:
    _mapping(ctx, data, key, required=("within_months", "citation"), optional=("note",))
    months = _int(ctx, data["within_months"], f"{key}.within_months")
    if months < 1:
        ctx.fail(f"{key}.within_months", "must be at least 1")
    return Reincidence(months, _citation(ctx, data["citation"], f"{key}.citation"),
                       _str(ctx, data["note"], f"{key}.note") if data.get("note") else None)


def _finding(ctx, data, key, checklist_ids) -> str:
    f = _str(ctx, data, key)
    base = f.split(":", 1)[0]
    if f not in RULE_IDS and base not in checklist_ids:
        ctx.fail(key, f"'{f}' is neither a checklist id (optionally 'id:qualifier') "
                 "nor a known rule id")
    return f


def _suspension(ctx, data, key) -> SuspensionBounds:
    _mapping(ctx, data, key, required=("default_days", "max_days", "citation"),
             optional=("min_days", "note", "permit_citation"))
    low = _int(ctx, data.get("min_days", 1), f"{key}.min_days")
    default = _int(ctx, data["default_days"], f"{key}.default_days")
    high = _int(ctx, data["max_days"], f"{key}.max_days")
    if not 1 <= low <= default <= high:
        ctx.fail(key, "need 1 <= min_days <= default_days <= max_days")
    permit = data.get("permit_citation")
    return SuspensionBounds(default, high, _citation(ctx, data["citation"], f"{key}.citation"),
                            low, _str(ctx, data["note"], f"{key}.note") if data.get("note")
                            else None,
                            None if permit is None
                            else _citation(ctx, permit, f"{key}.permit_citation"))


def _sanctions(ctx, raw, pack_span, decree_keys, checklist_ids):
    data = _mapping(ctx, raw, "sanctions",
                    optional=("appeal", "suspension", "ladder", "offences"))
    appeal = _appeal(ctx, data["appeal"], "sanctions.appeal") if data.get("appeal") else None
    ladder, ids = [], set()
    for i, s in enumerate(data.get("ladder") or []):
        key = f"sanctions.ladder[{i}]"
        _mapping(ctx, s, key, required=("id", "occurrence", "measures"),
                 optional=("deadlines", "on_missed_deadline", "from", "to", "note", "gravity",
                           "reincidence"))
        sid = _str(ctx, s["id"], f"{key}.id")
        if sid in ids:
            ctx.fail(f"{key}.id", f"duplicate id '{sid}'")
        ids.add(sid)
        deadlines = tuple(_deadline(ctx, d, f"{key}.deadlines[{j}]")
                          for j, d in enumerate(s.get("deadlines") or []))
        missed = s.get("on_missed_deadline")
        ladder.append(Step(
            id=sid, occurrence=_int(ctx, s["occurrence"], f"{key}.occurrence"),
            measures=_measures(ctx, s["measures"], f"{key}.measures", decree_keys),
            deadlines=deadlines,
            on_missed_deadline=_measure(ctx, missed, f"{key}.on_missed_deadline", decree_keys)
            if missed else None,
            span=_span(ctx, s, key, pack_span),
            note=_str(ctx, s["note"], f"{key}.note") if s.get("note") else None,
            gravity=_bool(ctx, s["gravity"], f"{key}.gravity") if "gravity" in s else False,
            reincidence=_reincidence(ctx, s["reincidence"], f"{key}.reincidence")
            if "reincidence" in s else None))
    if ladder and all(s.gravity for s in ladder):
        ctx.fail("sanctions.ladder", "every rung is `gravity`: nothing would ever be proposed")
    offences = []
    for i, o in enumerate(data.get("offences") or []):
        key = f"sanctions.offences[{i}]"
        _mapping(ctx, o, key, required=("id", "label", "findings", "measures"),
                 optional=("from", "to", "note"))
        oid = _str(ctx, o["id"], f"{key}.id")
        if oid in ids:
            ctx.fail(f"{key}.id", f"duplicate id '{oid}'")
        ids.add(oid)
        findings = o["findings"]
        if not isinstance(findings, list) or not findings:
            ctx.fail(f"{key}.findings", "must list the rule ids that constitute the offence")
        offences.append(Offence(
            id=oid, label=_str(ctx, o["label"], f"{key}.label"),
            findings=tuple(_finding(ctx, f, f"{key}.findings[{j}]", checklist_ids)
                           for j, f in enumerate(findings)),
            measures=_measures(ctx, o["measures"], f"{key}.measures", decree_keys),
            span=_span(ctx, o, key, pack_span),
            note=_str(ctx, o["note"], f"{key}.note") if o.get("note") else None))
    measures = [m for s in ladder for m in s.measures + ((s.on_missed_deadline,)
                                                          if s.on_missed_deadline else ())]
    measures += [m for o in offences for m in o.measures]
    suspension = _suspension(ctx, data["suspension"], "sanctions.suspension") \
        if "suspension" in data else None
    if suspension is None and any(m.kind in SUSPENSION_KINDS
                                  for m in measures):
        ctx.fail("sanctions.suspension", "the pack has suspension measures: give default_days "
                 "and max_days (no law here sets a length: say the reading in a note)")
    return appeal, suspension, \
        tuple(sorted(ladder, key=lambda s: (s.occurrence, s.span.start))), tuple(offences)


# --- the pack -------------------------------------------------------------------------------------

_TOP = ("format", "id", "town", "town_name", "service", "law", "in_force", "fiscal_unit",
        "counting", "checklist", "limits", "periodicity", "requirements", "sanctions", "decree",
        "vistoria", "notes")
VISTORIA_KINDS = ("prior", "periodic")
VISTORIA_ROLES = ("agent", "supervisor")  # who may perform one: a role of the app


def _vistoria(ctx, raw, parameters, checklist_ids) -> VistoriaRules:
    """`vistoria: {performed_by: {role, citation}, kinds: [{kind, checks, citation, validity}],
    note}` or `vistoria: {none: "why"}` (docs/rule-packs.md, "Vistorias"). A pack without the
    key offers none. A periodic vistoria lasts the pack's `periodicity.vistoria_months`; a
    prior one too, unless its law gives it a validity of its own."""
    if raw is None:
        return VistoriaRules(none="A lei deste pacote não prevê vistoria: só a fiscalização "
                                  "é feita.")
    data = _mapping(ctx, raw, "vistoria", optional=("performed_by", "kinds", "none", "note"))
    note = _str(ctx, data["note"], "vistoria.note") if data.get("note") else None
    if "none" in data:
        if "kinds" in data or "performed_by" in data:
            ctx.fail("vistoria.none", "a law that sets no vistoria names no kinds and no one "
                                      "to perform them")
        return VistoriaRules(none=_str(ctx, data["none"], "vistoria.none"), note=note)
    if not data.get("kinds") or not isinstance(data["kinds"], list):
        ctx.fail("vistoria.kinds", "list the kinds the law sets (prior, periodic), or say "
                                   "why there is none with `none`")
    who = _mapping(ctx, data.get("performed_by"), "vistoria.performed_by",
                   required=("role", "citation"))
    role = _choice(ctx, who["role"], "vistoria.performed_by.role", VISTORIA_ROLES)
    kinds: list[VistoriaKind] = []
    months = parameters.get("periodicity.vistoria_months")
    for i, k in enumerate(data["kinds"]):
        key = f"vistoria.kinds[{i}]"
        _mapping(ctx, k, key, required=("kind", "checks", "citation"),
                 optional=("validity", "except", "note"))
        name = _choice(ctx, k["kind"], f"{key}.kind", VISTORIA_KINDS)
        if any(x.kind == name for x in kinds):
            ctx.fail(f"{key}.kind", f"'{name}' is listed twice")
        checks = k["checks"]
        if not isinstance(checks, list) or not checks:
            ctx.fail(f"{key}.checks", "list the checklist sections it checks")
        checks = tuple(_choice(ctx, c, f"{key}.checks[{j}]", CHECKS) for j, c in enumerate(checks))
        left_out = k.get("except") or []
        if not isinstance(left_out, list):
            ctx.fail(f"{key}.except", "list the checklist ids this vistoria does not check")
        for j, iid in enumerate(left_out):
            if iid not in checklist_ids:
                ctx.fail(f"{key}.except[{j}]", f"unknown checklist id '{iid}'")
        own_months = own_cite = None
        if "validity" in k:
            if name == "periodic":
                ctx.fail(f"{key}.validity", "a periodic vistoria lasts the pack's "
                                            "periodicity.vistoria_months")
            v = _mapping(ctx, k["validity"], f"{key}.validity", required=("months", "citation"))
            own_months = _int(ctx, v["months"], f"{key}.validity.months")
            if own_months < 1:
                ctx.fail(f"{key}.validity.months", "must be at least 1")
            own_cite = _citation(ctx, v["citation"], f"{key}.validity.citation")
        elif months is None:
            ctx.fail(f"{key}", f"a {name} vistoria needs a period: set "
                               "periodicity.vistoria_months" +
                     ("" if name == "periodic" else " or the kind's own validity"))
        kinds.append(VistoriaKind(
            kind=name, citation=_citation(ctx, k["citation"], f"{key}.citation"), checks=checks,
            left_out=tuple(left_out),
            months=own_months, months_citation=own_cite,
            note=_str(ctx, k["note"], f"{key}.note") if k.get("note") else None))
    return VistoriaRules(kinds=tuple(kinds), performed_by=role,
                         performed_by_citation=_citation(ctx, who["citation"],
                                                         "vistoria.performed_by.citation"),
                         note=note)


def _counting(ctx, raw) -> Counting:
    """`counting: {rule, citation, note}`: absent = Lei 9.784/1999 Art. 66 (continuous days).
    A pack that names a rule cites the words of its own law that set it; `continuous` is the
    default and needs no entry (none of the five laws sets it in words)."""
    if raw is None:
        return DEFAULT_COUNTING
    data = _mapping(ctx, raw, "counting", required=("rule", "citation"), optional=("note",))
    rule = _choice(ctx, data["rule"], "counting.rule", COUNTING_RULES)
    if rule == "continuous":
        ctx.fail("counting.rule", "continuous days are the default (Lei 9.784/1999 Art. 66): "
                                  "leave 'counting' out")
    return Counting(rule, _citation(ctx, data["citation"], "counting.citation"),
                    _str(ctx, data["note"], "counting.note") if data.get("note") else None)


def _checklist(ctx, raw, pack_span, decree_keys=frozenset()) -> tuple[ChecklistItem, ...]:
    if not isinstance(raw, list):
        ctx.fail("checklist", "must be a list")
    items, seen = [], set()
    for i, it in enumerate(raw):
        key = f"checklist[{i}]"
        _mapping(ctx, it, key,
                 required=("id", "label", "help", "checks", "photo_required_on_failure",
                           "affects_safety", "citation"),
                 optional=("from", "to", "seat_population_over", "note", "applies_if_decree",
                           "registry_findings", "repairable"))
        iid = _str(ctx, it["id"], f"{key}.id")
        if iid in seen:
            ctx.fail(f"{key}.id", f"duplicate checklist id '{iid}'")
        seen.add(iid)
        key = f"checklist[{iid}]"
        items.append(ChecklistItem(
            id=iid, label=_str(ctx, it["label"], f"{key}.label"),
            help=_str(ctx, it["help"], f"{key}.help"),
            checks=_choice(ctx, it["checks"], f"{key}.checks", CHECKS),
            photo_required_on_failure=_bool(ctx, it["photo_required_on_failure"],
                                            f"{key}.photo_required_on_failure"),
            affects_safety=_bool(ctx, it["affects_safety"], f"{key}.affects_safety"),
            citation=_citation(ctx, it["citation"], f"{key}.citation"),
            span=_span(ctx, it, key, pack_span),
            seat_population_over=_int(ctx, it["seat_population_over"],
                                      f"{key}.seat_population_over")
            if it.get("seat_population_over") is not None else None,
            note=_str(ctx, it["note"], f"{key}.note") if it.get("note") else None,
            applies_if_decree=_decree_ref(ctx, it.get("applies_if_decree"),
                                          f"{key}.applies_if_decree", decree_keys),
            registry_findings=_registry_findings(ctx, it.get("registry_findings"),
                                                 f"{key}.registry_findings"),
            repairable=_bool(ctx, it["repairable"], f"{key}.repairable")
            if "repairable" in it else True))
    return tuple(items)


def _registry_findings(ctx, raw, key) -> tuple[str, ...]:
    """An item's `registry_findings`: each an engine finding (REGISTRY_FINDINGS) or a family of
    them ending in "." that holds at least one; a name the engine never reports is refused,
    or the item would silently never be pre-marked nor flagged."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        ctx.fail(key, "must list the registry findings the item checks (e.g. insurance.lapsed, "
                      "driver.registration.)")
    out: list[str] = []
    for i, f in enumerate(raw):
        name = _str(ctx, f, f"{key}[{i}]")
        if not any(finding_matches(name, r) for r in REGISTRY_FINDINGS):
            ctx.fail(key, f"unknown registry finding '{name}': name one the engine reports "
                          f"({', '.join(REGISTRY_FINDINGS)}) or a family of them ending in "
                          "'.' (e.g. 'driver.registration.')")
        if name in out:
            ctx.fail(key, f"'{name}' is named twice")
        out.append(name)
    return tuple(out)


def _decree_ref(ctx, raw, key, decree_keys) -> str | None:
    """A checklist condition naming one of the pack's `decree` keys."""
    if raw is None:
        return None
    name = _str(ctx, raw, key)
    if name not in decree_keys:
        ctx.fail(key, f"unknown decree key '{name}' (declare it under `decree`)")
    return name


def _decree(ctx, raw) -> tuple[DecreeKey, ...]:
    if not isinstance(raw, list):
        ctx.fail("decree", "must be a list")
    out = []
    for i, d in enumerate(raw):
        key = f"decree[{i}]"
        _mapping(ctx, d, key, required=("key", "label", "unit", "citation"))
        out.append(DecreeKey(key=_str(ctx, d["key"], f"{key}.key"),
                             label=_str(ctx, d["label"], f"{key}.label"),
                             unit=_choice(ctx, d["unit"], f"{key}.unit", UNITS),
                             citation=_citation(ctx, d["citation"], f"{key}.citation")))
    return tuple(out)


def load_pack(path: Path | str, laws_dirs: tuple[Path, ...] = (LAWS_DIR,),
              data: Any = None) -> RulePack:
    """Read and check one pack file; raise RulePackError naming the file and key. `data`:
    the file's YAML already read (`rules validate` reads it once to find every problem)."""
    path = Path(path)
    ctx = _Ctx(path, tuple(laws_dirs))
    text = path.read_text(encoding="utf-8") if data is None else ""
    try:
        raw = _parse(ctx, text) if data is None else data
    except yaml.YAMLError as e:
        ctx.fail("(yaml)", str(e).replace("\n", " "))
    _mapping(ctx, raw, "", required=("format", "id", "town", "town_name", "service", "law",
                                     "in_force", "checklist"), optional=_TOP)
    if raw["format"] != 1:
        ctx.fail("format", "only format 1 is known")
    law = _mapping(ctx, raw["law"], "law", required=("name", "title", "source"),
                   optional=("enacted",))
    ctx.law_name = _str(ctx, law["name"], "law.name")
    source = _str(ctx, law["source"], "law.source")
    ctx.law = ctx.law_text("law.source", source)
    ctx.law_slug = ctx.law.slug
    if "enacted" in law:
        _date(ctx, law["enacted"], "law.enacted")
    inf = _mapping(ctx, raw["in_force"], "in_force", required=("from", "citation"),
                   optional=("to",))
    start = _date(ctx, inf["from"], "in_force.from")
    last = _date(ctx, inf["to"], "in_force.to") if inf.get("to") is not None else None
    span = Span(start, last)
    ctx.start = start
    decree = _decree(ctx, raw.get("decree") or [])
    checklist = _checklist(ctx, raw["checklist"], span, {d.key for d in decree})
    appeal, suspension, ladder, offences = _sanctions(
        ctx, raw["sanctions"], span, {d.key for d in decree}, {i.id for i in checklist}) \
        if raw.get("sanctions") else (None, None, (), ())
    notes = raw.get("notes") or []
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        ctx.fail("notes", "must be a list of texts")
    fiscal_unit = raw.get("fiscal_unit")
    if fiscal_unit is not None:
        _choice(ctx, fiscal_unit, "fiscal_unit", ("UFM", "UFIM"))
    parameters = _parameters(ctx, raw)
    vistoria = _vistoria(ctx, raw.get("vistoria"), parameters, {i.id for i in checklist})
    return RulePack(
        id=_str(ctx, raw["id"], "id"), town=_str(ctx, raw["town"], "town"),
        town_name=_str(ctx, raw["town_name"], "town_name"),
        service=_choice(ctx, raw["service"], "service", SERVICES),
        law=ctx.law_name, law_slug=ctx.law_slug, title=_str(ctx, law["title"], "law.title"),
        source=source, span=span,
        in_force_citation=_citation(ctx, inf["citation"], "in_force.citation"),
        fiscal_unit=fiscal_unit, checklist=checklist, parameters=parameters,
        ladder=ladder, offences=offences, appeal=appeal, decree=decree, path=str(path),
        suspension=suspension, counting=_counting(ctx, raw.get("counting")), vistoria=vistoria)


def load_dir(directory: Path, laws_dirs: tuple[Path, ...] = (LAWS_DIR,)) -> tuple[RulePack, ...]:
    """Every `*.yaml` pack in a folder, checked, and checked against each other."""
    return check_together(tuple(load_pack(p, laws_dirs)
                                for p in sorted(Path(directory).glob("*.yaml"))))


def check_together(packs: tuple[RulePack, ...]) -> tuple[RulePack, ...]:
    """Refuse two packs with one id, or two laws of one town and service in force on the
    same day (RulePackError naming the file)."""
    seen: dict[str, RulePack] = {}
    for p in packs:
        if p.id in seen:
            raise RulePackError(p.path, "id", f"duplicate pack id '{p.id}' "
                                f"(also in {seen[p.id].path})")
        seen[p.id] = p
        for q in packs:
            if q is not p and (q.town, q.service) == (p.town, p.service) and _overlap(p, q):
                raise RulePackError(p.path, "in_force", f"overlaps {q.path}: two laws of "
                                    f"{p.town}/{p.service} in force on the same day")
    return packs


def _overlap(p: RulePack, q: RulePack) -> bool:
    p_last = p.span.last or date.max - timedelta(days=1)
    q_last = q.span.last or date.max - timedelta(days=1)
    return p.span.start <= q_last and q.span.start <= p_last


# Folders of town law outside the package (RULES_EXTRA_DIR, docs/adding-a-town.md): each
# holds `packs/*.yaml` and `laws/*.txt` laid out as inspector/rules/ holds the built-in ones.
_extra_dirs: tuple[Path, ...] = ()


def set_extra_dirs(dirs) -> bool:
    """Read packs and law texts also from these folders (create_app sets RULES_EXTRA_DIR);
    True when that changed, and then the cached packs are read again."""
    global _extra_dirs
    new = tuple(Path(d).resolve() for d in dirs)
    if new == _extra_dirs:
        return False
    _extra_dirs = new
    load_all.cache_clear()
    return True


def extra_dirs() -> tuple[Path, ...]:
    """The folders of town law outside the package, in the order given."""
    return _extra_dirs


def laws_dirs() -> tuple[Path, ...]:
    """Where law texts are looked up: the package's, then each extra folder's `laws/`."""
    return (LAWS_DIR, *(d / "laws" for d in _extra_dirs))


def pack_files() -> list[Path]:
    """Every pack file in use: the package's, then each extra folder's `packs/`."""
    return [p for d in (PACKS_DIR, *(d / "packs" for d in _extra_dirs))
            for p in sorted(d.glob("*.yaml"))]


# bench/caches.py: loading and checking the packs costs ~200 ms a call
@functools.lru_cache(maxsize=1)
def load_all() -> tuple[RulePack, ...]:
    """Every pack shipped in `inspector/rules/packs/` and in the extra folders
    (`set_extra_dirs`), checked together, loaded once and cached."""
    return check_together(tuple(load_pack(p, laws_dirs()) for p in pack_files()))
