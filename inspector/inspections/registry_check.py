"""What the registry said about an inspected vehicle (and its driver) on the inspection's day,
beside each of the agent's answers.

The verdict is the one of `laws.verdict` (the passenger's page, the registry and the agent's
card read the same), judged on the inspection's `rules_day`. A reason is put beside the
checklist items that check the same thing (the insurance item beside a lapsed insurance):
which item checks which finding is the pack's (`registry_findings` of each item, read from
the law's articles), the same the phone pre-marks its checklist with. An item answered
"Conforme" while the registry holds such a reason is a contradiction the supervisor must see.
Reasons no item checks (a revoked company permit, the vehicle's age) are listed once, above
the answers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from inspector import laws, rules
from inspector.extensions import db
from inspector.laws import Reason, Verdict
from inspector.models import Driver, Inspection, InspectionItem, ItemResult, Municipality


def items_for(pack: rules.RulePack | None, rule_id: str) -> tuple[str, ...]:
    """The ids of the pack's checklist items that check what a finding of this kind is about
    (each item's `registry_findings`, docs/rule-packs.md); none without a pack."""
    if pack is None:
        return ()
    return tuple(dict.fromkeys(i.id for i in pack.checklist if i.checks_finding(rule_id)))


def _pack(insp: Inspection) -> rules.RulePack | None:
    """The pack whose checklist the agent answered (the town's law for the service in force on
    the inspection's day), or None when no pack answers for that day any more."""
    town = db.session.get(Municipality, insp.municipality_id)
    try:
        return rules.find_pack(town.slug, insp.service.value, insp.rules_day)
    except rules.RulesError:
        return None


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


def check_registry(insp: Inspection, items: list[InspectionItem], told_driver: dict | None) -> RegistryCheck:
    """The vehicle's verdict (and the driver's, when the agent named a registered one) on the
    inspection's day, put beside the answers that check the same thing."""
    parts = [laws.verdict_of(insp.vehicle, insp.rules_day)]
    driver = _driver(insp, told_driver)
    if driver is not None:
        parts.append(laws.verdict_of(driver, insp.rules_day))
    whole = laws.combine_verdicts(parts)
    out = RegistryCheck(whole, driver is not None)
    matched: set[Reason] = set()
    ids = {i.item_id: i for i in items}
    pack = _pack(insp)
    for reason in whole.reasons:
        for item_id in items_for(pack, reason.rule_id):
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
