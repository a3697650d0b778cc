"""Legal cases for the readings the product owner settled (../shared/DOMAIN.md, December 2026):
every YAML case in tests/rule_cases/readings/ runs here, without the database. A case names the
law and article it applies (`article`, which must be among the citations of the answer), a town,
a service, a day, what is asked (`check`), the facts and what the law gives.

Checks: `vehicle` (the engine's vehicle violations: ages with `made` / `first_licensed` dates),
`vehicle_check` (violations and warnings, with `due_on`), `sanction` (the proposal for a finding
given the offender's `history`: prior penalties with their day, provision, kind and whether
they are final; `measures_decided_by`: who decides each measure), `validity` (a document's
validity against the limit its law sets), `grant` (Tapurah Art. 19: the discretionary
deadline a finding may get, granted or refused).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from inspector import rules
from inspector.rules.calendar import Closure, TownCalendar
from inspector.rules.engine import driver_violations
from tests.support.legal_cases import case_params

CASE_KEYS = {"name", "article", "town", "service", "day", "check", "input", "expect"}


CASES = case_params("readings")


def _day(value) -> date | None:
    if value is None:
        return None
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _vehicle(data: dict) -> rules.VehicleFacts:
    return rules.VehicleFacts(year_of_manufacture=data["year"], engine_cc=data.get("cc"),
                          manufactured_on=_day(data.get("made")),
                          first_licensed_on=_day(data.get("first_licensed")))


def _cited(case: dict, citations) -> None:
    law, _, article = case["article"].partition(", ")
    found = {(c.law, c.article) for c in citations if c is not None}
    assert (law, article) in found, f"{case['article']} not among {sorted(found)}"


def _messages(case: dict, found) -> None:
    for text in case["expect"].get("messages_contain", []):
        assert any(text in v.message for v in found), (text, [v.message for v in found])


def run_vehicle(case, on):
    found = rules.vehicle_violations(case["town"], case["service"], _vehicle(case["input"]), on)
    assert sorted(v.rule_id for v in found) == sorted(case["expect"]["violations"]), \
        [v.message for v in found]
    _messages(case, found)
    if found:
        _cited(case, [v.citation for v in found])
    else:   # nothing broken: the article is still the one that sets the limit
        pack = rules.find_pack(case["town"], case["service"], on)
        _cited(case, [v.citation for p in pack.parameters.values() for v in p.versions
                      if v.citation])


def run_vehicle_check(case, on):
    r = rules.resolve(case["town"], case["service"], on)
    bad, warnings = rules.vehicle_check(r, _vehicle(case["input"]))
    exp = case["expect"]
    ids = {v.rule_id for v in warnings}
    assert set(exp["warnings_include"]) <= ids, [v.message for v in warnings]
    for rule_id, day in (exp.get("due_on") or {}).items():
        assert next(v for v in warnings if v.rule_id == rule_id).due_on == _day(day)
    _messages(case, warnings)
    _cited(case, [v.citation for v in warnings])


def _history(case: dict, pack) -> list[rules.PriorSanction]:
    out = []
    for h in case["input"].get("history", []):
        anchor = h.get("provision")
        out.append(rules.PriorSanction(on=_day(h["day"]), kind=h.get("kind", ""),
                                   provision=f"{pack.law_slug}#{anchor}" if anchor else "",
                                   final_on=_day(h.get("final"))))
    out += [rules.PriorSanction(on=date(2000, 1, 1))] * case["input"].get("prior", 0)
    return out


def run_sanction(case, on):
    pack = rules.find_pack(case["town"], case["service"], on)
    inp, exp = case["input"], case["expect"]
    town = rules.TownFacts(slug=case["town"], fiscal_unit_brl=(
        rules.DatedAmount(date(2000, 1, 1), Decimal(str(inp["fiscal_unit"]))),)
        if "fiscal_unit" in inp else ())
    p = rules.propose_sanction(town, case["service"], rules.Finding(inp["finding"]),
                           _history(case, pack), on)
    for key in ("step_id", "offence_id", "occurrence", "decided_by"):
        if key in exp:
            assert getattr(p, key) == exp[key], (key, getattr(p, key))
    if "measures" in exp:
        assert [m.kind for m in p.measures] == exp["measures"]
    if "targets" in exp:
        assert [m.target for m in p.measures] == exp["targets"]
    if "measures_decided_by" in exp:   # who decides each measure (the law's authority)
        assert [m.decided_by for m in p.measures] == exp["measures_decided_by"]
    if "money" in exp:
        got = [m.money.text for m in p.measures if m.money is not None]
        assert got == exp["money"], got
    for text in exp.get("notes_contain", []):
        assert any(text in n for n in p.notes), (text, p.notes)
    if exp.get("not_a_reincidence"):
        assert not any(n.startswith("Reincidência") for n in p.notes), p.notes
    _cited(case, [m.citation for m in p.measures])


def run_validity(case, on):
    inp, exp = case["input"], case["expect"]
    r = rules.resolve(case["town"], case["service"], on)
    limit = rules.validity_limit(r, inp["document"], _day(inp["from"]))
    if exp.get("no_limit"):
        assert limit is None, limit
        return
    assert limit.last == _day(exp["last"]), limit
    v = rules.validity_violation(r, inp["document"], _day(inp["from"]), _day(inp["until"]),
                             "vehicle:1", inp.get("label", "Alvará nº 1"))
    assert (v is None) == exp["ok"], v
    if v is not None:
        for text in exp.get("messages_contain", []):
            assert text in v.message, (text, v.message)
    _cited(case, [limit.citation])


def run_driver(case, on):
    inp = case["input"]
    d = rules.DriverFacts(category=inp.get("category", "autonomo"), cnh_category="B",
                      registration_expiry=_day(inp["registration_expiry"]))
    found = [v for v in driver_violations(case["town"], case["service"], d, on)
             if v.rule_id.startswith("driver.registration")]
    assert sorted(v.rule_id for v in found) == sorted(case["expect"]["violations"]), \
        [v.message for v in found]
    _messages(case, found)
    _cited(case, [v.citation for v in found])


def run_grant(case, on):
    inp, exp = case["input"], case["expect"]
    cal = TownCalendar(tuple(Closure(_day(c["day"]), c["reason"], c["act"])
                               for c in inp.get("closures", [])), frozenset({on.year}))
    town = rules.TownFacts(slug=case["town"], calendar=cal)
    g = inp.get("grant")
    grant = rules.Grant(g["days"], g["reason"], g.get("by", "agent")) if g else None
    pack = rules.find_pack(case["town"], case["service"], on)
    option = rules.grant_option(pack, inp["finding"], on)
    if "option" in exp:
        if exp["option"] is None:
            assert option is None, option
        else:
            for key, value in exp["option"].items():
                assert getattr(option, key) == value, (key, option)
    if "refused" in exp:
        with pytest.raises(rules.GrantRefused) as refused:
            rules.propose_sanction(town, case["service"], rules.Finding(inp["finding"]), [], on,
                               grant=grant)
        assert refused.value.field == exp["refused"]["field"], refused.value.field
        assert exp["refused"]["message"] in refused.value.message, refused.value.message
        _cited(case, [option.citation if option else None]
               + [m.citation for m in pack.ladder[0].measures]
               + [m.citation for o in pack.offences for m in o.measures])
        return
    p = rules.propose_sanction(town, case["service"], rules.Finding(inp["finding"]), [], on, grant=grant)
    d, want = p.deadline, exp["deadline"]
    for key, attr in (("hours", "hours"), ("days", "days"), ("text", "text"),
                      ("granted_by", "granted_by"), ("reason", "grant_reason")):
        if key in want:
            assert getattr(d, attr) == want[key], (key, d)
    if "last_day" in want:
        assert d.due == _day(want["last_day"]), d
    if "article" in want:
        assert d.citation.article == want["article"], d.citation
    for text in want.get("explain_contains", []):
        assert text in (d.explain or ""), d.explain
    if grant is None:   # a grant is never chosen by the law itself
        assert d.granted_by is None and d.citation.article != (option and option.citation.article)
    _cited(case, [d.citation])


RUNNERS = {"vehicle": run_vehicle, "vehicle_check": run_vehicle_check, "sanction": run_sanction,
           "validity": run_validity, "driver": run_driver, "grant": run_grant}


def test_there_are_cases_for_each_reading():
    checks = {c.values[0]["check"] for c in CASES}
    assert {"vehicle"} <= checks
    assert all(c.values[0]["article"].startswith("Lei ") for c in CASES)


@pytest.mark.parametrize("case", CASES)
def test_reading_case(case):
    assert set(case) <= CASE_KEYS and {"name", "article", "town", "service", "day", "check",
                                       "expect"} <= set(case), sorted(case)
    RUNNERS[case["check"]](case, _day(case["day"]))
