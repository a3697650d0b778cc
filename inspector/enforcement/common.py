"""Shared pieces of the enforcement services: clock, JSON, the event log and its listeners.

Times are stored in UTC (SQLite keeps no offset: a naive value read back is UTC); a legal
day is the act's town's day, in the town's IANA zone (`inspector.clock`, `town_of`).
"""
from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, select

from inspector import audit, clock, rules
from inspector.clock import aware, utc
from inspector.errors import ValidationFailed
from inspector.extensions import db, insert_once
from inspector.models import EnforcementEvent, Holder, Municipality, Role, Sanction
from inspector.rules import (
    ActKind,
    Measure,
)

log = logging.getLogger(__name__)

TICK_ACTOR = "enforcement-tick"
REMIND_BEFORE = timedelta(days=2)   # product setting: "a deadline two days away"
MAX_TEXT = 4000

__all__ = ["NotAllowed", "REMIND_BEFORE", "SUBJECT", "TICK_ACTOR", "appeal_fields", "aware",
           "event", "holder_of", "jsonable", "measure_fields", "money_fields", "notify",
           "pack_measure", "pack_of", "subject_of", "subscribe", "clean_text", "town_of", "utc"]


class NotAllowed(ValidationFailed):
    """The user's role may not take this decision (the law names another authority)."""


# --- clock -------------------------------------------------------------------------------------
def town_of(row) -> Municipality | None:
    """The town of an act (or any town-scoped row): whose clock says what day it is (None for a
    row of no town: `inspector.clock` then reads Mato Grosso's)."""
    town_id = getattr(row, "municipality_id", None)
    return db.session.get(Municipality, town_id) if town_id is not None else None


# --- JSON --------------------------------------------------------------------------------------
def jsonable(value: Any) -> Any:
    """A value as a JSON column keeps it: dates and instants as ISO text (None stays None)."""
    return None if value is None else audit.jsonable(value)


def clean_text(value: Any, field: str, *, required: bool = True, minimum: int = 5,
         maximum: int = MAX_TEXT, what: str = "o motivo") -> str:
    """Clean free text from a form; ValidationFailed naming the field when it will not do."""
    value = str(value or "").strip()
    if not value:
        if required:
            raise ValidationFailed({field: f"Informe {what}."})
        return ""
    if len(value) < minimum:
        raise ValidationFailed({field: f"Texto curto demais: diga {what} com clareza."})
    if len(value) > maximum:
        raise ValidationFailed({field: f"Texto longo demais (máximo {maximum} caracteres)."})
    return value


# --- who may decide ---------------------------------------------------------------------------
def role_of(user) -> Role | None:
    """The role of a user (None for the system)."""
    return getattr(user, "role", None)


def require_role(user, *roles: Role, message: str) -> None:
    """NotAllowed unless the user holds one of the roles."""
    if role_of(user) not in roles:
        raise NotAllowed({"role": message})


def holder_of(act: Sanction) -> Holder | None:
    """The permit holder an act concerns (its own, or its vehicle's or driver's holder)."""
    if act.holder_id is not None:
        return db.session.get(Holder, act.holder_id)
    for row in (act.vehicle, act.driver):
        holder_id = getattr(row, "holder_id", None)
        if holder_id is not None:
            return db.session.get(Holder, holder_id)
    return None


# --- events and listeners ------------------------------------------------------------------------
_listeners: dict[str, list[Callable[..., None]]] = defaultdict(list)


def subscribe(kind: str, fn: Callable[..., None]) -> Callable[..., None]:
    """Call `fn(**payload)` in the same transaction whenever `kind` happens (see docs)."""
    if fn not in _listeners[kind]:
        _listeners[kind].append(fn)
    return fn


def unsubscribe(kind: str, fn: Callable[..., None]) -> None:
    """Stop calling `fn` for `kind`."""
    if fn in _listeners.get(kind, []):
        _listeners[kind].remove(fn)


def notify(kind: str, **payload) -> None:
    """Tell every listener of `kind`; a listener that raises aborts the transaction."""
    for fn in list(_listeners.get(kind, ())):
        fn(**payload)


_DEDUPED = select(EnforcementEvent.id).where(EnforcementEvent.dedupe_key == bindparam("key"))


def event(kind: str, *, town_id: int, now: datetime, actor=None, act: Sanction | None = None,
          inspection_id: int | None = None, message: str = "", data: dict | None = None,
          dedupe_key: str | None = None, look_first: bool = True) -> EnforcementEvent | None:
    """Append one event to the enforcement history; None when `dedupe_key` was already used.
    `look_first=False`: the caller expects the key unused (an inspection just claimed), so its
    unique index alone answers, without a look-up first."""
    if dedupe_key is not None and look_first:
        exists = db.session.scalar(_DEDUPED, {"key": dedupe_key})
        if exists is not None:
            return None
    row = EnforcementEvent(
        municipality_id=town_id, sanction_id=act.id if act is not None else None,
        inspection_id=inspection_id if inspection_id is not None
        else (act.inspection_id if act is not None else None),
        kind=kind, at=utc(now), recorded_at=clock.now(),
        actor_id=getattr(actor, "id", None),
        actor=getattr(actor, "username", None) or (actor if isinstance(actor, str) else
                                                   TICK_ACTOR),
        text=message, data=jsonable(data), dedupe_key=dedupe_key)
    if dedupe_key is None:
        db.session.add(row)
        db.session.flush()
        return row
    return row if insert_once(row) else None  # False: a concurrent writer recorded it first


def record(action: str, act: Sanction, *, actor, before: dict | None = None,
           after: dict | None = None) -> None:
    """An audit-log entry about an act, in the caller's transaction."""
    audit.record(action, "sanction", act.id, before=before, after=after,
                 actor=actor if actor is not None else TICK_ACTOR,
                 municipality_id=act.municipality_id)


def pack_of(act: Sanction) -> rules.RulePack:
    """The rule pack the act was proposed under."""
    return next(p for p in rules.load_all() if p.id == act.pack_id)


def pack_measure(act: Sanction) -> Measure | None:
    """The act's measure in its rule pack (its rung or offence, its place), or None when the
    pack, the group or the place is gone, or the act was amended into another kind."""
    pack = next((p for p in rules.load_all() if p.id == act.pack_id), None)
    if pack is None:
        return None
    if act.step_id is not None:
        group = next((s for s in pack.ladder if s.id == act.step_id), None)
    elif act.offence_id is not None:
        group = next((o for o in pack.offences if o.id == act.offence_id), None)
    else:
        group = None
    if group is None or not 0 <= act.measure_index < len(group.measures):
        return None
    measure = group.measures[act.measure_index]
    return measure if measure.kind == act.kind else None


# --- an act's fields, in groups (a derived act is built from these, not column by column) -------
# whom and what an act concerns: a daily fine or a removal request born of a notice keeps them
SUBJECT = ("municipality_id", "inspection_id", "pack_id", "law", "rule_id", "step_id",
           "occurrence", "offender", "holder_id", "driver_id", "vehicle_id", "breach_citation")


def subject_of(act: Sanction, *more: str) -> dict:
    """The act's `SUBJECT` fields (and `more`), as one value for the act derived from it."""
    return {name: getattr(act, name) for name in SUBJECT + more}


def measure_fields(m) -> dict:
    """What a rule pack's measure says of the act it becomes."""
    return {"kind": m.kind, "target": m.target, "label": m.label, "decided_by": m.decided_by,
            "citation": jsonable(m.citation.as_dict())}


def appeal_fields(appeal) -> dict:
    """The appeal a pack grants against an act (None: the law sets none)."""
    return {"appeal_days": appeal.days if appeal else None,
            "appeal_to": appeal.to if appeal else None,
            "appeal_suspensive": appeal.suspensive if appeal else None,
            "appeal_citation": jsonable(appeal.citation.as_dict()) if appeal else None}


def money_fields(cash) -> dict:
    """An amount of the pack in the law's unit and in BRL (`rules.Money`; None: no amount)."""
    if cash is None:
        return {}
    return {"amount_unit": cash.unit, "amount": cash.amount, "amount_max": cash.max,
            "amount_per": cash.per, "amount_decree_key": cash.decree_key,
            "amount_brl": cash.brl, "amount_basis": cash.basis}


def act_state(act: Sanction) -> dict:
    """The fields of an act that decisions change, as the audit log records them."""
    out = {"status": act.status.value, "kind": act.kind, "amount": act.amount,
           "amount_unit": act.amount_unit, "amount_brl": act.amount_brl,
           "decided_by": act.decided_by, "awaiting_mayor": act.awaiting_mayor,
           "suspended": act.suspended, "deadline_at": aware(act.deadline_at),
           "appeal_until": act.appeal_until, "reason": act.reason or None,
           "decision_ref": act.decision_ref or None}
    if act.deadline_granted_by:   # Tapurah Art. 19: who granted how many days, and why
        out |= {"deadline_days": act.deadline_days, "deadline_granted_by": act.deadline_granted_by,
                "deadline_grant_reason": act.deadline_grant_reason}
    if act.kind == ActKind.SUSPENSION:
        out |= {"suspension_days": act.suspension_days, "suspension_start": act.suspension_start,
                "suspension_end": act.suspension_end}
    return out
