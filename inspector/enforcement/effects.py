"""What a decided act does to the registry row it targets (driver, permit, licence): the
row's status and the status change that records it. Below acts and suspensions, which both
change it."""
from __future__ import annotations

from inspector import audit
from inspector.extensions import db
from inspector.models import Driver, Licence, Permit, Sanction, Status, StatusChange

# A ban ("impedimento para prestação futura do serviço", Nova Santa Helena Lei 535/2013 Art. 25
# V) ends the driver's registration and keeps it ended: registry.change_status refuses to
# reactivate it (registry_limits.ban_of).
EFFECTS = {"suspension": Status.SUSPENDED, "revocation": Status.REVOKED, "ban": Status.REVOKED}


def effect_subject(act: Sanction):
    """The registry row a suspension or revocation acts on (driver, permit, licence)."""
    if act.target in ("registration", "driver") and act.driver_id:
        return db.session.get(Driver, act.driver_id)
    if act.target == "permit" and act.permit_id:
        return db.session.get(Permit, act.permit_id)
    if act.target == "licence" and act.licence_id:
        return db.session.get(Licence, act.licence_id)
    return None


def set_status(subject, to: Status, reason: str, actor, until=None) -> StatusChange:
    """Change a registry row's status for an act, with its StatusChange and audit entry."""
    kind = {Driver: "driver", Permit: "permit", Licence: "licence"}[type(subject)]
    before = audit.snapshot(subject)
    change = StatusChange(municipality_id=subject.municipality_id, subject_type=kind,
                          subject_id=subject.id, from_status=subject.status, to_status=to,
                          reason=reason[:2000], user_id=getattr(actor, "id", None))
    subject.status = to
    subject.suspended_until = until if to == Status.SUSPENDED else None
    db.session.add(change)
    db.session.flush()
    audit.record("status_changed", kind, subject.id, before=before,
                 after=audit.snapshot(subject) | {"reason": reason[:2000]},
                 actor=actor or "enforcement-tick", municipality_id=subject.municipality_id)
    return change


__all__ = ["EFFECTS", "effect_subject", "set_status"]
