"""The five laws as data: law texts, rule packs, a strict loader and a pure engine.

Imports no Flask and no SQLAlchemy. Format and readings: docs/rule-packs.md.

- `load_all()` every shipped pack (cached); `law_text(slug)` a law split into anchored units.
- `find_pack`, `checklist`, `vehicle_violations`, `driver_violations`: one town, service, day.
- `town_report(registry, on)`: a town's registry against its law.
- `propose_sanction(town, service, finding, history, on, grant=None)`: step, amount, deadline,
  appeal; `grant_option(pack, rule_id, on)`: the discretionary deadline a finding may get.
"""
from inspector.rules.calendar import (
    Closure,
    TownCalendar,
    deadline_days,
    deadline_hours,
    official_holidays,
    why_no_office,
)
from inspector.rules.draft import DraftError, build_draft, check_town_slug, read_law_file
from inspector.rules.engine import (
    DUE_SOON_DAYS,
    AgeLimit,
    Rules,
    ValidityLimit,
    add_months,
    add_years,
    age_limit,
    age_limits,
    checklist,
    checklist_of,
    driver_rule_violations,
    driver_violations,
    find_pack,
    fmt_date,
    months_later,
    packs_for_town,
    resolve,
    rules_on,
    standing_status,
    validity_limit,
    validity_violation,
    vehicle_age,
    vehicle_check,
    vehicle_document_violations,
    vehicle_limit_violations,
    vehicle_violations,
    vistoria_end,
)
from inspector.rules.errors import LawNotInForce, RulesError, UnknownService, UnknownTown
from inspector.rules.facts import (
    DatedAmount,
    DriverFacts,
    Finding,
    HolderFacts,
    InsuranceFacts,
    LicenceFacts,
    PermitFacts,
    PriorSanction,
    Registry,
    StatusCause,
    TownFacts,
    VehicleFacts,
)
from inspector.rules.lawtext import Block, LawText, Unit
from inspector.rules.loader import (
    LAWS_DIR,
    PACKS_DIR,
    SERVICES,
    UNITS,
    RulePackError,
    extra_dirs,
    load_all,
    load_dir,
    load_pack,
    set_extra_dirs,
)
from inspector.rules.model import (
    DEFAULT_COUNTING,
    INSPECTION_KINDS,
    KIND_LABELS,
    Amount,
    Appeal,
    ChecklistItem,
    Counting,
    Measure,
    Override,
    Parameter,
    RulePack,
    SuspensionBounds,
)
from inspector.rules.proof import Proof, proof_of
from inspector.rules.registry import QuotaUse, ShareUse, TownReport, town_report
from inspector.rules.results import Citation, Violation
from inspector.rules.sanctions import (
    GRANT_REASON_MAX,
    GRANT_REASON_MIN,
    UNDEFINED,
    Grant,
    GrantOption,
    GrantRefused,
    Money,
    NoSanction,
    Proposal,
    brl,
    decree_label,
    foreign_unit,
    grant_option,
    grant_text,
    money,
    number_text,
    propose_sanction,
    propose_step,
    unit_value,
)
from inspector.rules.texts import law_text, law_texts
from inspector.rules.validate import validate_path
from inspector.rules.vistoria import ROLE_LABELS, VistoriaPlan, plans_of, vistoria_plan, why_none

__all__ = [
    "DUE_SOON_DAYS", "AgeLimit", "Block", "ChecklistItem", "Citation", "DatedAmount", "DriverFacts",
    "Finding", "HolderFacts", "Proof", "proof_of", "InsuranceFacts", "LAWS_DIR", "LawNotInForce", "LawText",
    "LicenceFacts", "Money", "NoSanction", "PACKS_DIR", "PermitFacts", "PriorSanction", "StatusCause",
    "Proposal", "QuotaUse", "Registry", "RulePack", "RulePackError", "Rules", "RulesError",
    "ShareUse", "TownFacts", "TownReport", "Unit", "UnknownService", "UnknownTown",
    "VehicleFacts", "Violation", "checklist", "checklist_of", "driver_rule_violations",
    "driver_violations", "find_pack", "law_text", "law_texts", "load_all", "load_dir",
    "load_pack", "packs_for_town", "propose_sanction", "resolve", "rules_on",
    "standing_status", "town_report", "vehicle_age", "vehicle_check",
    "vehicle_document_violations", "vehicle_limit_violations", "vehicle_violations",
    "vistoria_end",
]
__all__ += ["add_years", "age_limit", "age_limits", "propose_step"]
__all__ += ["ValidityLimit", "months_later", "validity_limit", "validity_violation"]
__all__ += ["Grant", "GrantOption", "GrantRefused", "grant_option"]
# what the legal calendar, the pack model, money and the loader give the areas above
__all__ += ["Closure", "TownCalendar", "deadline_days", "deadline_hours", "official_holidays",
            "add_months", "fmt_date", "SERVICES", "UNITS", "extra_dirs", "set_extra_dirs",
            "DEFAULT_COUNTING", "Amount",
            "Appeal", "Counting", "Measure", "Override", "Parameter", "SuspensionBounds", "GRANT_REASON_MAX",
            "GRANT_REASON_MIN", "UNDEFINED", "brl", "decree_label", "foreign_unit", "grant_text",
            "money", "number_text", "unit_value", "validate_path"]
# the law's vistorias (docs/vistoria.md)
__all__ += ["INSPECTION_KINDS", "KIND_LABELS", "ROLE_LABELS", "VistoriaPlan", "plans_of",
            "vistoria_plan", "why_none"]
__all__ += ["why_no_office"]  # the agenda's days without office
__all__ += ["DraftError", "build_draft", "check_town_slug", "read_law_file"]  # `rules draft`
