"""Proposals for inspections the field sync completed.

The sync only stores evidence: it answers the phone as soon as the inspection and its
photos are safe and leaves the legal reading to enforcement. `propose_pending` makes the
proposals of every completed inspection that has none yet. It runs at the start of each
`tick` (every minute) and before any review page is served, so a supervisor never sees an
inspection without its proposals. Each inspection is claimed with a conditional UPDATE, so
two runs at once (two supervisors, a tick beside a page) make its proposals exactly once.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from inspector.clock import utc
from inspector.extensions import db
from inspector.models import Inspection

BATCH = 200


def propose_pending(now: datetime, town_id: int | None = None, limit: int = BATCH) -> list[int]:
    """Propose for up to `limit` completed, unproposed inspections (oldest first), in the
    caller's transaction; return their ids. The caller commits."""
    from inspector.enforcement import (
        on_inspection_complete,  # the one place that proposes and announces
    )

    q = select(Inspection.id).where(Inspection.proposed_at.is_(None),
                                    Inspection.completed_at.is_not(None))
    if town_id is not None:
        q = q.where(Inspection.municipality_id == town_id)
    done = []
    for iid in db.session.scalars(q.order_by(Inspection.completed_at, Inspection.id)
                                  .limit(limit)).all():
        claimed = db.session.execute(
            update(Inspection).where(Inspection.id == iid, Inspection.proposed_at.is_(None))
            .values(proposed_at=utc(now)).execution_options(synchronize_session=False))
        if claimed.rowcount != 1:
            continue  # another run has it
        insp = db.session.get(Inspection, iid, populate_existing=True)
        on_inspection_complete(insp, now)
        done.append(iid)
    return done
