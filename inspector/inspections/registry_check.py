"""What the registry said about an inspected vehicle (and its driver) on the inspection's day,
beside each of the agent's answers.

The verdict is the one of `laws.verdict` (the passenger's page, the registry and the agent's
card read the same), judged on the inspection's `rules_day`. A reason is put beside the
checklist items that check the same thing (the insurance item beside a lapsed insurance);
an item answered "Conforme" while the registry holds such a reason is a contradiction the
supervisor must see. Reasons no item checks (a revoked company permit, the vehicle's age)
are listed once, above the answers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from inspector.extensions import db
from inspector.laws import verdict
from inspector.laws.verdict import Reason, Verdict
from inspector.models import Driver, Inspection, ItemResult
from inspector.models.inspections import InspectionItem

# The engine's kinds of finding (rule_id prefixes) and the checklist items, by their ids in
# the packs, that look at the same thing on the street. Ids, not towns: an item a new pack
# names the same way is matched the same way; one it names otherwise is simply not matched
# (its reason still shows above the answers).
TOPICS: dict[str, tuple[str, ...]] = {
    "insurance.": ("insurance",),
    "vehicle.cc.": ("engine-size",),
    "vehicle.trail": ("engine-size",),
    "limits.vehicle.max_cc": ("engine-size",),
    "limits.vehicle.min_cc": ("engine-size",),
    "limits.vehicle.trail_banned": ("engine-size",),
    "vehicle.doors": ("doors",),
    "limits.vehicle.allowed_doors": ("doors",),
    "licence.": ("licence-displayed",),
    "vistoria.": ("vistoria-document", "ciretran-report"),
    "periodicity.vistoria": ("vistoria-document", "ciretran-report"),
    "driver.registration.": ("registered-driver", "id-card", "id-cards", "vest-id"),
    "driver.cnh.": ("registered-driver",),
    "limits.driver.cnh_category": ("registered-driver",),
}


def items_for(rule_id: str) -> tuple[str, ...]:
    """The checklist item ids that check what a finding of this kind is about."""
    for prefix, items in TOPICS.items():
        if rule_id == prefix.rstrip(".") or rule_id.startswith(prefix):
            return items
    return ()


@dataclass(frozen=True)
class ItemCheck:
    """The registry beside one answer: its reasons, and whether the answer contradicts them."""

    reasons: list[Reason]
    contradicts: bool


@dataclass
class RegistryCheck:
    """The registry's verdict on the inspection's day, per item and overall."""

    verdict: Verdict
    driver_known: bool
    by_item: dict[int, ItemCheck] = field(default_factory=dict)
    unmatched: list[Reason] = field(default_factory=list)

    @property
    def contradictions(self) -> int:
        """How many answers say the opposite of the registry."""
        return sum(1 for c in self.by_item.values() if c.contradicts)


def _driver(insp: Inspection, told: dict | None) -> Driver | None:
    ident = told.get("id") if isinstance(told, dict) else None
    if not isinstance(ident, int):
        return None
    driver = db.session.get(Driver, ident)
    return driver if driver is not None and driver.municipality_id == insp.municipality_id \
        else None


def check(insp: Inspection, items: list[InspectionItem], told_driver: dict | None) -> RegistryCheck:
    """The vehicle's verdict (and the driver's, when the agent named a registered one) on the
    inspection's day, put beside the answers that check the same thing."""
    parts = [verdict.of(insp.vehicle, insp.rules_day)]
    driver = _driver(insp, told_driver)
    if driver is not None:
        parts.append(verdict.of(driver, insp.rules_day))
    whole = verdict.combine(parts)
    out = RegistryCheck(whole, driver is not None)
    matched: set[Reason] = set()
    ids = {i.item_id: i for i in items}
    for reason in whole.reasons:
        for item_id in items_for(reason.rule_id):
            item = ids.get(item_id)
            if item is None:
                continue
            matched.add(reason)
            prior = out.by_item.get(item.id)
            reasons = (prior.reasons if prior else []) + [reason]
            # "Não se aplica" on a thing the registry finds failing says the opposite as well
            out.by_item[item.id] = ItemCheck(reasons, item.result != ItemResult.FAIL)
    out.unmatched = [r for r in whole.reasons if r not in matched]
    return out
