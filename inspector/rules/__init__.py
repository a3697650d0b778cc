"""The five laws as data: law texts, rule packs, a strict loader and a pure engine.

Imports no Flask and no SQLAlchemy. Format and readings: docs/rule-packs.md.

- `load_all()` every shipped pack (cached); `law_text(slug)` a law split into anchored units.
- `find_pack`, `checklist`, `vehicle_violations`, `driver_violations`: one town, service, day.
- `town_report(registry, on)`: a town's registry against its law.
- `propose_sanction(town, service, finding, history, on, grant=None)`: step, amount, deadline,
  appeal; `grant_option(pack, rule_id, on)`: the discretionary deadline a finding may get.
"""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
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
    Rules,
    add_months,
    checklist_of,
    driver_rule_violations,
    find_pack,
    fmt_date,
    packs_for_town,
    resolve,
    rules_on,
    standing_status,
    validity_limit,
    validity_violation,
    vehicle_check,
    vehicle_document_violations,
    vehicle_violations,
    vistoria_end,
)
from inspector.rules.errors import RulesError
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
from inspector.rules.lawtext import LawText
from inspector.rules.loader import (
    LAWS_DIR,
    PACKS_DIR,
    SERVICES,
    UNITS,
    RulePackError,
    load_all,
    set_extra_dirs,
)
from inspector.rules.model import (
    DEFAULT_COUNTING,
    FINE_KINDS,
    ActKind,
    Amount,
    Appeal,
    Counting,
    Measure,
    Override,
    Parameter,
    RulePack,
    SuspensionBounds,
)
from inspector.rules.proof import proof_of
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
from inspector.rules.vistoria import plans_of, vistoria_plan, why_none

__all__ = [
    "ActKind", "Amount", "Appeal", "Citation", "Closure", "Counting", "DEFAULT_COUNTING", "DatedAmount",
    "DraftError", "DriverFacts", "FINE_KINDS", "Finding", "GRANT_REASON_MAX", "GRANT_REASON_MIN", "Grant",
    "GrantOption", "GrantRefused", "HolderFacts", "InsuranceFacts", "LAWS_DIR", "LawText", "LicenceFacts",
    "Measure", "Money", "NoSanction", "Override", "PACKS_DIR", "Parameter", "PermitFacts",
    "PriorSanction", "Proposal", "QuotaUse", "Registry", "RulePack", "RulePackError", "Rules",
    "RulesError", "SERVICES", "ShareUse", "StatusCause", "SuspensionBounds", "TownCalendar", "TownFacts",
    "TownReport", "UNDEFINED", "UNITS", "VehicleFacts", "Violation", "add_months", "brl", "build_draft",
    "check_town_slug", "checklist_of", "deadline_days", "deadline_hours", "decree_label",
    "driver_rule_violations", "find_pack", "fmt_date", "foreign_unit", "grant_option", "grant_text",
    "law_text", "law_texts", "load_all", "money", "number_text", "official_holidays", "packs_for_town",
    "plans_of", "proof_of", "propose_sanction", "propose_step", "read_law_file", "resolve", "rules_on",
    "set_extra_dirs", "standing_status", "town_report", "unit_value", "validate_path", "validity_limit",
    "validity_violation", "vehicle_check", "vehicle_document_violations", "vehicle_violations",
    "vistoria_end", "vistoria_plan", "why_no_office", "why_none"
]
