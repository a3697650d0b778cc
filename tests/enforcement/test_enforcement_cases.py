"""Legal cases as data for the sanction ladder of every law, through the database: every YAML
case in tests/enforcement_cases/ runs here (SQLite, or PostgreSQL with DATABASE_URL).

A case names the law and article it tests (`article`: it must be among the citations the
acts carry), a town, a service and a day. `prior: N` first stores N earlier inspections
of the same vehicle and rider, ten days apart, each with the first failed item, and
decides their acts (`prior_decision: confirm` by default, or `reject`; `prior_delivered:
true` also delivers each document at the decision, so its time runs and, once its appeal
window is over, the penalty is final: a reincidência needs one); `values` sets the
town's minimum wage, fiscal unit value and decree values (`{key: [amount, unit]}`). Then
an inspection with `fail` items is completed on `day` at 10:00 and:

- `expect.acts`: the proposed acts in order, each with any of kind, target, decided_by,
  step, offence, occurrence, deadline_hours, deadline_days, deadline_text, missed (the
  kind a missed deadline brings), appeal (null, or days / to / suspensive), article,
  breach_article, required_action (true: not empty; a string: exactly), amount_text, brl_text, options
  (amendment keys that must be offered);
- `decide`: steps `{as: agent|supervisor|admin, do: confirm|amend|reject|mayor, act: n,
  amount, option, reason, decision, ref, days}` (the decision is taken the day after `day`,
  at 10:00), or `{as: ..., do: deliver, act: n, after_days: n, via, ref}` (the document is
  delivered `after_days` after the decision, default 0, at 10:00: time runs from there),
  with either `error: <field>` (refused, naming that field) or `expect` (status,
  awaiting_mayor, awaiting_delivery, label, kind, article, amount, amount_brl, ref,
  appeal_until, notice: prefix of the
  document number or null, registry: {driver|permit|licence: status}, period: [first day,
  last day] of a suspension or null, suspended_until: {driver|permit|licence: day or null}).
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from inspector import enforcement
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Driver, Licence, Permit, Sanction, SanctionStatus
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local, set_values

CASES_DIR = Path(__file__).resolve().parent.parent / "enforcement_cases"
CASE_KEYS = {"name", "article", "town", "service", "day", "prior", "prior_decision",
             "prior_delivered", "values",
             "fail", "expect", "decide"}
ACT_KEYS = {"kind", "target", "decided_by", "step", "offence", "occurrence", "deadline_hours",
            "deadline_days", "deadline_text", "missed", "appeal", "article", "breach_article",
            "required_action", "amount_text", "brl_text", "options"}


def _load():
    for path in sorted(CASES_DIR.glob("*.yaml")):
        for i, case in enumerate(yaml.safe_load(path.read_text(encoding="utf-8"))):
            yield pytest.param(case, id=f"{path.stem}[{i}] {case.get('name', '')}")


CASES = list(_load())


def test_every_law_has_ladder_cases_with_repeats_the_third_notice_and_the_mayor():
    cases = [c.values[0] for c in CASES]
    laws = {c["article"].split(",")[0] for c in cases}
    assert laws == {"Lei 406/2001", "Lei 030/1998", "Lei 127/2009", "Lei 535/2013",
                    "Lei 060/1998"}
    assert sum(1 for c in cases if c.get("prior")) >= 8                  # repeat offences
    assert any("removal_request" in str(c["expect"]) for c in cases if "expect" in c)
    assert any("awaiting_mayor: true" in yaml.safe_dump(c.get("decide")).replace("'", "")
               or "awaiting_mayor': True" in str(c.get("decide")) for c in cases)
    assert any("error': 'role'" in str(c.get("decide")) for c in cases)  # the agent may not


def _citations(acts) -> set[tuple[str, str]]:
    out = set()
    for a in acts:
        for raw in (a.citation, a.breach_citation, a.deadline_citation, a.appeal_citation):
            c = raw
            if c:
                out.add((c["law"], c["article"]))
        missed = a.on_missed
        if missed:
            out.add((missed["citation"]["law"], missed["citation"]["article"]))
    return out


def _decide_all(insp, how: str, sup, admin, moment) -> None:
    """Decide every act of an earlier inspection the way the law lets each be decided."""
    for a in enforcement.acts_of(insp):
        if how == "reject":
            enforcement.reject(a, sup, moment, reason="Não se confirmou.")
            continue
        if a.kind == "suspension_or_revocation":
            key = next(o.key for o in enforcement.amend_options(a)
                       if o.kind == "suspension" and o.target == a.target)
            enforcement.amend(a, sup, moment, option=key, reason="Primeira suspensão.")
        else:
            amount = a.amount_max if a.amount is None and a.amount_max is not None else None
            enforcement.confirm(a, sup, moment, amount=amount)
        if a.awaiting_mayor:
            enforcement.record_mayor_decision(a, admin, moment, decision="confirm",
                                              ref="Decreto anterior")


def _check_act(a: Sanction, exp: dict) -> None:
    assert set(exp) <= ACT_KEYS, sorted(set(exp) - ACT_KEYS)
    got = {"kind": a.kind, "target": a.target, "decided_by": a.decided_by, "step": a.step_id,
           "offence": a.offence_id, "occurrence": a.occurrence,
           "deadline_hours": a.deadline_hours, "deadline_days": a.deadline_days,
           "deadline_text": a.deadline_text}
    for k, v in exp.items():
        if k in got:
            assert got[k] == v, (k, got[k], v)
    if "missed" in exp:
        assert (a.on_missed or {}).get("kind") == exp["missed"]
    if "appeal" in exp:
        if exp["appeal"] is None:
            assert a.appeal_days is None and a.appeal_to is None
        else:
            have = {"days": a.appeal_days, "to": a.appeal_to, "suspensive": a.appeal_suspensive}
            for k, v in exp["appeal"].items():
                assert have[k] == v, (k, have[k], v)
    if "article" in exp:
        assert a.citation["article"] == exp["article"]
    if "breach_article" in exp:
        assert a.breach_citation["article"] == exp["breach_article"]
    if isinstance(exp.get("required_action"), str):
        assert a.required_action == exp["required_action"]
    elif exp.get("required_action"):
        assert a.required_action.strip()
    money = enforcement.money_of(a)
    if "amount_text" in exp:
        assert money.text == exp["amount_text"]
    if "brl_text" in exp:
        assert money.brl_text == exp["brl_text"]
    if "options" in exp:
        keys = [o.key for o in enforcement.amend_options(a)]
        assert set(exp["options"]) <= set(keys), keys


def _check_after(a: Sanction, exp: dict, rows: dict) -> None:
    if "status" in exp:
        assert a.status.value == exp["status"], (a.status, a.reason)
    for key in ("awaiting_mayor", "awaiting_delivery", "kind"):
        if key in exp:
            assert getattr(a, key) == exp[key], (key, getattr(a, key))
    if "label" in exp:
        assert a.status_label == exp["label"]
    if "article" in exp:
        assert a.citation["article"] == exp["article"]
    if "amount" in exp:
        assert a.amount == Decimal(exp["amount"])
    if "amount_brl" in exp:
        assert a.amount_brl == Decimal(exp["amount_brl"])
    if "ref" in exp:
        assert a.decision_ref == exp["ref"]
    if "appeal_until" in exp:
        assert a.appeal_until == (None if exp["appeal_until"] is None
                                  else _day(exp["appeal_until"])), a.appeal_until
    if "notice" in exp:
        if exp["notice"] is None:
            assert a.notice is None
        else:
            assert a.notice is not None and a.notice.number.startswith(exp["notice"] + "-")
    for kind, status in (exp.get("registry") or {}).items():
        row = db.session.get({"driver": Driver, "permit": Permit, "licence": Licence}[kind],
                             rows[kind])
        assert row.status.value == status, (kind, row.status)
    if "period" in exp:
        want = None if exp["period"] is None else [_day(d) for d in exp["period"]]
        got = None if a.suspension_start is None else [a.suspension_start, a.suspension_end]
        assert got == want, (got, want)
    for kind, until in (exp.get("suspended_until") or {}).items():
        row = db.session.get({"driver": Driver, "permit": Permit, "licence": Licence}[kind],
                             rows[kind])
        assert row.suspended_until == (None if until is None else _day(until)), \
            (kind, row.suspended_until)


def _day(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


@pytest.mark.parametrize("case", CASES)
def test_enforcement_case(app, case):
    assert set(case) <= CASE_KEYS, sorted(set(case) - CASE_KEYS)
    assert case["article"].startswith("Lei ")
    day = case["day"] if isinstance(case["day"], date) else date.fromisoformat(case["day"])
    with app.app_context():
        f = fleet(case["town"], case["service"])
        values = dict(case.get("values") or {})
        if "decree" in values:
            values["decree"] = {k: tuple(v) for k, v in values["decree"].items()}
        if values:
            set_values(case["town"], **values)
        users = {r: factories.user(r, case["town"]) for r in ("agent", "supervisor", "admin")}
        db.session.commit()
        rows = {"driver": f["driver"].id, "permit": f["permit"].id, "licence": f["licence"].id}
        first = case["fail"][0]
        for n in range(case.get("prior", 0)):
            when = local(day.year, day.month, day.day) - timedelta(days=10 * (case["prior"] - n))
            earlier = inspect(f["vehicle"], users["agent"], {first: "fail"}, when)
            _decide_all(earlier, case.get("prior_decision", "confirm"), users["supervisor"],
                        users["admin"], when + timedelta(hours=1))
            if case.get("prior_delivered"):
                db.session.commit()
                for a in enforcement.acts_of(earlier):
                    if a.awaiting_delivery:
                        deliver(a, users["supervisor"], when + timedelta(hours=1))
            db.session.commit()
        moment = local(day.year, day.month, day.day)
        insp = inspect(f["vehicle"], users["agent"], {i: "fail" for i in case["fail"]}, moment)
        db.session.commit()
        acts = enforcement.acts_of(insp)
        if "expect" in case:
            want = case["expect"]["acts"]
            assert len(acts) == len(want), [(a.kind, a.target) for a in acts]
            for a, exp in zip(acts, want):
                _check_act(a, exp)
        for step in case.get("decide") or []:
            a = db.session.get(Sanction, acts[step.get("act", 0)].id)
            user = users[step["as"]]
            call = _call(step, a, user, moment + timedelta(days=1))
            if "error" in step:
                with pytest.raises(ValidationFailed) as info:
                    call()
                db.session.rollback()
                assert step["error"] in info.value.errors, info.value.errors
                continue
            call()
            db.session.commit()
            _check_after(db.session.get(Sanction, a.id), step.get("expect") or {}, rows)
        law = case["article"].split(",")[0].strip()
        article = case["article"].split(",", 1)[1].strip()
        cited = _citations(enforcement.acts_of(insp))
        assert (law, article) in cited, f"{case['article']} not among {sorted(cited)}"


def _call(step: dict, a: Sanction, user, now):
    do = step["do"]
    if do == "confirm":
        return lambda: enforcement.confirm(a, user, now, amount=step.get("amount"),
                                           days=step.get("days"))
    if do == "amend":
        return lambda: enforcement.amend(a, user, now, option=step.get("option"),
                                         amount=step.get("amount"), days=step.get("days"),
                                         reason=step.get("reason", "Gravidade da falta."))
    if do == "reject":
        return lambda: enforcement.reject(a, user, now, reason=step.get("reason", ""))
    if do == "mayor":
        return lambda: enforcement.record_mayor_decision(
            a, user, now, decision=step.get("decision", "confirm"), ref=step.get("ref", ""),
            reason=step.get("reason", ""), option=step.get("option"), amount=step.get("amount"),
            days=step.get("days"))
    if do == "deliver":
        on = now + timedelta(days=step.get("after_days", 0))
        return lambda: deliver(a, user, on, via=step.get("via", "hand"),
                               ref=step.get("ref", "Recebido pelo próprio infrator"),
                               recorded=max(on, now))
    raise AssertionError(do)


def test_a_proposal_waiting_for_review_is_not_yet_a_prior_offence(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        db.session.commit()
        inspect(f["vehicle"], agent, {"uniform": "fail"}, local(2026, 3, 1))
        later = inspect(f["vehicle"], agent, {"uniform": "fail"}, local(2026, 3, 2))
        [a] = enforcement.acts_of(later)
        assert a.occurrence == 1 and a.status == SanctionStatus.PROPOSED


def test_automatic_measures_are_data_and_the_loader_checks_them(tmp_path):
    """`automatic: true` marks what the law applies by itself; it must be a boolean."""
    from inspector import rules
    from inspector.rules.loader import LAWS_DIR, PACKS_DIR, RulePackError, load_pack

    auto = {(p.id, o.id) for p in rules.load_all() for o in p.offences
            if any(m.automatic for m in o.measures)}
    assert auto == {("tapurah-406-2001", "insurance-lapsed"),
                    ("nortelandia-127-2009", "registration-cancelled")}
    text = (PACKS_DIR / "tapurah-406-2001.yaml").read_text(encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("automatic: true", "automatic: sim"), encoding="utf-8")
    with pytest.raises(RulePackError) as info:
        load_pack(broken, (LAWS_DIR,))
    assert info.value.key.endswith(".automatic")


def test_a_late_review_still_climbs_the_ladder(app):
    """Four street notices in four days, reviewed together on the fifth: as each earlier
    one is confirmed the later proposals move up, and the fourth - a new finding once three
    notices exist - gets the request to remove the rider (Tapurah Art. 27, III; not with the
    third notice itself)."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        insps = [inspect(f["vehicle"], agent, {"uniform": "fail"}, local(2026, 3, d))
                 for d in (1, 2, 3, 4)]
        db.session.commit()
        assert [a.occurrence for i in insps for a in enforcement.acts_of(i)] == [1, 1, 1, 1]
        review_day = local(2026, 3, 5, 14)
        [first] = enforcement.acts_of(insps[0])
        enforcement.confirm(first, sup, review_day)
        pending = [a for a in enforcement.acts_of(insps[1]) if a.status == SanctionStatus.PROPOSED]
        assert [(a.kind, a.occurrence) for a in pending] == [("notice", 2)]
        enforcement.confirm(pending[0], sup, review_day)
        third = [a for a in enforcement.acts_of(insps[2]) if a.status == SanctionStatus.PROPOSED]
        assert [(a.kind, a.step_id, a.occurrence) for a in third] == [("notice", "notice", 3)]
        enforcement.confirm(third[0], sup, review_day)
        fourth = [a for a in enforcement.acts_of(insps[3]) if a.status == SanctionStatus.PROPOSED]
        assert [(a.kind, a.step_id, a.occurrence) for a in fourth] == \
            [("notice", "third-notice", 4), ("removal_request", "third-notice", 4)]
        old = [a for a in enforcement.acts_of(insps[3]) if a.status == SanctionStatus.REJECTED]
        assert len(old) == 1 and old[0].reason.startswith("Substituída")
        db.session.commit()
