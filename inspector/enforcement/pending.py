"""Proposals for inspections the field sync completed.

The sync only stores evidence: it answers the phone as soon as the inspection and its
photos are safe and leaves the legal reading to enforcement. `propose_pending` makes the
proposals of every completed inspection that has none yet. The sync request that completes
an inspection runs it for that inspection, in a transaction of its own once the evidence is
committed; the start of each `tick` (every minute) takes whatever that left (a concurrent
writer, a crash). Review pages only read. Each inspection is claimed with a conditional UPDATE, so
two runs at once (two supervisors, a tick beside a page) make its proposals exactly once.
"""
from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import joinedload, undefer

from inspector.clock import utc
from inspector.enforcement.common import event, notify
from inspector.enforcement.propose import comply_from_reinspection, propose_for_inspection
from inspector.extensions import db
from inspector.models import Inspection

log = logging.getLogger(__name__)

BATCH = 200

_table = Inspection.__table__
# The sync's own inspection, claimed and named in one statement (a conditional UPDATE with
# RETURNING, built once): of two runs at once, the second finds proposed_at set and gets no row.
_CLAIM_ONE = (update(_table)
              .where(_table.c.uuid == bindparam("b_uuid"), _table.c.proposed_at.is_(None),
                     _table.c.completed_at.is_not(None))
              .values(proposed_at=bindparam("b_at")).returning(_table.c.id))
_CLAIM_ONE_OF_TOWN = _CLAIM_ONE.where(_table.c.municipality_id == bindparam("b_town"))
# What the proposals read of every claimed inspection, in one SELECT instead of one lazy load
# each: its items (failed ones propose, passed ones comply), its vehicle (offenders, the
# supervisors' message), its agent (the message) and its body (the driver and grants told).
_LOADED = (joinedload(Inspection.items), joinedload(Inspection.vehicle),
           joinedload(Inspection.agent), undefer(Inspection.body))
_CLAIMED = (select(Inspection).where(Inspection.id == bindparam("b_id")).options(*_LOADED)
            .execution_options(populate_existing=True))


def propose_pending(now: datetime, town_id: int | None = None, limit: int = BATCH, *,
                    uuid: str | None = None) -> list[int]:
    """Propose for up to `limit` completed, unproposed inspections (oldest first; `uuid`: that
    one only), in the caller's transaction; return their ids. The caller commits."""
    if uuid is not None and limit > 0:   # the sync's request: one inspection, one statement
        params = {"b_uuid": uuid, "b_at": utc(now)} | ({} if town_id is None else {"b_town": town_id})
        db.session.flush()   # a Core statement does not autoflush: the claim sees what is pending
        iid = db.session.execute(_CLAIM_ONE if town_id is None else _CLAIM_ONE_OF_TOWN,
                                 params).scalar()
        if iid is None:
            return []   # not complete, proposed already, or another run has it
        on_inspection_complete(_claimed(iid), now)
        return [iid]
    q = select(Inspection.id).where(Inspection.proposed_at.is_(None),
                                    Inspection.completed_at.is_not(None))
    if town_id is not None:
        q = q.where(Inspection.municipality_id == town_id)
    if uuid is not None:
        q = q.where(Inspection.uuid == uuid)
    done = []
    for iid in db.session.scalars(q.order_by(Inspection.completed_at, Inspection.id)
                                  .limit(limit)).all():
        claimed = db.session.execute(
            update(Inspection).where(Inspection.id == iid, Inspection.proposed_at.is_(None))
            .values(proposed_at=utc(now)).execution_options(synchronize_session=False))
        if claimed.rowcount != 1:
            continue  # another run has it
        on_inspection_complete(_claimed(iid), now)
        done.append(iid)
    return done


def _claimed(iid: int) -> Inspection:
    """A just-claimed inspection as it now stands, with what its proposals read."""
    return db.session.execute(_CLAIMED, {"b_id": iid}).unique().scalar_one()


def on_inspection_complete(insp: Inspection, now: datetime) -> list:
    """An inspection became complete: propose its acts, close what it finds complied with.

    Runs inside the field sync's transaction, in a savepoint: if anything here fails, the
    evidence is still stored (the phone must never be refused because of a proposal) and
    a `no_proposal` event says so; `propose_for_inspection` can be run again later.
    """
    if insp.proposed_at is None:
        insp.proposed_at = utc(now)
    if insp.kind.value != "street":
        return []  # a vistoria proposes no act: its result is decided (inspector/vistorias)
    try:
        with db.session.begin_nested():
            acts = propose_for_inspection(insp, now)
            comply_from_reinspection(insp, now)
            event("inspection_to_review", town_id=insp.municipality_id, now=now, actor=None,
                  inspection_id=insp.id,
                  message=f"Vistoria completa: {len(acts)} ato(s) proposto(s).",
                  dedupe_key=f"to_review:{insp.id}", look_first=False)
            notify("inspection_to_review", inspection=insp, acts=acts)
    except Exception:  # noqa: BLE001 - the evidence matters more than the proposal
        log.exception("enforcement: proposals for inspection %s failed", insp.uuid)
        event("no_proposal", town_id=insp.municipality_id, now=now, actor=None,
              inspection_id=insp.id, message="Propostas não geradas (erro interno); "
              "gere-as de novo pela revisão.")
        return []
    return acts
