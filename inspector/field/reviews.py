"""The supervisor's answers on the phone: what was decided about the acts of the
signed-in agent's own inspections, and the supervisor's comments, full or since a version.

The version is the town's audit sequence number, as for the snapshot: every decision on an
act writes an audit entry about the act ("sanction"), a comment or the end of a review one
about the inspection. A delta holds the agent's inspections named, directly or through one
of their acts, by an entry after the phone's version. Each entry carries the same `review`
as `GET /api/field/inspections/<uuid>` (`enforcement.review_for_agent`), built here for
many inspections in a handful of queries. See docs/sync.md §7.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from inspector import clock
from inspector.clock import aware
from inspector.extensions import db
from inspector.field.snapshot import CHUNK, town_version
from inspector.models import (
    AuditEntry,
    EnforcementEvent,
    Inspection,
    InspectionItem,
    Photo,
    Sanction,
    User,
    Vehicle,
)

FULL_LIMIT = 200   # a full answer: the agent's newest inspections (a phone needs no more)


def _iso(moment: datetime | None) -> str | None:
    return aware(moment).isoformat() if moment is not None else None


def _changed_since(user: User, since: int, version: int) -> set[int]:
    """Ids of the user's inspections named by the town's audit entries in (since, version]."""
    uuids, act_ids, photo_uuids = set(), set(), set()
    for entity, entity_id in db.session.execute(
            select(AuditEntry.entity, AuditEntry.entity_id).distinct()
            .where(AuditEntry.municipality_id == user.municipality_id,
                   AuditEntry.seq > since, AuditEntry.seq <= version,
                   AuditEntry.entity.in_(("inspection", "sanction"))
                   | (AuditEntry.action == "photo_refused"))):
        if entity == "inspection":
            uuids.add(entity_id)
        elif entity == "inspection_photo":  # a photo refused for good: the agent is told
            photo_uuids.add(entity_id)
        elif entity_id.isdigit():
            act_ids.add(int(entity_id))
    mine = select(Inspection.id).where(Inspection.agent_id == user.id,
                                       Inspection.municipality_id == user.municipality_id)
    found: set[int] = set()
    for part in _chunks(uuids):
        found.update(db.session.scalars(mine.where(Inspection.uuid.in_(part))))
    for part in _chunks(photo_uuids):
        found.update(db.session.scalars(mine.where(Inspection.id.in_(
            select(Photo.inspection_id).where(Photo.uuid.in_(part))))))
    for part in _chunks(act_ids):
        found.update(db.session.scalars(mine.where(Inspection.id.in_(
            select(Sanction.inspection_id).where(Sanction.id.in_(part))))))
    return found


def _chunks(values: set) -> list[list]:
    ordered = sorted(values)
    return [ordered[i:i + CHUNK] for i in range(0, len(ordered), CHUNK)]


def _inspections(user: User, ids: set[int] | None) -> list:
    """(inspection, plate, prefix) rows of the user, newest first (at most FULL_LIMIT when
    ids is None)."""
    q = (select(Inspection, Vehicle.plate, Vehicle.prefix)
         .join(Vehicle, Vehicle.id == Inspection.vehicle_id)
         .where(Inspection.agent_id == user.id,
                Inspection.municipality_id == user.municipality_id)
         .order_by(Inspection.finished_at.desc(), Inspection.id.desc()))
    if ids is None:
        return list(db.session.execute(q.limit(FULL_LIMIT)))
    rows = []
    for part in _chunks(ids):
        rows += db.session.execute(q.where(Inspection.id.in_(part)))
    return sorted(rows, key=lambda r: (aware(r[0].finished_at), r[0].id), reverse=True)


def reviews_of(inspections: list[Inspection]) -> dict[int, dict]:
    """inspection id -> its review as the agent's app reads it (the shape of
    `enforcement.review_for_agent`), for many inspections at once."""
    ids = [i.id for i in inspections]
    acts: dict[int, list[Sanction]] = defaultdict(list)
    comments: dict[int, list] = defaultdict(list)
    for part in _chunks(set(ids)):
        for a in db.session.scalars(
                select(Sanction).where(Sanction.inspection_id.in_(part))
                .options(selectinload(Sanction.notice), selectinload(Sanction.inspection_item))
                .order_by(Sanction.inspection_id, Sanction.inspection_item_id,
                          Sanction.parent_id.is_not(None), Sanction.measure_index, Sanction.id)):
            acts[a.inspection_id].append(a)
        for row in db.session.execute(
                select(EnforcementEvent.inspection_id, EnforcementEvent.at,
                       EnforcementEvent.actor, EnforcementEvent.text)
                .where(EnforcementEvent.inspection_id.in_(part),
                       EnforcementEvent.kind == "comment")
                .order_by(EnforcementEvent.id)):
            comments[row.inspection_id].append(row)
    out = {}
    for insp in inspections:
        mine = acts.get(insp.id, [])
        items = {a.inspection_item_id: a.inspection_item.item_id for a in mine
                 if a.inspection_item is not None}
        out[insp.id] = {
            "status": insp.status.value, "status_label": insp.status.label,
            "reviewed_at": _iso(insp.reviewed_at),
            "acts": [{"id": a.id, "item_id": items.get(a.inspection_item_id), "kind": a.kind,
                      "kind_label": a.kind_label, "label": a.label, "status": a.status.value,
                      "status_label": a.status_label, "reason": a.reason or None,
                      "comment": a.comment or None, "decided_at": _iso(a.decided_at),
                      "deadline_at": _iso(a.deadline_at),
                      "notice_number": a.notice.number if a.notice else None}
                     for a in mine],
            "comments": [{"at": _iso(c.at), "by": c.actor, "text": c.text}
                         for c in comments.get(insp.id, [])],
        }
    return out


def refused_photos_of(ids: list[int]) -> dict[int, list[dict]]:
    """inspection id -> its photos the server refused for good (docs/sync.md §3): which
    photo, of which checklist item, when and why; the agent takes it again in a new
    inspection."""
    out: dict[int, list[dict]] = defaultdict(list)
    for part in _chunks(set(ids)):
        for row in db.session.execute(
                select(Photo.inspection_id, Photo.uuid, Photo.refused_at, Photo.refused_reason,
                       InspectionItem.item_id)
                .join(InspectionItem, InspectionItem.id == Photo.item_id)
                .where(Photo.inspection_id.in_(part), Photo.refused_at.is_not(None))
                .order_by(Photo.inspection_id, Photo.position)):
            out[row.inspection_id].append({"id": row.uuid, "item_id": row.item_id,
                                           "refused_at": _iso(row.refused_at),
                                           "reason": row.refused_reason or ""})
    return out


def build_reviews(user: User, since: int | None = None, now: datetime | None = None) -> dict:
    """The user's inspections with their review: the newest FULL_LIMIT (since=None), or
    those changed since a version the phone holds (a full answer when that is more)."""
    now = now or clock.now()
    version = town_version(user.municipality_id)
    if since is not None and since > version:
        since = None  # the phone is ahead of this server (restored backup): start over
    ids = None
    if since is not None:
        ids = _changed_since(user, since, version)
        if len(ids) > FULL_LIMIT:
            ids = None  # long away: the newest ones are what the phone shows anyway
    rows = _inspections(user, ids)
    reviews = reviews_of([r[0] for r in rows])
    refused = refused_photos_of([r[0].id for r in rows])
    return {
        "version": version, "full": ids is None, "limit": FULL_LIMIT,
        "generated_at": now.isoformat(timespec="seconds"),
        "inspections": [{"id": insp.uuid, "vehicle_id": insp.vehicle_id, "plate": plate,
                         "prefix": prefix, "service": insp.service.value,
                         "finished_at": _iso(insp.finished_at),
                         "failed_items": insp.failed_items,
                         "registry_changed": bool(insp.registry_changed),
                         "refused_photos": refused.get(insp.id, []),
                         "review": reviews[insp.id]}
                        for insp, plate, prefix in rows],
    }


__all__ = ["FULL_LIMIT", "build_reviews", "refused_photos_of", "reviews_of"]
