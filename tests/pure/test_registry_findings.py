"""Which checklist item checks which registry fact is the pack's (`registry_findings`):
every name a pack gives is one the engine reports under that very pack, the loader's list of
names is the engine's own, and a name the engine never reports is refused naming the pack file
and the item. docs/rule-packs.md "Checklist items"."""
from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path

import pytest

from inspector import rules
from inspector.rules.engine import driver_rule_violations, rules_on, vehicle_check
from inspector.rules.facts import (
    DriverFacts,
    InsuranceFacts,
    LicenceFacts,
    PermitFacts,
    VehicleFacts,
)
from inspector.rules.loader import LAWS_DIR, REGISTRY_FINDINGS, load_pack
from inspector.rules.model import finding_matches
from inspector.rules.validate import validate_pack

SHIPPED = Path(rules.PACKS_DIR)
DAY = date(2026, 12, 1)  # every shipped pack is in force; a fixed day keeps the facts fixed


def _vehicles(day: date) -> list[VehicleFacts]:
    """A vehicle for every way the engine can find one failing, one way each where it can."""
    ok_lic = LicenceFacts("AL-1", day - timedelta(days=30), day + timedelta(days=200))
    ok_permit = PermitFacts("P-1", day - timedelta(days=400))
    ok_ins = (InsuranceFacts(day - timedelta(days=30), day + timedelta(days=300)),)
    base = dict(year_of_manufacture=day.year - 1, engine_cc=150, doors=4, licence=ok_lic,
                permit=ok_permit, insurance=ok_ins, last_vistoria_on=day - timedelta(days=20))
    variants = [
        {}, {"year_of_manufacture": day.year - 20}, {"engine_cc": 50}, {"engine_cc": 900},
        {"is_trail": True}, {"doors": 3}, {"licence": None},
        {"licence": LicenceFacts("AL-2", ok_lic.valid_from, ok_lic.valid_until, "revoked")},
        {"licence": LicenceFacts("AL-3", ok_lic.valid_from, ok_lic.valid_until, "suspended")},
        {"licence": LicenceFacts("AL-4", day - timedelta(days=400), day - timedelta(days=40))},
        {"licence": LicenceFacts("AL-5", day + timedelta(days=5), day + timedelta(days=300))},
        {"permit": PermitFacts("P-2", ok_permit.valid_from, None, "revoked")},
        {"permit": PermitFacts("P-3", ok_permit.valid_from, None, "suspended")},
        {"permit": PermitFacts("P-4", ok_permit.valid_from, day - timedelta(days=3))},
        {"permit": PermitFacts("P-5", day + timedelta(days=3))},
        {"insurance": (InsuranceFacts(day - timedelta(days=400), day - timedelta(days=10)),)},
        {"insurance": ()}, {"last_vistoria_on": day - timedelta(days=800)},
        {"last_vistoria_on": None},
    ]
    return [VehicleFacts(**(base | v)) for v in variants]


def _drivers(day: date) -> list[DriverFacts]:
    base = dict(cnh_category="AB", cnh_expiry=day + timedelta(days=400),
                registration_expiry=day + timedelta(days=200))
    variants = [{}, {"status": "revoked"}, {"status": "suspended"},
                {"registration_expiry": day - timedelta(days=5)},
                {"registration_expiry": day - timedelta(days=400)},
                {"cnh_expiry": day - timedelta(days=5)}, {"cnh_category": "X"}]
    return [DriverFacts(**(base | v)) for v in variants]


def _reported(pack: rules.RulePack, day: date = DAY) -> set[str]:
    """The rule ids of every violation the engine reports under this pack (no warnings)."""
    r = rules_on(pack, day)
    out = {v.rule_id for f in _vehicles(day) for v in vehicle_check(r, f)[0]}
    out |= {v.rule_id for d in _drivers(day)
            for v in driver_rule_violations(r, d) if v.severity == "violation"}
    return out


def test_the_loaders_list_of_findings_is_what_the_engine_reports():
    """REGISTRY_FINDINGS (what a pack may name) holds every violation the engine reports about
    a vehicle or a driver under some shipped pack, and nothing it never reports."""
    reported = set().union(*(_reported(p) for p in rules.load_all()))
    assert reported == set(REGISTRY_FINDINGS)


def test_every_name_a_pack_gives_is_reported_by_the_engine_under_that_pack():
    """A name that pack's law never produces (a trail ban where the law has none, a vistoria
    where it sets no period) would leave the item never pre-marked nor flagged."""
    never = []
    for pack in rules.load_all():
        reported = _reported(pack)
        for item in pack.checklist:
            for name in item.registry_findings:
                if not any(finding_matches(name, rule_id) for rule_id in reported):
                    never.append(f"{pack.id}: {item.id}: {name}")
    assert not never, never
    assert sum(len(i.registry_findings) for p in rules.load_all() for i in p.checklist) >= 13


def _items(pack_id: str, rule_id: str) -> list[str]:
    pack = next(p for p in rules.load_all() if p.id == pack_id)
    return [i.id for i in pack.checklist if i.checks_finding(rule_id)]


@pytest.mark.parametrize(("pack_id", "rule_id", "items"), [
    # Tapurah Arts. 16-17: no service without the insurance in force
    ("tapurah-406-2001", "insurance.lapsed", ["insurance"]),
    # Art. 13: 125-200 cc, no trail
    ("tapurah-406-2001", "vehicle.trail", ["engine-size"]),
    # Art. 22 IV and Art. 15 II carry the rider's inscription with the Secretaria
    ("tapurah-406-2001", "driver.registration.revoked", ["vest-id", "id-card"]),
    # the phone names a rider's problem the engine's way; a bare family still matches
    ("tapurah-406-2001", "driver.registration", ["vest-id", "id-card"]),
    # no item of Tapurah asks the company's permit nor the age: listed above the answers
    ("tapurah-406-2001", "permit.revoked", []),
    ("tapurah-406-2001", "vehicle.age", []),
    # Nortelândia 030 Art. 2: at least 125 cc
    ("nortelandia-030-1998", "vehicle.cc.min", ["engine-size"]),
    # Nortelândia 127 Art. 14 X, Art. 17: the Alvará de Estacionamento displayed
    ("nortelandia-127-2009", "licence.expired", ["displayed-documents"]),
    # Art. 13 VI "devidamente cadastrado"; Art. 7 I: the inscription requires the CNH
    ("nortelandia-127-2009", "driver.cnh.expired", ["registered-driver"]),
    ("nortelandia-127-2009", "driver.registration.cancelled", ["id-card", "registered-driver"]),
    # Nova Santa Helena Art. 13 VI: the vistoria certificate in view
    ("nova-santa-helena-535-2013", "vistoria.overdue", ["fare-table-certificate"]),
    # Art. 13 IV's card is not tied to the inscription (Art. 12)
    ("nova-santa-helena-535-2013", "driver.registration.expired", []),
    # Sapezal Art. 11: 2 or 4 doors; § 2º the vistoria document; Art. 12 III the Alvará
    ("sapezal-060-1998", "vehicle.doors", ["doors"]),
    ("sapezal-060-1998", "vistoria.overdue", ["vistoria-document"]),
    ("sapezal-060-1998", "licence.suspended", ["licence-displayed"]),
    ("sapezal-060-1998", "driver.cnh.category", ["registered-driver"]),
])
def test_the_items_that_check_a_finding_follow_the_law(pack_id, rule_id, items):
    assert _items(pack_id, rule_id) == items


def test_a_family_holds_its_members_and_its_bare_name_only():
    assert finding_matches("driver.registration.", "driver.registration.expired")
    assert finding_matches("driver.registration.", "driver.registration")
    assert not finding_matches("driver.registration.", "driver.registrationx")
    assert not finding_matches("driver.registration.", "driver.cnh.expired")
    assert finding_matches("insurance.lapsed", "insurance.lapsed")
    assert not finding_matches("insurance.lapsed", "insurance.lapsed.more")
    assert not finding_matches("insurance.lapsed", "insurance")


def test_the_snapshot_form_of_an_item_carries_its_findings():
    """The phone reads the same list (ChecklistItem.as_dict, the snapshot's checklist items)."""
    pack = next(p for p in rules.load_all() if p.id == "tapurah-406-2001")
    items = {i.id: i.as_dict() for i in pack.checklist}
    assert items["insurance"]["registry_findings"] == ["insurance.lapsed", "insurance.missing"]
    assert items["mirrors"]["registry_findings"] == []


# --- refusals -------------------------------------------------------------------------------------

def _with_findings(tmp_path: Path, findings: str) -> Path:
    text = (SHIPPED / "tapurah-406-2001.yaml").read_text(encoding="utf-8")
    old = "    registry_findings: [insurance.lapsed, insurance.missing]\n"
    assert old in text
    path = tmp_path / "tapurah-broken.yaml"
    path.write_text(text.replace(old, f"    registry_findings: {findings}\n"), encoding="utf-8")
    return path


@pytest.mark.parametrize(("findings", "reason"), [
    ("[insurance.expired]", r"unknown registry finding 'insurance\.expired'"),
    # a warning ("due soon") fails nothing on the street
    ("[insurance.due]", r"unknown registry finding 'insurance\.due'"),
    ("[insurance.]", None),   # a family the engine reports: accepted
    ("[seguro.]", r"unknown registry finding 'seguro\.'"),
    ("[insurance.lapsed, insurance.lapsed]", r"'insurance\.lapsed' is named twice"),
    ("[]", r"must list the registry findings"),
    ("insurance.lapsed", r"must list the registry findings"),
])
def test_a_name_the_engine_never_reports_is_refused_naming_the_pack_and_the_item(
        tmp_path, findings, reason):
    path = _with_findings(tmp_path, findings)
    if reason is None:
        item = next(i for i in load_pack(path, (LAWS_DIR,)).checklist if i.id == "insurance")
        assert item.registry_findings == ("insurance.",)
        return
    with pytest.raises(rules.RulePackError) as info:
        load_pack(path, (LAWS_DIR,))
    msg = str(info.value)
    assert msg.startswith(f"{path}: checklist[insurance].registry_findings: "), msg
    assert re.search(reason, info.value.reason), msg


def test_rules_validate_reports_the_line_and_goes_on(tmp_path):
    """`rules validate` names the line of the bad list and still finds the next problem."""
    path = _with_findings(tmp_path, "[insurance.expired]")
    text = path.read_text(encoding="utf-8").replace("    registry_findings: [vehicle.cc.min,",
                                                    "    registry_findings: [vehicle.cc.small,")
    path.write_text(text, encoding="utf-8")
    problems = validate_pack(path)
    keys = [(p.key, p.line) for p in problems]
    lines = text.splitlines()
    assert [k for k, _ in keys] == ["checklist[insurance].registry_findings",
                                    "checklist[engine-size].registry_findings"], problems
    for _, line in keys:
        assert lines[line - 1].startswith("    registry_findings: "), (line, lines[line - 1])
