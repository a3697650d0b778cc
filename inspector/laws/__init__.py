"""The laws in force: which checklist applies to a town, service and day, the town's
compliance with its law, and the pages that show the law texts."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.laws.causes import preloaded_causes, status_causes
from inspector.laws.compliance import (
    TownCompliance,
    article_citation,
    driver_facts,
    driver_standing,
    fiscal_unit_of,
    propose_sanction,
    propose_step,
    town_compliance,
    town_facts,
    vehicle_facts,
    vehicle_standing,
)
from inspector.laws.compliance_page import build_compliance_page, pct
from inspector.laws.folders import forget_rules, use_rules_dirs
from inspector.laws.in_force import NoLawInForce, checklist, checklists_in_force, decrees_in_force
from inspector.laws.pages import (
    CHECKS_LABELS,
    NoChecklist,
    checklist_for,
    fmt_date,
    law_index,
    law_summary,
    outline,
)
from inspector.laws.standing import (
    driver_documents_of,
    first_reason,
    plain_reason,
    standing_of,
    town_standings,
)
from inspector.laws.town_calendar import (
    FIRST_YEAR,
    LAST_YEAR,
    act_text,
    add_closure,
    calendar_for,
    entered_years,
    remove_closure,
    set_year_entered,
    year_view,
)
from inspector.laws.verdict import Reason, Verdict, combine_verdicts, verdict_of, verdict_of_standing

__all__ = [
    "CHECKS_LABELS", "FIRST_YEAR", "LAST_YEAR", "NoChecklist", "NoLawInForce", "Reason", "TownCompliance",
    "Verdict", "act_text", "add_closure", "article_citation", "build_compliance_page", "calendar_for",
    "checklist", "checklist_for", "checklists_in_force", "combine_verdicts", "decrees_in_force",
    "driver_documents_of", "driver_facts", "driver_standing", "entered_years", "first_reason",
    "fiscal_unit_of", "fmt_date", "forget_rules", "law_index", "law_summary", "outline", "pct",
    "plain_reason", "preloaded_causes", "propose_sanction", "propose_step", "remove_closure",
    "set_year_entered", "standing_of", "status_causes", "town_compliance", "town_facts", "town_standings",
    "use_rules_dirs", "vehicle_facts", "vehicle_standing", "verdict_of", "verdict_of_standing", "year_view"
]
