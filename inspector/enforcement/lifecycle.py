"""The life of a legal act: its statuses grouped once, every transition the law allows declared
once, and the one function that moves an act.

`move` is the only way an act's status changes. It is a conditional UPDATE on the state the
caller read (`UPDATE sanctions SET status = :to WHERE id = :id AND status = :from ...`), run
before anything else of the decision is written: of N decisions sent at once on one act, one
finds the row as it read it and wins; the others find it changed and get `Conflict` (HTTP 409,
"Este ato já foi decidido por … em …") with nothing written. On PostgreSQL the loser's UPDATE
waits for the winner's row lock and then sees its commit; SQLite has one writer at a time.

Each transition also declares what it writes: its audit entry (`audit`), the event of the act's
history (`happened`) and the notification its listeners receive (`tell`). `move` (and `born`, for
an act that starts life) returns a `Step`; the caller finishes the decision and then calls
`Step.record` (audit entry and event) and `Step.tell` (notification), or `Step.done` for both.
No caller writes an act's transition entry, event or notification itself.

`TRANSITIONS` is also what `flask audit verify` replays each act's audited history against
(`replay`): an entry whose transition the table forbids breaks the log's legal order.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm.attributes import set_committed_value

from inspector import audit
from inspector.clock import town_moment, utc
from inspector.enforcement import common
from inspector.errors import Conflict  # a ValidationFailed: the act's card shows it (409)
from inspector.extensions import db
from inspector.models import (
    ANY_LIVE,
    APPEALABLE,
    AWAITS_DELIVERY,
    CLOSABLE,
    ENFORCEABLE,
    LIVE,
    OPEN,
    PENDING,
    TERMINAL,
    VOID,
    AuditEntry,
    Sanction,
    SanctionStatus,
    User,
)

S = SanctionStatus

REVIEW = "supervisão (ou administração)"
MAYOR = "prefeito (registrado pela administração)"
OFFICE = "supervisão ou administração"
SYSTEM = "sistema (a lei, a apuração diária)"


@dataclass(frozen=True)
class Transition:
    """One step the law allows: `event` from any of `sources` to `to` (None: the status stays,
    the step changes something else), taken by `who`, recorded in the audit log as `audit`, in
    the act's history as `happened` and told to the listeners of `tell` (None: nothing)."""

    event: str
    sources: tuple[SanctionStatus | None, ...]
    to: SanctionStatus | None
    who: str
    audit: str
    done: str = "decidido"   # the conflict message: "Este ato já foi <done> por …"
    happened: str | None = None
    tell: str | None = None


TRANSITIONS: tuple[Transition, ...] = (
    Transition("propose", (None,), S.PROPOSED, SYSTEM + "; " + REVIEW, "sanction_proposed",
               happened="proposed"),
    Transition("apply", (None,), S.CONFIRMED, SYSTEM, "sanction_applied", happened="confirmed",
               tell="act_decided"),
    # the daily fine a missed notice turns into: its history is the notice's "converted"
    Transition("start_daily", (None,), S.CONFIRMED, SYSTEM, "sanction_applied",
               tell="daily_fine_started"),
    Transition("confirm", PENDING, S.CONFIRMED, REVIEW + "; " + MAYOR, "sanction_confirmed",
               happened="confirmed", tell="act_decided"),
    Transition("amend", PENDING, S.AMENDED, REVIEW + "; " + MAYOR, "sanction_amended",
               happened="amended", tell="act_decided"),
    Transition("reject", PENDING, S.REJECTED, REVIEW + "; " + MAYOR, "sanction_rejected",
               happened="rejected", tell="act_decided"),
    Transition("supersede", PENDING, S.REJECTED, SYSTEM, "sanction_superseded",
               happened="superseded"),
    Transition("forward", PENDING, None, REVIEW, "sanction_forwarded_to_mayor",
               "encaminhado ao prefeito", happened="forwarded_to_mayor", tell="forwarded_to_mayor"),
    Transition("grant", PENDING, None, REVIEW, "sanction_deadline_granted", "alterado",
               happened="deadline_granted"),
    Transition("remove_grant", PENDING, None, REVIEW, "sanction_deadline_grant_removed",
               "alterado", happened="deadline_grant_removed"),
    Transition("deliver", AWAITS_DELIVERY, None, OFFICE, "sanction_delivered", "entregue",
               happened="delivered", tell="act_delivered"),
    Transition("appeal", APPEALABLE, S.APPEALED, OFFICE, "sanction_appealed",
               "objeto de recurso", happened="appeal_filed", tell="appeal_filed"),
    Transition("appeal_accept", (S.APPEALED,), S.APPEAL_ACCEPTED, OFFICE + "; " + MAYOR,
               "sanction_appeal_accepted", happened="appeal_decided", tell="appeal_decided"),
    # a daily fine (or another act) born of an act whose appeal was upheld: the parent's
    # history says why
    Transition("void_with_parent", ANY_LIVE, S.APPEAL_ACCEPTED, OFFICE + "; " + MAYOR,
               "sanction_appeal_accepted"),
    Transition("appeal_refuse", (S.APPEALED,), S.APPEAL_REFUSED, OFFICE + "; " + MAYOR,
               "sanction_appeal_refused", happened="appeal_decided", tell="appeal_decided"),
    Transition("convert", ENFORCEABLE, S.CONVERTED_TO_DAILY_FINE,
               SYSTEM, "sanction_converted", happened="converted"),
    Transition("convert", tuple(s for s in ANY_LIVE if s not in ENFORCEABLE),
               None, SYSTEM, "sanction_converted", happened="converted"),
    Transition("comply", OPEN, S.COMPLIED, SYSTEM + "; " + REVIEW, "sanction_complied",
               "dado como cumprido", happened="complied", tell="act_complied"),
    Transition("close", CLOSABLE, S.CLOSED, SYSTEM, "sanction_closed", "encerrado",
               happened="closed"),
    Transition("close_window", LIVE + (S.CLOSED,), None, SYSTEM, "appeal_window_closed",
               happened="appeal_window_closed"),
    Transition("move_deadline", ANY_LIVE, None, SYSTEM, "sanction_deadline_moved",
               happened="deadline_moved", tell="deadline_moved"),
    Transition("lift_suspension", ANY_LIVE + TERMINAL, None, SYSTEM,
               "sanction_suspension_lifted", happened="suspension_lifted",
               tell="suspension_lifted"),
)
# audit actions of an act that state no transition of its status (the mayor's forward is
# "sanction_forwarded_to_mayor", a transition above)
_BY_AUDIT: dict[str, list[Transition]] = {}
for _t in TRANSITIONS:
    _BY_AUDIT.setdefault(_t.audit, []).append(_t)


def find(event: str, status: SanctionStatus | None) -> Transition | None:
    """The transition `event` takes from `status`, or None when the table forbids it."""
    return next((t for t in TRANSITIONS if t.event == event and status in t.sources), None)


# --- the one way to change an act -------------------------------------------------------------------
@dataclass
class Step:
    """A transition taken on an act: what it writes once the decision is complete (the act as
    it then stands is the audit entry's "after")."""

    act: Sanction
    transition: Transition
    now: datetime
    actor: Any = None
    before: dict | None = None
    _written: set = field(default_factory=set)

    def record(self, message: str = "", *, data: dict | None = None,
               after: dict | None = None) -> None:
        """The transition's audit entry (the act before and after, plus `after`) and its event
        in the act's history (`message`, `data`)."""
        self._once("record")
        t = self.transition
        common.record(t.audit, self.act, actor=self.actor, before=self.before,
                      after=common.act_state(self.act) | (after or {}))
        if t.happened is not None:
            common.event(t.happened, town_id=self.act.municipality_id, now=self.now,
                         actor=self.actor, act=self.act, message=message, data=data)

    def tell(self, **payload) -> None:
        """The transition's notification to its listeners (`act=` and `payload`)."""
        self._once("tell")
        if self.transition.tell is not None:
            common.notify(self.transition.tell, act=self.act, **payload)

    def done(self, message: str = "", *, data: dict | None = None, after: dict | None = None,
             **payload) -> None:
        """`record` then `tell`."""
        self.record(message, data=data, after=after)
        self.tell(**payload)

    def _once(self, what: str) -> None:
        if what in self._written:
            raise RuntimeError(f"{self.transition.event}: {what} written twice")
        self._written.add(what)


def move(act: Sanction, event: str, *, now: datetime, actor=None, before: dict | None = None,
         expect: dict | None = None, values: dict | None = None) -> Step:
    """Take `event` on `act` from the status it was read in: a conditional UPDATE on that status
    (and on `expect`, more columns as read), setting the new status, `updated_at` and `values`.
    Conflict (409) when the table forbids it or another request changed the act first; run it
    before writing anything else of the decision, so a loser writes nothing. The `Step` it
    returns writes the audit entry, event and notification (`before`: the act as the decision
    found it, when the caller changed it before moving it)."""
    t = find(event, act.status)
    if t is None:
        raise conflict(act, f"Este ato está “{act.status_label.lower()}”: não cabe mais esta "
                            f"decisão.")
    before = before if before is not None else common.act_state(act)
    claim(act, expect={"status": act.status} | (expect or {}),
          values={"status": t.to or act.status, "updated_at": utc(now)} | (values or {}),
          done=t.done)
    return Step(act, t, now, actor, before)


def born(act: Sanction, event: str, *, now: datetime, actor=None) -> Step:
    """An act that starts life in the status `event` gives it (already added to the session):
    the `Step` that writes its audit entry, event and notification."""
    t = find(event, None)
    if t is None or t.to != act.status:
        raise ValueError(f"an act is not born by {event!r} as “{act.status.value}”")
    return Step(act, t, now, actor, None)


def claim(row, *, expect: dict, values: dict, done: str = "decidido", noun: str = "Este ato",
          entity: str = "sanction") -> None:
    """UPDATE `row` SET `values` only if its columns still hold `expect`; the ORM row then holds
    `values` as committed. Conflict naming who changed it first when it no longer does."""
    model = type(row)
    where = [model.id == row.id]
    for name, value in expect.items():
        column = getattr(model, name)
        where.append(column.is_(None) if value is None else column == value)
    done_ = db.session.execute(update(model).where(*where).values(**values)
                               .execution_options(synchronize_session=False))
    if done_.rowcount != 1:
        raise conflict(row, None, done=done, noun=noun, entity=entity)
    for name, value in values.items():
        set_committed_value(row, name, value)


def lock(row) -> None:
    """Hold `row` for this transaction (UPDATE … SET id = id: PostgreSQL's row lock, SQLite's one
    writer) so what is read next is what the others committed, and no one writes it meanwhile."""
    model = type(row)
    db.session.execute(update(model).where(model.id == row.id).values(id=model.id)
                       .execution_options(synchronize_session=False))


def conflict(row, message: str | None, *, done: str = "decidido", noun: str = "Este ato",
             entity: str = "sanction") -> Conflict:
    """The 409 of a decision someone else took first: who and when, from the audit log."""
    if message is None:
        last = db.session.execute(
            select(AuditEntry.actor, AuditEntry.actor_id, AuditEntry.at)
            .where(AuditEntry.entity == entity, AuditEntry.entity_id == str(row.id))
            .order_by(AuditEntry.seq.desc()).limit(1)).first()
        if last is None:
            message = f"{noun} acabou de ser {done} por outra pessoa."
        else:
            user = db.session.get(User, last.actor_id) if last.actor_id else None
            at = last.at if last.at.tzinfo else last.at.replace(tzinfo=UTC)
            message = (f"{noun} já foi {done} por {user.name if user else last.actor} em "
                       f"{town_moment(common.town_of(row), at):%d/%m/%Y às %H:%M}.")
    return Conflict({"status": message + " Recarregue a página para ver como ficou."})


# --- the law's order in the audit log ----------------------------------------------------------------
@dataclass(frozen=True)
class OutOfOrder:
    """An audit entry describing a step the table forbids."""

    seq: int
    entry_id: int
    reason: str


def _status(raw: str | None) -> str | None:
    data = audit.values(raw)
    return data.get("status") if isinstance(data, dict) else None


def _field(raw: str | None, name: str):
    data = audit.values(raw)
    return data.get(name) if isinstance(data, dict) else None


def replay(entries: Iterable[AuditEntry]) -> OutOfOrder | None:
    """Replay each act's audited transitions (entries in chain order) against the table: the
    first entry that follows no allowed transition, or contradicts the act's previous entry
    (two decisions of one act, a decision of an act never proposed, a daily fine from a deadline
    that never started, a payment of a void fine)."""
    state: dict[str, str | None] = {}      # act id -> status after its last entry
    deadline: dict[str, bool] = {}         # act id -> whether its deadline was running
    for e in entries:
        if e.entity == "fine" and e.action == "fine_payment_recorded":
            act_id = _field(e.after, "sanction_id")
            status = state.get(str(act_id))
            if act_id is not None and str(act_id) in state and status in {s.value for s in VOID}:
                return OutOfOrder(e.seq, e.id, f"entry #{e.seq} records a payment of act "
                                               f"{act_id}, which is “{status}”: nothing to pay")
            continue
        if e.entity != "sanction" or e.action not in _BY_AUDIT:
            continue
        key = e.entity_id
        before, after = _status(e.before), _status(e.after)
        known = key in state
        if known and before is not None and before != state[key]:
            return OutOfOrder(e.seq, e.id, f"entry #{e.seq} ({e.action}) starts act {key} from "
                                           f"“{before}”, but its previous entry left it "
                                           f"“{state[key]}”")
        source = before if before is not None else state.get(key)
        ok = next((t for t in _BY_AUDIT[e.action]
                   if (None if source is None else S(source)) in t.sources
                   and (t.to is None and after == source or t.to is not None
                        and after == t.to.value)), None)
        if ok is None:
            return OutOfOrder(e.seq, e.id, f"entry #{e.seq} ({e.action}) takes act {key} from "
                                           f"“{source or 'nothing'}” to “{after}”: the law's "
                                           "order does not allow it")
        if ok.event == "convert" and known and not deadline.get(key):
            return OutOfOrder(e.seq, e.id, f"entry #{e.seq} ({e.action}) converts act {key} "
                                           "into a daily fine, but its deadline never started "
                                           "(never delivered)")
        state[key] = after
        deadline[key] = _field(e.after, "deadline_at") is not None or deadline.get(key, False)
    return None


__all__ = ["Conflict", "OutOfOrder", "Step", "TRANSITIONS", "Transition", "born", "claim", "conflict",
           "find", "lock", "move", "replay"]
