"""Legal test cases as data (OpenFisca style): every YAML case in tests/rule_cases/ runs here.

A case names the law and article it tests (`article`), a town, a service and a day, what
is asked (`check`), the facts (`input`) and what the law says must come out (`expect`).
Where the answer carries citations, the named article must be among them.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from inspector import rules
from inspector.rules.engine import checklist, driver_violations
from inspector.rules.errors import LawNotInForce, UnknownService, UnknownTown
from tests.support.legal_cases import case_params

CASE_KEYS = {"name", "article", "town", "service", "day", "check", "input", "expect"}


CASES = case_params()


def test_there_are_enough_cases_and_every_law_has_some():
    laws = {c.values[0]["article"].split(",")[0] for c in CASES}
    assert len(CASES) >= 40
    assert laws >= {"Lei 406/2001", "Lei 030/1998", "Lei 127/2009", "Lei 535/2013",
                    "Lei 060/1998"}


def _day(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _vehicle(data: dict, i: int = 0) -> rules.VehicleFacts:
    lic = data.get("licence")
    return rules.VehicleFacts(
        id=data.get("id", i + 1), plate=data.get("plate", f"VEH{i:04d}"),
        year_of_manufacture=data["year"], engine_cc=data.get("cc"),
        is_trail=data.get("trail", False), doors=data.get("doors"),
        holder_id=data.get("holder"), auxiliaries=data.get("auxiliaries", 0),
        last_vistoria_on=_day(data["vistoria"]) if data.get("vistoria") else None,
        vistoria_valid_until=_day(data["vistoria_until"]) if data.get("vistoria_until") else None,
        licence=rules.LicenceFacts(lic.get("number", "AL-1"), _day(lic["from"]), _day(lic["until"]),
                               lic.get("status", "active")) if lic else None,
        permit=rules.PermitFacts("TP-1", _day(data["permit"]["from"]), None,
                             data["permit"].get("status", "active"))
        if data.get("permit") else None,
        insurance=tuple(rules.InsuranceFacts(_day(p["from"]), _day(p["until"]))
                        for p in data.get("insurance", [])))


def _driver(data: dict, i: int = 0) -> rules.DriverFacts:
    return rules.DriverFacts(
        id=i + 1, category=data.get("category", "autonomo"), cnh_category=data.get("cnh"),
        cnh_expiry=_day(data["cnh_expiry"]) if data.get("cnh_expiry") else None,
        registration_expiry=_day(data["registration_expiry"])
        if data.get("registration_expiry") else None, status=data.get("status", "active"))


def _town(case: dict) -> rules.TownFacts:
    inp = case.get("input") or {}
    decree = {}
    for key, (amount, unit) in (inp.get("decree") or {}).items():
        decree[key] = (rules.DatedAmount(date(2000, 1, 1), Decimal(str(amount)), unit, "Decreto"),)
    return rules.TownFacts(
        slug=case["town"], population_seat=inp.get("population_seat"),
        population_interior=inp.get("population_interior"),
        minimum_wage_brl=(rules.DatedAmount(date(2000, 1, 1), Decimal(str(inp["minimum_wage"]))),)
        if "minimum_wage" in inp else (),
        fiscal_unit_brl=(rules.DatedAmount(date(2000, 1, 1), Decimal(str(inp["fiscal_unit"]))),)
        if "fiscal_unit" in inp else (), decree_values=decree)


def _ids(found) -> list[str]:
    return sorted(v.rule_id for v in found)


def _assert_cited(case: dict, citations) -> None:
    article = case["article"].split(",", 1)[1].strip() if "," in case["article"] else None
    law = case["article"].split(",")[0].strip()
    cited = {(c.law, c.article) for c in citations if c is not None}
    if article and cited:
        assert (law, article) in cited, f"{case['article']} not among {sorted(cited)}"


def _check_violations(case, found):
    exp = case["expect"]
    bad = [v for v in found if v.severity == "violation"]
    warn = [v for v in found if v.severity == "warning"]
    if "violations" in exp:
        assert _ids(bad) == sorted(exp["violations"]), [v.message for v in bad]
    if "warnings" in exp:
        assert _ids(warn) == sorted(exp["warnings"]), [v.message for v in warn]
    for text in exp.get("messages_contain", []):
        assert any(text in v.message for v in found), (text, [v.message for v in found])
    _assert_cited(case, [v.citation for v in found])


def run_vehicle(case, on):
    v = _vehicle(case["input"])
    found = rules.vehicle_violations(case["town"], case["service"], v, on)
    if case["input"].get("documents"):
        found = found + rules.vehicle_document_violations(rules.resolve(case["town"], case["service"],
                                                                on), v)
    _check_violations(case, found)


def run_driver(case, on):
    found = driver_violations(case["town"], case["service"], _driver(case["input"]), on)
    _check_violations(case, found)


def run_checklist(case, on):
    given = case.get("input") or {}
    decrees = given.get("decrees")   # the town's decree keys that day; absent: not known
    items = checklist(case["town"], case["service"], on,
                        seat_population=given.get("seat_population"),
                        decrees=None if decrees is None else set(decrees))
    ids = [i.id for i in items]
    exp = case["expect"]
    for i in exp.get("includes", []):
        assert i in ids
    for i in exp.get("excludes", []):
        assert i not in ids
    for iid, props in (exp.get("items") or {}).items():
        item = next(i for i in items if i.id == iid)
        for k, v in props.items():
            got = item.citation.article if k == "article" else getattr(item, k)
            assert got == v, (iid, k, got)
    named = set(exp.get("includes", [])) | set(exp.get("excludes", [])) | set(exp.get("items") or {})
    pack = rules.find_pack(case["town"], case["service"], on)
    _assert_cited(case, [i.citation for i in pack.checklist if i.id in named])


def _expand(entries: list[dict]) -> list[dict]:
    """`copies: N` repeats a vehicle N times (a fleet of identical, well-documented cars)."""
    out = []
    for e in entries:
        e = dict(e)
        out.extend([{k: v for k, v in e.items() if k != "copies"}] * e.get("copies", 1))
    return out


def run_town(case, on):
    inp = case["input"]
    reg = rules.Registry(
        town=_town(case), service=case["service"],
        holders=tuple(rules.HolderFacts(h["id"], h.get("kind", "person"), h.get("name", f"H{h['id']}"))
                      for h in inp.get("holders", [])),
        vehicles=tuple(_vehicle(v, i) for i, v in enumerate(_expand(inp.get("vehicles", [])))),
        drivers=tuple(_driver(d, i) for i, d in enumerate(inp.get("drivers", []))))
    report = rules.town_report(reg, on)
    exp = case["expect"]
    if "violations" in exp:
        assert _ids(report.violations) == sorted(exp["violations"]), \
            [v.message for v in report.violations]
    for rule_id, limit in (exp.get("quota_limits") or {}).items():
        assert [q.limit for q in report.quotas if q.rule_id == rule_id] == [limit]
    if "fleet" in exp:
        assert report.fleet == exp["fleet"]
    _assert_cited(case, [v.citation for v in report.violations]
                  + [q.citation for q in report.quotas]
                  + [s.citation for s in report.company_shares])


def run_sanction(case, on):
    inp = case["input"]
    history = [rules.PriorSanction(on=date(2000, 1, 1)) for _ in range(inp.get("prior", 0))]
    p = rules.propose_sanction(_town(case), case["service"],
                           rules.Finding(inp["finding"], inp.get("affects_safety")), history, on)
    exp = case["expect"]
    for key in ("step_id", "offence_id", "decided_by", "occurrence"):
        if key in exp:
            assert getattr(p, key) == exp[key], (key, getattr(p, key))
    if "measures" in exp:
        assert [m.kind for m in p.measures] == exp["measures"]
    if "targets" in exp:
        assert [m.target for m in p.measures] == exp["targets"]
    if "deadline" in exp:
        d = exp["deadline"]
        if d is None:
            assert p.deadline is None
        else:
            assert (p.deadline.hours, p.deadline.days) == (d.get("hours"), d.get("days"))
    if "missed" in exp:
        m = p.on_missed_deadline
        assert m is not None and m.kind == exp["missed"]["kind"]
        for k in ("text", "brl_text"):
            if k in exp["missed"]:
                assert getattr(m.money, k) == exp["missed"][k]
    if "appeal" in exp:
        a = exp["appeal"]
        if a is None:
            assert p.appeal is None
        else:
            for k, v in a.items():
                assert getattr(p.appeal, k) == v, (k, getattr(p.appeal, k))
    for i, money in enumerate(exp.get("money") or []):
        if money is None:
            continue
        got = [m for m in p.measures if m.money is not None][i].money
        for k, v in money.items():
            assert getattr(got, k) == v, (k, getattr(got, k))
    cites = [m.citation for m in p.measures] + \
        ([p.deadline.citation] if p.deadline else []) + \
        ([p.appeal.citation] if p.appeal else []) + \
        ([p.on_missed_deadline.citation] if p.on_missed_deadline else [])
    _assert_cited(case, cites)


def run_error(case, on):
    errors = {"LawNotInForce": LawNotInForce, "UnknownTown": UnknownTown,
              "UnknownService": UnknownService}
    with pytest.raises(errors[case["expect"]["error"]]) as info:
        rules.find_pack(case["town"], case["service"], on)
    for text in case["expect"].get("message_contains", []):
        assert text in str(info.value)


def run_param(case, on):
    pack = rules.find_pack(case["town"], case["service"], on)
    exp = case["expect"]
    cites = []
    for path, value in exp["values"].items():
        v = pack.parameters[path].at(on) if path in pack.parameters else None
        got = None if v is None else v.value
        if isinstance(got, tuple):
            got = list(got)
        assert got == value, (path, got)
        if v is not None:
            cites.append(v.citation)
    _assert_cited(case, cites)


def run_vistoria(case, on):
    """A kind of vistoria under the law in force: offered or not (and why), its period, who
    performs it, whether and how far its validity may be shortened."""
    inp, exp = case["input"], case["expect"]
    p = rules.vistoria_plan(case["town"], case["service"], inp["kind"], on)
    if not exp.get("offered", True):
        assert p is None
        why = rules.why_none(case["town"], case["service"], inp["kind"], on)
        for text in exp.get("reason_contains", []):
            assert text in why, why
        return
    assert p is not None, rules.why_none(case["town"], case["service"], inp["kind"], on)
    for key in ("months", "may_shorten", "performed_by"):
        if key in exp:
            assert getattr(p, key) == exp[key], (key, getattr(p, key))
    done = _day(inp.get("performed_on", on))
    if "valid_until" in exp:
        assert p.normal_until(done) == _day(exp["valid_until"])
    ids = [i.id for i in p.items]
    for i in exp.get("includes", []):
        assert i in ids, (i, ids)
    for i in exp.get("excludes", []):
        assert i not in ids, (i, ids)
    if "shorten_until" in inp:
        problem = p.shortening_problem(done, _day(inp["shorten_until"]))
        if exp.get("shortened") is True:
            assert problem is None, problem
        else:
            assert problem is not None
            for text in exp.get("problem_contains", []):
                assert text in problem, problem
    _assert_cited(case, [p.citation, p.months_citation, p.performed_by_citation,
                         p.shorten_citation])


RUNNERS = {"vistoria": run_vistoria, "vehicle": run_vehicle, "driver": run_driver, "checklist": run_checklist,
           "town": run_town, "sanction": run_sanction, "error": run_error, "param": run_param}


@pytest.mark.parametrize("case", CASES)
def test_rule_case(case):
    assert set(case) <= CASE_KEYS and {"name", "article", "town", "service", "day", "check",
                                       "expect"} <= set(case), sorted(case)
    assert case["article"].startswith("Lei "), "each case names the law and article it tests"
    RUNNERS[case["check"]](case, _day(case["day"]))


VISTORIA_CASES = case_params("vistorias")


def test_every_law_has_vistoria_cases():
    """Each law's vistorias (or why it has none) are covered by cases of their own."""
    laws = {c.values[0]["article"].split(",")[0] for c in VISTORIA_CASES}
    assert laws == {"Lei 406/2001", "Lei 030/1998", "Lei 127/2009", "Lei 535/2013",
                    "Lei 060/1998"}


@pytest.mark.parametrize("case", VISTORIA_CASES)
def test_vistoria_case(case):
    assert set(case) <= CASE_KEYS and case["check"] == "vistoria"
    run_vistoria(case, _day(case["day"]))
