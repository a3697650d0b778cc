"""The one writer of a registry row's status (a driver's registration, a permit, a licence).

The registry's screens and imports (`records.change_status`) and the legal acts
(`enforcement/effects.py`) change a status only here: the same refusals hold for everyone (a
driver banned by an act in force stays revoked: Nova Santa Helena Lei 535/2013 Art. 25 V), the
change is a conditional UPDATE on the status read (of two changes at once, one wins: 409), and
its `StatusChange` names the act that caused it (`sanction_id`), never only its reason text.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import update

from inspector import audit
from inspector.errors import Conflict, ValidationFailed
from inspector.extensions import db
from inspector.models import Driver, Licence, Permit, Status, StatusChange
from inspector.registry import limits
from inspector.registry.base import _snap
from inspector.registry.values import label

KINDS = {Driver: "driver", Permit: "permit", Licence: "licence"}


def refusal(subject, target: Status, *, sanction_id: int | None = None) -> str | None:
    """Why nobody may give the row `target` now (None: it may): it has it already, or the
    driver is banned by an act in force (other than the one now applying the ban)."""
    if target == subject.status:
        return f"a situação já é “{label(target)}”"
    if isinstance(subject, Driver) and (ban := limits.ban_of(subject)) is not None \
            and ban.id != sanction_id:
        return limits.ban_message(ban)
    return None


def write(subject, target: Status, reason: str, actor, *, sanction_id: int | None = None,
          until: date | None = None) -> StatusChange:
    """Give the row `target` (a suspension's last day `until`), record the change with its
    reason and, when an act made it, the act; audit it. ValidationFailed when `refusal` says
    so, Conflict when someone changed the row since it was read; nothing written then."""
    why = refusal(subject, target, sanction_id=sanction_id)
    if why is not None:
        error = Conflict if target == subject.status else ValidationFailed
        raise error({"status": why})
    kind = KINDS[type(subject)]
    before = _snap(subject)
    change = StatusChange(municipality_id=subject.municipality_id, subject_type=kind,
                          subject_id=subject.id, from_status=subject.status, to_status=target,
                          reason=reason[:2000], user_id=getattr(actor, "id", None),
                          sanction_id=sanction_id)
    model = type(subject)
    done = db.session.execute(
        update(model).where(model.id == subject.id, model.status == subject.status)
        .values(status=target, suspended_until=until if target == Status.SUSPENDED else None)
        .execution_options(synchronize_session=False))
    if done.rowcount != 1:
        raise Conflict({"status": "a situação acabou de ser mudada por outra pessoa: recarregue"})
    db.session.refresh(subject)
    db.session.add(change)
    db.session.flush()
    audit.record("status_changed", kind, subject.id, before=before,
                 after=_snap(subject) | {"reason": reason[:2000]},
                 actor=actor if actor is not None else "enforcement-tick",
                 municipality_id=subject.municipality_id)
    return change


__all__ = ["KINDS", "refusal", "write"]
