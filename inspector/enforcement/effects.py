"""What a decided act does to the registry row it targets (driver, permit, licence): the
row's status and the status change that records it. Below acts and suspensions, which both
change it."""
from __future__ import annotations

from inspector import statuses
from inspector.extensions import db
from inspector.models import Driver, Licence, Permit, Sanction, Status, StatusChange
from inspector.rules import ActKind

# A ban ("impedimento para prestação futura do serviço", Nova Santa Helena Lei 535/2013 Art. 25
# V) ends the driver's registration and keeps it ended: registry.change_status refuses to
# reactivate it (statuses.ban_of).
EFFECTS = {ActKind.SUSPENSION: Status.SUSPENDED, ActKind.REVOCATION: Status.REVOKED,
           ActKind.BAN: Status.REVOKED}


def effect_subject(act: Sanction):
    """The registry row a suspension or revocation acts on (driver, permit, licence)."""
    if act.target in ("registration", "driver") and act.driver_id:
        return db.session.get(Driver, act.driver_id)
    if act.target == "permit" and act.permit_id:
        return db.session.get(Permit, act.permit_id)
    if act.target == "licence" and act.licence_id:
        return db.session.get(Licence, act.licence_id)
    return None


def set_status(subject, to: Status, reason: str, actor, until=None, *,
               act: Sanction | None = None) -> StatusChange:
    """Change a registry row's status for an act, through the registry's one writer of a
    status (the same refusals as by hand; the change names the act)."""
    return statuses.write(subject, to, reason, actor, until=until,
                                 sanction_id=act.id if act is not None else None)


__all__ = ["EFFECTS", "effect_subject", "set_status"]
