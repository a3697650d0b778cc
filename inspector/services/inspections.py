"""Receive inspections and their photos from the field app, exactly once (docs/sync.md).

An inspection is identified by the phone's UUID; "the same" means the same SHA-256
of its canonical JSON. Photos are declared by the inspection and arrive one by one,
each checked against its declared SHA-256. Every state change writes an audit entry
in the same transaction. Concurrent identical requests meet at a unique constraint:
the loser rolls back and answers as a replay.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import String, and_, cast, insert, or_, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import load_only

from ..extensions import db
from ..models import (AuditEntry, Credential, Inspection, InspectionItem, InspectionStatus,
                      InsurancePolicy, ItemResult, Licence, Municipality, Permit, Photo,
                      Vehicle, vehicle_drivers)
from . import audit, evidence
from .errors import ValidationFailed
from .inspection_input import Parsed, parse_inspection

RETRIES = 4


class Conflict(Exception):
    """The UUID is taken by different content: the stored record stays as it is."""


class NotFound(Exception):
    """No such inspection in the user's town."""


@dataclass
class Received:
    """The outcome of a PUT: whether it created something, and the inspection's progress."""

    created: bool
    inspection: Inspection | None  # None where the answer was built without loading it
    progress: dict = field(default_factory=dict)


def canonical_body(raw: bytes) -> tuple[dict, str, str]:
    """Parse a request body; return it with its canonical JSON and that JSON's SHA-256."""
    try:
        payload = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError):
        raise ValidationFailed({"body": "O corpo do pedido não é um JSON válido."}) from None
    if not isinstance(payload, dict):
        raise ValidationFailed({"body": "O corpo do pedido deve ser um objeto JSON."})
    text = audit.canonical(payload)
    return payload, text, hashlib.sha256(text.encode()).hexdigest()


def _no_constant(name: str):
    raise ValueError(name)


def progress(insp: Inspection) -> dict:
    """What the phone needs to know: complete or not, and which photos are missing."""
    missing = db.session.scalars(
        select(Photo.uuid).where(Photo.inspection_id == insp.id, Photo.received_at.is_(None))
        .order_by(Photo.position)).all()
    return {"id": insp.uuid, "complete": not missing, "missing_photos": list(missing),
            "status": insp.status.value, "registry_changed": bool(insp.registry_changed)}


def find(uuid: str, town_id: int) -> Inspection:
    """An inspection of this town by its UUID, or NotFound."""
    insp = db.session.scalar(select(Inspection).where(Inspection.uuid == uuid))
    if insp is None or insp.municipality_id != town_id:
        raise NotFound(uuid)
    return insp


def _retrying(fn):
    """Run a write, retrying when a concurrent writer won a race (unique key, lock)."""
    for attempt in range(RETRIES):
        try:
            return fn()
        except (IntegrityError, OperationalError):
            db.session.rollback()
            if attempt == RETRIES - 1:
                raise
    raise AssertionError("unreachable")


# ------------------------------------------------------------------ inspections
def receive_inspection(uuid: str, raw: bytes, *, user) -> Received:
    """Store a new inspection (201), recognise a replay (200), or refuse (Conflict, 422)."""
    uuid = uuid.lower()
    payload, text, digest = canonical_body(raw)
    existing = _replay(uuid, digest, user)
    if existing is not None:
        return existing
    town = db.session.get(Municipality, user.municipality_id)
    try:
        parsed = parse_inspection(payload, town)
    except ValidationFailed:
        again = _replay(uuid, digest, user)  # a concurrent twin committed meanwhile
        if again is not None:
            return again
        raise

    def write() -> Received:
        again = _replay(uuid, digest, user)
        if again is not None:
            return again
        insp = _store(uuid, parsed, text, digest, town, user)
        missing = [ph.uuid for item in parsed.items for ph in item.photos]  # none received
        answer = {"id": uuid, "complete": not missing, "missing_photos": missing,
                  "status": insp.status.value, "registry_changed": bool(insp.registry_changed)}
        db.session.commit()
        return Received(True, insp, answer)

    return _retrying(write)


def _replay(uuid: str, digest: str, user) -> Received | None:
    """The stored inspection when this UUID is known: identical (200) or Conflict (409)."""
    insp = db.session.scalar(select(Inspection).where(Inspection.uuid == uuid))
    if insp is None:
        return None
    if insp.municipality_id != user.municipality_id or insp.body_sha256 != digest:
        raise Conflict("Esta vistoria já foi recebida com outro conteúdo; a versão "
                       "registrada foi mantida.")
    return Received(False, insp, progress(insp))


def _store(uuid: str, p: Parsed, text: str, digest: str, town: Municipality,
           user) -> Inspection:
    """Insert the inspection, its items and its declared photos, and audit it."""
    now = datetime.now(UTC)
    changes = registry_changes(p.vehicle, p.snapshot_version)
    n_photos = sum(len(i.photos) for i in p.items)
    insp = Inspection(
        uuid=uuid, municipality_id=town.id, agent_id=user.id, vehicle_id=p.vehicle.id,
        service=p.vehicle.service, credential_token=p.credential_token,
        credential_id=_credential_id(p.credential_token, town.id),
        started_at=p.started_at, finished_at=p.finished_at, rules_day=p.rules_day,
        snapshot_version=p.snapshot_version, lat=p.lat, lon=p.lon, accuracy_m=p.accuracy_m,
        body_sha256=digest, body=text, ack_name=p.ack_name, ack_signature=p.ack_signature,
        status=InspectionStatus.INCOMPLETE if n_photos else InspectionStatus.AWAITING_REVIEW,
        failed_items=sum(1 for i in p.items if i.result == ItemResult.FAIL),
        registry_changed=bool(changes),
        registry_changes=audit.canonical(changes) if changes else None,
        received_at=now, completed_at=None if n_photos else now)
    db.session.add(insp)
    db.session.flush()  # the unique UUID is claimed here; a concurrent twin fails now
    db.session.execute(insert(InspectionItem), [  # one multi-row INSERT
        {"inspection_id": insp.id, "position": index, "item_id": item.item_id,
         "result": item.result, "note": item.note, "label": item.label,
         "citation": audit.canonical(item.citation) if item.citation else None}
        for index, item in enumerate(p.items)])
    by_position = dict(db.session.execute(
        select(InspectionItem.position, InspectionItem.id)
        .where(InspectionItem.inspection_id == insp.id)).all())
    item_ids = [by_position[index] for index in range(len(p.items))]
    photos = [{"uuid": ph.uuid, "inspection_id": insp.id, "item_id": item_id, "sha256": ph.sha256,
               "mime": ph.mime, "size": ph.size, "taken_at": ph.taken_at}
              for item, item_id in zip(p.items, item_ids) for ph in item.photos]
    if photos:
        db.session.execute(insert(Photo), [row | {"position": n} for n, row in enumerate(photos)])
    audit.record("inspection_received", "inspection", uuid, actor=user,
                 municipality_id=town.id, after={
                     "vehicle_id": p.vehicle.id, "agent_id": user.id,
                     "status": insp.status.value, "body_sha256": digest,
                     "items": len(p.items), "failed_items": insp.failed_items,
                     "photos_declared": n_photos, "registry_changed": insp.registry_changed})
    return insp  # complete: enforcement.propose_pending makes its proposals (issue 6)


def _credential_id(token: str | None, town_id: int) -> int | None:
    """The credential a scanned token names in this town (forged or foreign: None)."""
    if not token:
        return None
    digest = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
    return db.session.scalar(select(Credential.id).where(Credential.token_hash == digest,
                                                         Credential.municipality_id == town_id))


def registry_changes(vehicle: Vehicle, since: int | None) -> list[dict]:
    """Audit entries after `since` about this vehicle, its licences, insurance, drivers,
    holder, permits and credentials: what the agent's phone did not know. One query."""
    if since is None:
        return []
    vid, hid = vehicle.id, vehicle.holder_id

    def ids(column, *where):
        return select(cast(column, String)).where(*where)
    drivers = select(vehicle_drivers.c.driver_id).where(vehicle_drivers.c.vehicle_id == vid)
    related = [
        ("vehicle", [str(vid)]),
        ("holder", [str(hid)] if hid is not None else []),
        ("driver", ids(vehicle_drivers.c.driver_id, vehicle_drivers.c.vehicle_id == vid)),
        ("licence", ids(Licence.id, Licence.vehicle_id == vid)),
        ("insurance", ids(InsurancePolicy.id, InsurancePolicy.vehicle_id == vid)),
        ("permit", ids(Permit.id, Permit.holder_id == hid) if hid is not None else []),
        ("credential", ids(Credential.id, or_(Credential.vehicle_id == vid,
                                               Credential.driver_id.in_(drivers)))),
    ]
    conds = [and_(AuditEntry.entity == entity, AuditEntry.entity_id.in_(which))
             for entity, which in related if not isinstance(which, list) or which]
    rows = db.session.execute(
        select(AuditEntry.seq, AuditEntry.at, AuditEntry.action, AuditEntry.entity,
               AuditEntry.entity_id)
        .where(AuditEntry.municipality_id == vehicle.municipality_id, AuditEntry.seq > since,
               or_(*conds))
        .order_by(AuditEntry.seq).limit(50)).all()
    return [{"seq": r.seq, "at": r.at, "action": r.action, "entity": r.entity,
             "entity_id": r.entity_id} for r in rows]


# ------------------------------------------------------------------ photos
def receive_photo(uuid: str, photo_uuid: str, data: bytes, declared_sha: str | None, *,
                  user) -> Received:
    """Store a photo's original bytes (201), recognise a resend (200), or refuse."""
    uuid, photo_uuid = uuid.lower(), photo_uuid.lower()
    digest = hashlib.sha256(data).hexdigest()
    if declared_sha is not None:
        declared_sha = declared_sha.strip().lower()
        if declared_sha != digest:
            raise ValidationFailed({"X-Content-SHA256": "O arquivo chegou diferente do que foi "
                                    "enviado (SHA-256 não confere). Envie de novo."})

    def write() -> Received:
        row = _photo_row(uuid, photo_uuid, user.municipality_id)
        if row.received_at is not None:
            return _photo_replay(row, photo_uuid, digest)
        if row.sha256 != digest:
            raise ValidationFailed({"photo": "O SHA-256 da foto não é o declarado na vistoria."})
        facts = evidence.check_photo(data, row.mime)
        now = datetime.now(UTC)
        if not store_photo_bytes(row.id, data, facts, now):  # a concurrent twin stored it
            db.session.rollback()
            return _photo_replay(_photo_row(uuid, photo_uuid, user.municipality_id),
                                 photo_uuid, digest)
        audit.record("photo_received", "inspection_photo", photo_uuid, actor=user,
                     municipality_id=row.town_id, at=now,
                     after={"inspection": uuid, "sha256": digest, "size": len(data),
                            "mime": row.mime, "exif_taken_at": facts.exif_taken_at})
        missing = _missing(row.inspection_id)
        status = row.status
        if not missing and status == InspectionStatus.INCOMPLETE:
            status = InspectionStatus.AWAITING_REVIEW  # enforcement.propose_pending takes it
            db.session.execute(update(Inspection).where(Inspection.id == row.inspection_id)
                               .values(status=status, completed_at=now)
                               .execution_options(synchronize_session=False))
            audit.record("inspection_completed", "inspection", uuid, actor=user,
                         municipality_id=row.town_id, at=now,
                         before={"status": InspectionStatus.INCOMPLETE.value},
                         after={"status": status.value})
        answer = {"id": photo_uuid, "inspection": uuid, "complete": not missing,
                  "missing_photos": missing, "status": status.value,
                  "registry_changed": bool(row.registry_changed)}
        db.session.commit()
        return Received(True, None, answer)

    return _retrying(write)


def _photo_row(uuid: str, photo_uuid: str, town_id: int):
    """The declared photo and what its inspection's answer needs, in one query; the
    inspection's row is locked on PostgreSQL so its photos complete it exactly once.
    NotFound: no such inspection in the town; 422: the inspection did not declare it."""
    row = db.session.execute(
        select(Photo.id, Photo.sha256, Photo.mime, Photo.received_at,
               Photo.inspection_id, Inspection.municipality_id.label("town_id"),
               Inspection.status, Inspection.registry_changed)
        .join(Inspection, Inspection.id == Photo.inspection_id)
        .where(Photo.uuid == photo_uuid, Inspection.uuid == uuid)
        .with_for_update(of=Inspection)).first()
    if row is not None and row.town_id == town_id:
        return row
    known = db.session.scalar(select(Inspection.municipality_id).where(Inspection.uuid == uuid))
    db.session.rollback()
    if known != town_id:
        raise NotFound(uuid)
    raise ValidationFailed({"photo": "Esta foto não foi declarada nesta vistoria."})


def store_photo_bytes(photo_id: int, data: bytes, facts: evidence.ImageFacts,
                      now: datetime) -> bool:
    """Write the bytes once: False when they were already there (a concurrent resend)."""
    result = db.session.execute(
        update(Photo).where(Photo.id == photo_id, Photo.received_at.is_(None))
        .values(data=data, received_at=now, width=facts.width, height=facts.height,
                exif_taken_at=facts.exif_taken_at, exif_lat=facts.lat, exif_lon=facts.lon)
        .execution_options(synchronize_session=False))
    return result.rowcount == 1


def _missing(inspection_id: int) -> list[str]:
    """The UUIDs of an inspection's photos not received yet, in declaration order."""
    return list(db.session.scalars(select(Photo.uuid).where(
        Photo.inspection_id == inspection_id, Photo.received_at.is_(None))
        .order_by(Photo.position)))


def _photo_replay(row, photo_uuid: str, digest: str) -> Received:
    """A photo already stored: the same bytes (200 with the progress) or Conflict (409)."""
    db.session.rollback()  # release the row lock; nothing to write
    if row.sha256 != digest:
        raise Conflict("Esta foto já foi recebida com outro conteúdo; a registrada foi mantida.")
    insp = db.session.get(Inspection, row.inspection_id)
    out = progress(insp)
    out["inspection"] = out.pop("id")
    return Received(False, insp, {"id": photo_uuid, **out})


def photo_bytes(photo: Photo) -> bytes | None:
    """The stored original bytes of a photo (loaded only when asked)."""
    return db.session.scalar(select(Photo.data).where(Photo.id == photo.id))


def summary(insp: Inspection) -> dict:
    """An inspection as the GET endpoint shows it."""
    out = progress(insp)
    items = db.session.scalars(select(InspectionItem).where(
        InspectionItem.inspection_id == insp.id).options(
        load_only(InspectionItem.item_id, InspectionItem.result))).all()
    out.update({"vehicle_id": insp.vehicle_id, "agent_id": insp.agent_id,
                "received_at": insp.received_at.isoformat(),
                "completed_at": insp.completed_at.isoformat() if insp.completed_at else None,
                "body_sha256": insp.body_sha256,
                "items": [{"item_id": i.item_id, "result": i.result.value} for i in items],
                "photos": [{"id": ph.uuid, "sha256": ph.sha256,
                            "received": ph.received_at is not None} for ph in insp.photos]})
    return out


__all__ = ["Conflict", "NotFound", "Received", "canonical_body", "find", "photo_bytes",
           "progress", "receive_inspection", "receive_photo", "registry_changes", "summary"]
