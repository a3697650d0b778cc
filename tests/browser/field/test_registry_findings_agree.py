"""The phone and the review pick the same checklist items for what the registry knows ("one
truth at a glance"). For every shipped pack and every finding the engine reports (and the
words it has for nothing any item checks), the field app's own code in Chromium
(`registryFailures`, the items as the snapshot carries them) pre-marks exactly the items the
server's review flags (`inspections/registry_check.items_for`), both read from the pack's
`registry_findings`. And the phone names a driver's problem with the engine's rule id
(`driverProblems`), so a pack naming one exactly is read the same on both sides."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from inspector import rules
from inspector.clock import default_day
from inspector.field.snapshot import requirements_of
from inspector.inspections.registry_check import items_for
from inspector.rules.facts import DriverFacts
from inspector.rules.loader import REGISTRY_FINDINGS

pytestmark = pytest.mark.browser

# rule ids no item may check: the phone must list them above the checklist, as the review does
OTHERS = ("permit.missing", "vistoria.missing", "insurance.due", "law.none", "town.person_permits")

JUDGE = """async ({ packs, ids, drivers }) => {
    const { registryFailures } = await import('/static/js/field/inspection.js');
    const { driverProblems } = await import('/static/js/field/situation.js');
    const out = {};
    for (const p of packs) {
        const items = {};
        for (const id of ids) {
            const found = registryFailures(p.items, [{ rule_id: id, message: 'Motivo.' }]);
            items[id] = { marked: Object.keys(found.byItem), loose: found.loose.length };
        }
        const named = (d) => driverProblems(d, p.req).map((x) => x.rule_id).sort();
        out[p.id] = { items, drivers: drivers.map(named) };
    }
    return out;
}"""


def _drivers(today):
    """Drivers as the snapshot carries them (rows) and as the engine reads them (facts): one
    problem each, days far enough from today that the phone's clock and Mato Grosso's agree."""
    def day(n):
        return today + timedelta(days=n)

    base = {"status": "active", "suspended_until": None, "registration_expiry": day(200),
            "cnh_expiry": day(400), "cnh_category": "A"}
    variants = [{}, {"status": "revoked"}, {"status": "suspended", "suspended_until": day(20)},
                {"registration_expiry": day(-10)}, {"registration_expiry": day(-100)},
                {"cnh_expiry": day(-10)}, {"cnh_category": "B"}]
    drivers = [base | v for v in variants]
    rows = [{k: v.isoformat() if isinstance(v, date) else v for k, v in d.items()}
            for d in drivers]
    return rows, [DriverFacts(**d) for d in drivers]


def test_the_phone_premarks_what_the_review_flags_for_every_pack(page, app):
    today = default_day()
    packs = rules.load_all()
    ids = sorted(set(REGISTRY_FINDINGS) | {"driver.registration", "driver.cnh"} | set(OTHERS))
    rows, facts = _drivers(today)
    with app.app_context():
        sent = [{"id": p.id, "items": [i.as_dict() for i in p.checklist],
                 "req": requirements_of(rules.rules_on(p, today))} for p in packs]
    page.goto("/leis")  # any page of the site: the modules are imported as the app does
    phone = page.evaluate(JUDGE, {"packs": sent, "ids": ids, "drivers": rows})

    marked_somewhere = 0
    for pack in packs:
        for rule_id in ids:
            server = list(items_for(pack, rule_id))
            got = phone[pack.id]["items"][rule_id]
            assert got["marked"] == server, (pack.id, rule_id)
            assert got["loose"] == (0 if server else 1), (pack.id, rule_id)
            marked_somewhere += bool(server)
        r = rules.rules_on(pack, today)
        engine = [sorted(v.rule_id for v in rules.driver_rule_violations(r, f)
                         if v.severity == "violation") for f in facts]
        assert phone[pack.id]["drivers"] == engine, pack.id
    # the comparison is not empty: every pack has items the registry's findings pre-mark
    assert marked_somewhere >= 20
    assert all(any(items_for(p, i) for i in ids) for p in packs)
