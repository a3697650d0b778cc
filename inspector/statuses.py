"""The one writer of a registry row's status (a driver's registration, a permit, a licence).

The registry's screens and imports (`registry.records.change_status`) and the legal acts
(`enforcement/effects.py`) change a status only here: the same refusals hold for everyone (a
driver banned by an act in force stays revoked: Nova Santa Helena Lei 535/2013 Art. 25 V), the
change is a conditional UPDATE on the status read (of two changes at once, one wins: 409), and
its `StatusChange` names the act that caused it (`sanction_id`), never only its reason text.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import inspect as sa_inspect
from sqlalchemy import select, update

from inspector import audit
from inspector.errors import Conflict, ValidationFailed
from inspector.extensions import db
from inspector.models import Driver, Licence, Permit, Sanction, Status, StatusChange
from inspector.rules import ActKind

# Below the registry and the legal acts, which both change a status through it.
STATUS_LABELS = {Status.ACTIVE: "Ativo", Status.SUSPENDED: "Suspenso", Status.REVOKED: "Cassado"}

KINDS = {Driver: "driver", Permit: "permit", Licence: "licence"}


def refusal(subject, target: Status, *, sanction_id: int | None = None) -> str | None:
    """Why nobody may give the row `target` now (None: it may): it has it already, or the
    driver is banned by an act in force (other than the one now applying the ban)."""
    if target == subject.status:
        return f"a situação já é “{STATUS_LABELS[target]}”"
    if isinstance(subject, Driver) and (ban := ban_of(subject)) is not None \
            and ban.id != sanction_id:
        return ban_message(ban)
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



def _snap(row) -> dict:
    """The row's audit snapshot with every column loaded (a refreshed row is expired)."""
    for attr in sa_inspect(row).mapper.column_attrs:
        if attr.key not in ("photo", "photo_thumb", "name_folded"):
            getattr(row, attr.key)
    return audit.snapshot(row)


# --- a ban keeps the registration ended -------------------------------------------------------
_VOID = ("appeal_accepted", "rejected")


def ban_of(driver: Driver):
    """The act banning this driver from the service (kind `ban`, its effect applied, not
    undone by an upheld appeal or a rejection), or None: while it stands the registration
    stays revoked (Nova Santa Helena Lei 535/2013 Art. 25 V, "impedimento para prestação
    futura do serviço")."""
    return db.session.scalar(
        select(Sanction).where(Sanction.driver_id == driver.id, Sanction.kind == ActKind.BAN,
                               Sanction.effect_applied_at.is_not(None),
                               Sanction.status.not_in(_VOID))
        .order_by(Sanction.id).limit(1))


def ban_message(act) -> str:
    """Why a banned driver's registration cannot be reactivated, with the act's article."""
    article = (act.citation or {}).get("article", "")
    cite = f"{act.law}, {article}" if article else act.law
    return (f"condutor impedido de prestar o serviço pelo ato nº {act.id} ({act.label}; "
            f"{cite}): o registro não pode voltar a valer enquanto o ato estiver em vigor")
