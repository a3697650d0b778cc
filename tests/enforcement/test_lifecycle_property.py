"""Random sequences of every operation on acts (confirm, reject, amend, deliver, appeal, decide the
appeal, pay, reverse, the tick with the clock moving), driven by Hypothesis; after each step:
- an act carries its document iff it was decided (a proposed or rejected act never has one:
  what a citizen receives never contradicts the record behind it);
- no act leaves a terminal state (rejected, appeal upheld);
- each transition has exactly one audit entry: the act's audited history follows the law's
  order entry by entry (`lifecycle.replay`, what `audit verify` checks) and ends in the status
  the act has.
A step may also send two operations at once (`pair`: two threads, each with its own session,
as two supervisors' requests): of two decisions on one act, one is taken and the other refused,
and the invariants hold after it as after any step.
Runs on SQLite and PostgreSQL (DATABASE_URL). LIFECYCLE_RUNS sets the number of examples
(default 10) and LIFECYCLE_STEPS the steps of each (default 10)."""
from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime, timedelta

import time_machine
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import select

from inspector import clock, enforcement
from inspector.enforcement import lifecycle
from inspector.enforcement.acts import DOCUMENTS
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import (
    APPEALABLE,
    EFFECTIVE,
    TERMINAL,
    Appeal,
    AppealStatus,
    AuditEntry,
    FinePayment,
    Municipality,
    Notice,
    Sanction,
    SanctionStatus,
    User,
)
from tests import factories
from tests.support.enforcement import fleet, inspect, set_values

START = datetime(2027, 2, 1, 13, 0, tzinfo=UTC)   # a Monday, 09:00 in Tapurah
STEPS = (1, 5, 30, 73, 24 * 9, 24 * 40)             # hours the clock may move in one step
DONE = {}
RUNS = int(os.environ.get("LIFECYCLE_RUNS", "10"))
STEPS_PER_RUN = int(os.environ.get("LIFECYCLE_STEPS", "10"))


def _proposed(act: Sanction) -> bool:
    return act.status == SanctionStatus.PROPOSED
ISSUED = set(EFFECTIVE) | {SanctionStatus.APPEAL_ACCEPTED}


def test_random_lives_of_acts_keep_the_record_and_the_documents_in_step(app):
    with app.app_context():
        set_values("tapurah", fiscal_unit=5.25)
        db.session.commit()
    examples = iter(range(10_000))

    class Acts(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            # each example lives in its own stretch of time, so the tick of one leaves the
            # acts of the others as they were
            self.now = START + timedelta(days=120 * next(examples))
            self.travel = time_machine.travel(self.now, tick=False)
            self.travel.start()
            with app.app_context():
                f = fleet("tapurah", "mototaxi")
                self.sup = factories.user("supervisor", "tapurah").id
                agent = factories.user("agent", "tapurah")
                db.session.commit()
                # one inspection signed on the street, one without the rider's ciente (its
                # decisions wait for their delivery)
                for ack in ("Condutor de Teste", None):
                    insp = inspect(f["vehicle"], agent, {"tank-sign": "fail",
                                                         "one-passenger": "fail"},
                                   self.now - timedelta(hours=1), ack=ack)
                    assert enforcement.acts_of(insp)
                db.session.commit()
                self.vehicle = f["vehicle"].id
                self.town = db.session.scalar(select(Municipality.id).where(
                    Municipality.slug == "tapurah"))
            self.seen: dict[int, list[SanctionStatus]] = {}
            self.receipts = 0
            self.statuses: set[SanctionStatus] = {SanctionStatus.PROPOSED}
            self.waiting = self.fined = False

        def teardown(self):
            self.travel.stop()

        # --- helpers ---------------------------------------------------------------------------
        def _acts(self) -> list[Sanction]:
            return db.session.scalars(select(Sanction).where(
                Sanction.vehicle_id == self.vehicle).order_by(Sanction.id)).all()

        def _act(self, pick: int, where=None) -> Sanction | None:
            """One of the example's acts; with `where`, one it makes sense to try (most of the
            time: now and then any act, to see the refusals hold)."""
            acts = self._acts()
            fit = [a for a in acts if where(a)] if where is not None and pick % 5 else acts
            return fit[pick % len(fit)] if fit else acts[pick % len(acts)]

        def _do(self, name: str, fn) -> None:
            """One operation as a request makes it: committed, or refused with nothing written
            (`--hypothesis-show-statistics` counts which were taken)."""
            with app.app_context():
                user = db.session.get(User, self.sup)
                try:
                    fn(user)
                except ValidationFailed:
                    db.session.rollback()
                    event(f"{name}: refused")
                else:
                    db.session.commit()
                    event(f"{name}: done")
                    DONE[name] = DONE.get(name, 0) + 1

        def _today(self):
            """The town's day at the example's moment (its own clock: municipalities.timezone)."""
            return clock.town_day(db.session.get(Municipality, self.town), self.now)

        def _move(self, hours: int) -> None:
            self.now += timedelta(hours=hours)
            self.travel.stop()
            self.travel = time_machine.travel(self.now, tick=False)
            self.travel.start()

        # --- operations -----------------------------------------------------------------------
        @precondition(lambda self: SanctionStatus.PROPOSED in self.statuses)
        @rule(pick=st.integers(0, 20))
        def confirm(self, pick):
            self._do("confirm", lambda u: enforcement.confirm(self._act(pick, _proposed), u,
                                                              self.now))

        @precondition(lambda self: SanctionStatus.PROPOSED in self.statuses)
        @rule(pick=st.integers(0, 20))
        def reject(self, pick):
            self._do("reject", lambda u: enforcement.reject(
                self._act(pick, _proposed), u, self.now, reason="A foto não mostra a falta."))

        @precondition(lambda self: SanctionStatus.PROPOSED in self.statuses)
        @rule(pick=st.integers(0, 20), amount=st.sampled_from(["50", "100", "7"]))
        def amend(self, pick, amount):
            self._do("amend", lambda u: enforcement.amend(
                self._act(pick, _proposed), u, self.now, amount=amount,
                reason="Valor ajustado à gravidade."))

        @precondition(lambda self: self.waiting)
        @rule(pick=st.integers(0, 20))
        def deliver(self, pick):
            self._do("deliver", lambda u: enforcement.record_delivery(
                self._act(pick, lambda a: a.awaiting_delivery), u, self.now,
                day=self._today().isoformat(), via="hand", ref="Recebido pelo titular"))

        @precondition(lambda self: self.statuses & set(APPEALABLE))
        @rule(pick=st.integers(0, 20))
        def appeal(self, pick):
            self._do("appeal", lambda u: enforcement.file_appeal(
                self._act(pick, lambda a: a.status in APPEALABLE),
                filed_on=self._today(), filed_by="João da Silva", filed_by_role="holder",
                text_="A passageira era a minha filha de oito anos.", user=u, now=self.now))

        @precondition(lambda self: SanctionStatus.APPEALED in self.statuses)
        @rule(pick=st.integers(0, 20), accepted=st.booleans())
        def decide_appeal(self, pick, accepted):
            def run(u):
                act = self._act(pick, lambda a: a.status == SanctionStatus.APPEALED)
                pending = [a for a in act.appeals if a.status == AppealStatus.PENDING]
                if not pending:
                    raise ValidationFailed({"status": "nothing to decide"})
                enforcement.decide_appeal(pending[0], u, self.now, accepted=accepted,
                                          text_="Fundamentação da decisão.", ref="Decreto 1/2027")
            self._do("decide_appeal", run)

        @precondition(lambda self: self.fined)
        @rule(pick=st.integers(0, 20), part=st.sampled_from(["100,00", "525,00"]))
        def pay(self, pick, part):
            self.receipts += 1
            self._do("pay", lambda u: enforcement.record_payment(
                self._act(pick, lambda a: a.fine is not None), u, self.now,
                paid_on=self._today().isoformat(), amount=part,
                receipt=f"DAM {self.now:%Y%m%d%H}{self.receipts}"))

        @precondition(lambda self: self.fined)
        @rule(pick=st.integers(0, 20))
        def reverse(self, pick):
            def run(u):
                fine = self._act(pick, lambda a: a.fine is not None).fine
                standing = [p for p in (fine.payments if fine else ()) if p.reversed_at is None]
                if not standing:
                    raise ValidationFailed({"status": "nothing to reverse"})
                enforcement.reverse_payment(standing[0], u, self.now, reason="Lançado por engano.")
            self._do("reverse", run)

        @rule(first=st.sampled_from(sorted(PAIRABLE)),
              second=st.none() | st.sampled_from(sorted(PAIRABLE)), pick=st.integers(0, 20))
        def pair(self, first, second, pick):
            """Two operations sent at once, each in its own thread, app context and session (two
            requests; `second` None: the same one twice, a double tap): each is taken whole or
            refused with nothing written."""
            second = second or first
            results: dict[int, object] = {}
            start = threading.Barrier(2)

            def run(slot: int, name: str) -> None:
                where, call = PAIRABLE[name]
                with app.app_context():
                    try:
                        user = db.session.get(User, self.sup)
                        act = self._act(pick, where)
                        start.wait(timeout=20)
                        call(self, user, act)
                        db.session.commit()
                        results[slot] = "done"
                    except ValidationFailed:   # Conflict (409) included
                        db.session.rollback()
                        results[slot] = "refused"
                    except BaseException as e:  # noqa: BLE001 - reported in the main thread
                        db.session.rollback()
                        results[slot] = e

            threads = [threading.Thread(target=run, args=(i, n))
                       for i, n in enumerate((first, second))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=60)
            for slot, name in enumerate((first, second)):
                outcome = results.get(slot, "hung")
                if not isinstance(outcome, str):
                    raise outcome
                assert outcome != "hung", name
                event(f"pair {name}: {outcome}")
                if outcome == "done":
                    DONE[f"pair:{name}"] = DONE.get(f"pair:{name}", 0) + 1

        @rule(hours=st.sampled_from(STEPS))
        def tick(self, hours):
            self._move(hours)
            with app.app_context():
                enforcement.tick(self.now)

        # --- invariants -------------------------------------------------------------------------
        @invariant()
        def documents_follow_the_record(self):
            with app.app_context():
                for act in self._acts():
                    if act.kind not in DOCUMENTS:
                        continue
                    has = db.session.scalar(select(Notice.id).where(
                        Notice.sanction_id == act.id)) is not None
                    assert has == (act.status in ISSUED and act.decided_at is not None), \
                        (act.id, act.kind, act.status, has)

        @invariant()
        def terminal_acts_stay_so(self):
            with app.app_context():
                acts = self._acts()
                # what the next step may usefully try (the rules' preconditions)
                self.statuses = {a.status for a in acts}
                self.waiting = any(a.awaiting_delivery for a in acts)
                self.fined = any(a.fine is not None for a in acts)
                for act in acts:
                    history = self.seen.setdefault(act.id, [])
                    if history and history[-1] in TERMINAL:
                        assert act.status == history[-1], (act.id, history, act.status)
                    history.append(act.status)

        @invariant()
        def one_audit_entry_per_transition(self):
            with app.app_context():
                ids = [a.id for a in self._acts()]
                entries = db.session.scalars(select(AuditEntry).where(
                    AuditEntry.entity.in_(("sanction", "fine")))
                    .order_by(AuditEntry.seq)).all()
                assert lifecycle.replay(entries) is None
                for act in self._acts():
                    last = next((json.loads(e.after)["status"] for e in reversed(entries)
                                 if e.entity == "sanction" and e.entity_id == str(act.id)
                                 and e.after and "status" in json.loads(e.after)), None)
                    assert last == act.status.value, (act.id, last, act.status)
                # payments count only while the act has something to pay
                for p in db.session.scalars(select(FinePayment).where(
                        FinePayment.reversed_at.is_(None))):
                    if p.fine.sanction_id in ids:
                        assert p.fine.sanction.status not in (SanctionStatus.PROPOSED,
                                                              SanctionStatus.REJECTED)
                assert not db.session.scalar(select(Appeal.id).where(
                    Appeal.status == AppealStatus.PENDING,
                    Appeal.sanction_id.in_(ids)).where(
                    Appeal.sanction_id.not_in(select(Sanction.id).where(
                        Sanction.status == SanctionStatus.APPEALED))))

    run_state_machine_as_test(Acts, settings=settings(
        max_examples=RUNS, stateful_step_count=STEPS_PER_RUN, deadline=None,
        suppress_health_check=list(HealthCheck)))
    # the operations were taken, not only refused (a run that decides nothing proves nothing)
    assert DONE.get("confirm", 0) + DONE.get("reject", 0) > 0 and len(DONE) >= 3, DONE
    assert any(k.startswith("pair:") for k in DONE), DONE


def _pending_appeal(act: Sanction) -> Appeal:
    pending = [a for a in act.appeals if a.status == AppealStatus.PENDING]
    if not pending:
        raise ValidationFailed({"status": "nothing to decide"})
    return pending[0]


# what two people may send at once on the acts: (which act it makes sense on, the operation)
PAIRABLE = {
    "confirm": (_proposed, lambda m, u, a: enforcement.confirm(a, u, m.now)),
    "reject": (_proposed, lambda m, u, a: enforcement.reject(
        a, u, m.now, reason="A foto não mostra a falta.")),
    "amend": (_proposed, lambda m, u, a: enforcement.amend(
        a, u, m.now, amount="50", reason="Valor ajustado à gravidade.")),
    "deliver": (lambda a: a.awaiting_delivery, lambda m, u, a: enforcement.record_delivery(
        a, u, m.now, day=m._today().isoformat(), via="hand", ref="Recebido pelo titular")),
    "appeal": (lambda a: a.status in APPEALABLE,
               lambda m, u, a: enforcement.file_appeal(
                   a, filed_on=m._today(), filed_by="João da Silva", filed_by_role="holder",
                   text_="A passageira era a minha filha de oito anos.", user=u, now=m.now)),
    "decide_appeal": (lambda a: a.status == SanctionStatus.APPEALED,
                      lambda m, u, a: enforcement.decide_appeal(
                          _pending_appeal(a), u, m.now, accepted=True,
                          text_="Fundamentação da decisão.", ref="Decreto 1/2027")),
    "pay": (lambda a: a.fine is not None, lambda m, u, a: enforcement.record_payment(
        a, u, m.now, paid_on=m._today().isoformat(), amount="100,00",
        receipt=f"DAM {m.now:%Y%m%d%H}-{threading.get_ident()}")),
}
