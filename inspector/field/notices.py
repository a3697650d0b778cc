"""Open notices and acts for the result card: what is still running against a
vehicle, its drivers or its holder, as the snapshot's `notices` list.

"Open" = decided and still followed: confirmed, amended, converted into a daily fine, under
appeal, appeal refused. Proposals nobody decided, rejected, complied, voided and closed acts
are not sent (a delta lists them in `deleted.notices` when they leave). Each row says what is
wrong (the checklist item's wording, or the engine's finding), the article broken, the
deadline (or that its document still waits for delivery, so no time runs) and the status, and
whom it concerns; no name, no amount, no access code.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from inspector.clock import aware
from inspector.extensions import db
from inspector.models import (
    KIND_LABELS,
    OPEN,
    InspectionItem,
    Notice,
    Sanction,
    SanctionStatus,
)

# the pack's measure target -> whose card shows the act besides its vehicle's
CONCERNS = {"driver": "driver", "registration": "driver", "holder": "holder",
            "company": "holder", "permit": "holder"}
CITATION_KEYS = ("law", "article", "anchor", "law_slug")
CHUNK = 500


def _iso(moment: datetime | None) -> str | None:
    return aware(moment).isoformat() if moment is not None else None


def _citation(*stored: dict | None) -> dict | None:
    """The first stored citation there is, without the quote (the card links the law)."""
    for cite in stored:
        if cite:
            return {k: cite.get(k) for k in CITATION_KEYS if cite.get(k) is not None}
    return None


def notice_json(r) -> dict:
    """One open act as the phone stores it."""
    status = SanctionStatus(r.status)
    return {"id": r.id, "number": r.number, "kind": r.kind,
            "kind_label": KIND_LABELS.get(r.kind, r.kind), "label": r.label,
            "what": r.item_label or r.required_action or r.label,
            "required_action": r.required_action or None,
            "citation": _citation(r.breach_citation, r.citation),
            "deadline_at": _iso(r.deadline_at),
            # how the legal calendar counted it (rule, span, days without office skipped)
            "deadline_explain": r.deadline_explain or None,
            "appeal_until": r.appeal_until.isoformat() if r.appeal_until else None,
            "appeal_explain": r.appeal_explain or None, "status": status.value,
            # decided in the office, its document not delivered yet: no time runs
            "awaiting_delivery": bool(r.awaiting_delivery),
            "status_label": status.label, "suspended": bool(r.suspended),
            "issued_at": _iso(r.issued_at or r.decided_at),
            "concerns": CONCERNS.get(r.target, "vehicle"), "vehicle_id": r.vehicle_id,
            "driver_id": r.driver_id, "holder_id": r.holder_id}


def open_notices(town_id: int, act_ids: set[int] | None = None) -> tuple[list[dict], list[int]]:
    """The town's open acts (all, or among `act_ids`), ordered by id, and which of `act_ids`
    are not open (any more)."""
    q = (select(Sanction.id, Sanction.kind, Sanction.label, Sanction.target, Sanction.status,
                Sanction.vehicle_id, Sanction.driver_id, Sanction.holder_id,
                Sanction.breach_citation, Sanction.citation, Sanction.required_action,
                Sanction.deadline_at, Sanction.deadline_explain, Sanction.appeal_until,
                Sanction.appeal_explain, Sanction.decided_at, Sanction.suspended,
                Sanction.awaiting_delivery.label("awaiting_delivery"),
                Notice.number, Notice.issued_at, InspectionItem.label.label("item_label"))
         .outerjoin(Notice, Notice.sanction_id == Sanction.id)
         .outerjoin(InspectionItem, InspectionItem.id == Sanction.inspection_item_id)
         .where(Sanction.municipality_id == town_id, Sanction.status.in_(OPEN)))
    if act_ids is None:
        rows = list(db.session.execute(q.order_by(Sanction.id)))
        return [notice_json(r) for r in rows], []
    rows = []
    ordered = sorted(act_ids)
    for i in range(0, len(ordered), CHUNK):
        rows += db.session.execute(q.where(Sanction.id.in_(ordered[i:i + CHUNK])))
    rows.sort(key=lambda r: r.id)
    found = {r.id for r in rows}
    return [notice_json(r) for r in rows], [i for i in ordered if i not in found]


__all__ = ["notice_json", "open_notices"]
