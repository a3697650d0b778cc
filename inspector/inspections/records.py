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
from datetime import datetime

from sqlalchemy import String, and_, bindparam, cast, func, insert, literal_column, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import load_only

from inspector import audit, clock
from inspector.errors import InspectorError, ValidationFailed
from inspector.extensions import db
from inspector.inspections import evidence, evidence_store, renditions
from inspector.inspections.input import Parsed, parse_inspection
from inspector.models import (
    AuditEntry,
    Credential,
    Inspection,
    InspectionItem,
    InspectionStatus,
    InsurancePolicy,
    ItemResult,
    Licence,
    Municipality,
    Permit,
    Photo,
    vehicle_drivers,
)

RETRIES = 4


class Conflict(InspectorError):
    """The UUID is taken by different content: the stored record stays as it is."""

    status = 409


class WrongAuthor(InspectorError):
    """The phone stamped the inspection with another agent than the one sending it."""

    status = 409


class NotFound(InspectorError):
    """No such inspection in the user's town."""

    status = 404


@dataclass
class Received:
    """The outcome of a PUT: whether it created something, and the inspection's progress."""

    created: bool
    inspection: Inspection | None  # None where the answer was built without loading it
    progress: dict = field(default_factory=dict)
    street: bool = True  # a street inspection (not a vistoria, whose result is decided)


def canonical_body(raw: bytes) -> tuple[dict, str, str]:
    """Parse a request body; return it with its canonical JSON and that JSON's SHA-256."""
    try:
        payload = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        if not isinstance(payload, dict):
            raise ValidationFailed({"body": "O corpo do pedido deve ser um objeto JSON."})
        text = audit.canonical(payload)
    except (UnicodeDecodeError, ValueError):
        raise ValidationFailed({"body": "O corpo do pedido não é um JSON válido."}) from None
    except RecursionError:  # nested deeper than Python's json will go: never an inspection
        raise ValidationFailed({"body": "O corpo do pedido tem níveis demais "
                                        "(listas ou objetos um dentro do outro)."}) from None
    return payload, text, hashlib.sha256(text.encode()).hexdigest()


def _no_constant(name: str):
    raise ValueError(name)


def progress(insp: Inspection) -> dict:
    """What the phone needs to know: complete or not, which photos are missing, and which
    were refused for good (no longer awaited: docs/sync.md §3)."""
    missing, refused = [], []
    for row in db.session.execute(
            select(Photo.uuid, Photo.refused_reason, Photo.refused_at)
            .where(Photo.inspection_id == insp.id, Photo.received_at.is_(None))
            .order_by(Photo.position)):
        if row.refused_at is None:
            missing.append(row.uuid)
        else:
            refused.append({"id": row.uuid, "reason": row.refused_reason or ""})
    return {"id": insp.uuid, "complete": not missing, "missing_photos": missing,
            "refused_photos": refused, "status": insp.status.value,
            "registry_changed": bool(insp.registry_changed)}


def find_inspection(uuid: str, town_id: int) -> Inspection:
    """An inspection of this town by its UUID, or NotFound."""
    insp = db.session.scalar(select(Inspection).where(Inspection.uuid == uuid))
    if insp is None or insp.municipality_id != town_id:
        raise NotFound(uuid)
    return insp


def _retrying(fn):
    """Run a write, retrying when a concurrent writer won a race (unique key, lock);
    `fn(retry)` is told whether an earlier attempt failed."""
    for attempt in range(RETRIES):
        try:
            return fn(attempt > 0)
        except (IntegrityError, OperationalError):
            db.session.rollback()
            if attempt == RETRIES - 1:
                raise
    raise AssertionError("unreachable")


# ------------------------------------------------------------------ inspections
# Every sync sends each inspection once: its statements are built once, on the tables'
# columns (plain Core: no per-call construction, no ORM unit of work).
_INSP, _ITEM, _PHOTO, _AUDIT = (Inspection.__table__, InspectionItem.__table__,
                                Photo.__table__, AuditEntry.__table__)
_KNOWN = select(_INSP.c.id, _INSP.c.municipality_id, _INSP.c.body_sha256).where(
    _INSP.c.uuid == bindparam("uuid"))
_ADD_INSPECTION = insert(_INSP).returning(_INSP.c.id)
_ADD_ITEMS = insert(_ITEM).returning(_ITEM.c.position, _ITEM.c.id)  # any order: one batch
_ADD_PHOTOS = insert(_PHOTO)
_CREDENTIAL = select(Credential.__table__.c.id).where(
    Credential.__table__.c.token_hash == bindparam("digest"),
    Credential.__table__.c.municipality_id == bindparam("town"))


def receive_inspection(uuid: str, raw: bytes, *, user) -> Received:
    """Store a new inspection (201), recognise a replay (200), or refuse (Conflict, 422)."""
    uuid = uuid.lower()
    payload, text, digest = canonical_body(raw)
    existing = _replay(uuid, digest, user)
    if existing is not None:
        return existing
    town = user.municipality  # loaded with the user (security.load_user)
    try:
        parsed = parse_inspection(raw, town)
    except ValidationFailed:
        again = _replay(uuid, digest, user)  # a concurrent twin committed meanwhile
        if again is not None:
            return again
        raise
    if parsed.agent_id is not None and parsed.agent_id != user.id:
        raise WrongAuthor("Esta vistoria foi feita por outro agente: ela só pode ser enviada "
                          "com a conta de quem a fez. A fila continua no aparelho.")

    def write(retry: bool) -> Received:
        if retry:  # the unique UUID was taken meanwhile: by a twin (200) or not (409)
            again = _replay(uuid, digest, user)
            if again is not None:
                return again
        status, changed = _store(uuid, parsed, text, digest, town, user)
        missing = [ph.uuid for item in parsed.items for ph in item.photos]  # none received
        answer = {"id": uuid, "complete": not missing, "missing_photos": missing,
                  "refused_photos": [], "status": status.value, "registry_changed": changed}
        db.session.commit()
        return Received(True, None, answer, street=parsed.kind == "street")

    return _retrying(write)


def _replay(uuid: str, digest: str, user) -> Received | None:
    """The stored inspection when this UUID is known: identical (200) or Conflict (409)."""
    known = db.session.execute(_KNOWN, {"uuid": uuid}).first()
    if known is None:
        return None
    if known.municipality_id != user.municipality_id or known.body_sha256 != digest:
        raise Conflict("Esta vistoria já foi recebida com outro conteúdo; a versão "
                       "registrada foi mantida.")
    insp = db.session.get(Inspection, known.id)
    return Received(False, insp, progress(insp), street=insp.kind.value == "street")


def _store(uuid: str, p: Parsed, text: str, digest: str, town: Municipality,
           user) -> tuple[InspectionStatus, bool]:
    """Insert the inspection, its items and its declared photos, and audit it; return its
    status and whether the registry changed since the phone's snapshot."""
    now = clock.now()
    changes = registry_changes(p.vehicle, p.snapshot_version)
    n_photos = sum(len(i.photos) for i in p.items)
    status = InspectionStatus.INCOMPLETE if n_photos else InspectionStatus.AWAITING_REVIEW
    failed = sum(1 for i in p.items if i.result == ItemResult.FAIL)
    # the unique UUID is claimed here: a concurrent twin fails now (IntegrityError)
    insp_id = db.session.execute(_ADD_INSPECTION, {
        "uuid": uuid, "municipality_id": town.id, "agent_id": user.id,
        "vehicle_id": p.vehicle.id, "service": p.vehicle.service,
        "credential_token": p.credential_token,
        "credential_id": _credential_id(p.credential_token, town.id),
        "started_at": p.started_at, "finished_at": p.finished_at, "rules_day": p.rules_day,
        "snapshot_version": p.snapshot_version, "lat": p.lat, "lon": p.lon,
        "accuracy_m": p.accuracy_m, "body_sha256": digest, "body": text,
        "ack_name": p.ack_name, "ack_signature": p.ack_signature, "status": status,
        "kind": p.kind,
        "failed_items": failed, "registry_changed": bool(changes),
        "registry_changes": audit.jsonable(changes) if changes else None,
        "received_at": now, "completed_at": None if n_photos else now}).scalar_one()
    by_position = dict(db.session.execute(_ADD_ITEMS, [  # one multi-row INSERT
        {"inspection_id": insp_id, "position": index, "item_id": item.item_id,
         "result": item.result, "note": item.note, "label": item.label,
         "citation": item.citation or None}
        for index, item in enumerate(p.items)]).all())
    item_ids = [by_position[index] for index in range(len(p.items))]
    photos = [{"uuid": ph.uuid, "inspection_id": insp_id, "item_id": item_id,
               "sha256": ph.sha256, "mime": ph.mime, "size": ph.size, "taken_at": ph.taken_at}
              for item, item_id in zip(p.items, item_ids) for ph in item.photos]
    if photos:
        db.session.execute(_ADD_PHOTOS, [row | {"position": n} for n, row in enumerate(photos)])
    audit.record("inspection_received", "inspection", uuid, actor=user,
                 municipality_id=town.id, after={
                     "vehicle_id": p.vehicle.id, "agent_id": user.id,
                     "status": status.value, "body_sha256": digest,
                     "items": len(p.items), "failed_items": failed,
                     "photos_declared": n_photos, "registry_changed": bool(changes)})
    return status, bool(changes)  # complete: enforcement.propose_pending makes its proposals


def _credential_id(token: str | None, town_id: int) -> int | None:
    """The credential a scanned token names in this town (forged or foreign: None)."""
    if not token:
        return None
    digest = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
    return db.session.scalar(_CREDENTIAL, {"digest": digest, "town": town_id})


def registry_change_conditions() -> list:
    """One condition per kind of record an agent's card shows, on audit_entries: the vehicle
    (:vid, :vid_s), its drivers, licences and insurance, its holder (:hid, :hid_s), the
    holder's permits, and the credentials of the vehicle and its drivers."""
    a = _AUDIT.c
    vd = vehicle_drivers.c
    vid, hid = bindparam("vid"), bindparam("hid")

    def ids(column, *where):
        return select(cast(column, String)).where(*where)
    drivers = select(vd.driver_id).where(vd.vehicle_id == vid)
    cred = Credential.__table__.c
    related = [
        ("vehicle", bindparam("vid_s")),
        ("holder", bindparam("hid_s")),
        ("driver", ids(vd.driver_id, vd.vehicle_id == vid)),
        ("licence", ids(Licence.__table__.c.id, Licence.__table__.c.vehicle_id == vid)),
        ("insurance", ids(InsurancePolicy.__table__.c.id,
                          InsurancePolicy.__table__.c.vehicle_id == vid)),
        ("permit", ids(Permit.__table__.c.id, Permit.__table__.c.holder_id == hid)),
        # two indexed reads, not one OR: an OR over a subquery makes PostgreSQL scan
        # every credential and then walk the log by seq instead of by entity
        ("credential", ids(cred.id, cred.vehicle_id == vid)
         .union(ids(cred.id, cred.driver_id.in_(drivers)))),
    ]
    return [and_(a.entity == entity, a.entity_id == which if entity in ("vehicle", "holder")
                 else a.entity_id.in_(which)) for entity, which in related]


def _registry_changes_statement():
    """Audit entries of the town (:town) after :since matching registry_change_conditions().

    One branch per condition, each a range of the (entity, entity_id, seq) index, merged and
    ordered by seq: an OR over them made SQLite and PostgreSQL read every town entry after
    :since (a phone a week behind: tens of thousands) to find the vehicle's few."""
    a = _AUDIT.c
    conds = registry_change_conditions()
    # "+ 0": the town is a filter, not an index: SQLite, asked for seq order by the merge,
    # otherwise walks the (municipality_id, seq) index for the branches with a subquery
    town = a.municipality_id + literal_column("0") == bindparam("town")
    branches = [select(a.seq, a.at, a.action, a.entity, a.entity_id)
                .where(cond, a.seq > bindparam("since"), town) for cond in conds]
    merged = branches[0].union_all(*branches[1:])
    return merged.order_by(merged.selected_columns.seq).limit(50)


_REGISTRY_CHANGES = _registry_changes_statement()


def registry_changes(vehicle, since: int | None) -> list[dict]:
    """Audit entries after `since` about this vehicle, its licences, insurance, drivers,
    holder, permits and credentials: what the agent's phone did not know. One query."""
    if since is None:
        return []
    hid = vehicle.holder_id
    rows = db.session.execute(_REGISTRY_CHANGES, {
        "vid": vehicle.id, "vid_s": str(vehicle.id), "hid": hid,
        "hid_s": str(hid) if hid is not None else None, "town": vehicle.municipality_id,
        "since": since}).all()
    return [{"seq": r.seq, "at": r.at, "action": r.action, "entity": r.entity,
             "entity_id": r.entity_id} for r in rows]


# ------------------------------------------------------------------ photos
# Once per photo of every sync: statements built once, like the inspection's.
# The inspection's declared photos and what the answer needs; the inspection's row is
# locked on PostgreSQL so that its photos complete it exactly once.
_DECLARED = (select(_PHOTO.c.id, _PHOTO.c.uuid, _PHOTO.c.sha256, _PHOTO.c.mime,
                    _PHOTO.c.received_at, _PHOTO.c.refused_at, _PHOTO.c.refused_reason,
                    _PHOTO.c.inspection_id,
                    _INSP.c.municipality_id.label("town_id"), _INSP.c.status,
                    _INSP.c.registry_changed)
             .join_from(_PHOTO, _INSP, _INSP.c.id == _PHOTO.c.inspection_id)
             .where(_INSP.c.uuid == bindparam("uuid"))
             .order_by(_PHOTO.c.position)
             .with_for_update(of=_INSP))
_TOWN_OF = select(_INSP.c.municipality_id).where(_INSP.c.uuid == bindparam("uuid"))
_OTHER = _PHOTO.alias("other")
# How many of the inspection's other photos are still awaited (neither received nor refused
# for good), counted by the statement that records this one (holding the write / row lock).
# By the ids bound, not correlated with the updated row: SQLAlchemy writes a RETURNING's
# columns unqualified on SQLite ("id != id"), which counted 0 there, and each photo then
# read the missing and refused photos again (two more statements).
_OTHERS_AWAITED = (select(func.count()).where(
    _OTHER.c.inspection_id == bindparam("of_inspection"), _OTHER.c.received_at.is_(None),
    _OTHER.c.refused_at.is_(None), _OTHER.c.id != bindparam("photo_id")).scalar_subquery())
# Record the arrival once (never of a photo refused for good: the refusal is final).
_MARK_RECEIVED = (update(_PHOTO)
                  .where(_PHOTO.c.id == bindparam("photo_id"), _PHOTO.c.received_at.is_(None),
                         _PHOTO.c.refused_at.is_(None))
                  .values(received_at=bindparam("now"), width=bindparam("width"),
                          height=bindparam("height"), exif_taken_at=bindparam("exif_taken_at"),
                          exif_lat=bindparam("lat"), exif_lon=bindparam("lon"),
                          pack=bindparam("pack"), pack_offset=bindparam("pack_offset"),
                          size=bindparam("size"))
                  .returning(_OTHERS_AWAITED))
# Record a refusal for good once: the photo is no longer awaited.
_MARK_REFUSED = (update(_PHOTO)
                 .where(_PHOTO.c.id == bindparam("photo_id"), _PHOTO.c.received_at.is_(None),
                        _PHOTO.c.refused_at.is_(None))
                 .values(refused_at=bindparam("now"), refused_reason=bindparam("reason"))
                 .returning(_OTHERS_AWAITED))
_MISSING = (select(_PHOTO.c.uuid)
            .where(_PHOTO.c.inspection_id == bindparam("inspection_id"),
                   _PHOTO.c.received_at.is_(None), _PHOTO.c.refused_at.is_(None))
            .order_by(_PHOTO.c.position))
_COMPLETE = (update(_INSP).where(_INSP.c.id == bindparam("inspection_id"))
             .values(status=bindparam("status"), completed_at=bindparam("now")))


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
    # Decoded whole before the transaction (milliseconds no lock should wait for, and once,
    # not per retry); its refusal counts only for a photo not already stored (a resend of
    # bytes stored before this check still answers 200).
    try:
        facts, refused = evidence.decode_photo(data), None
    except evidence.PhotoRefused as e:
        facts, refused = None, e

    def write(_retry: bool) -> Received:
        row, others, refused_before = _photo_row(uuid, photo_uuid, user.municipality_id)
        if row.received_at is not None:
            return _photo_replay(row, photo_uuid, digest)
        if row.sha256 != digest:
            raise ValidationFailed({"photo": "O SHA-256 da foto não é o declarado na vistoria."})
        if row.refused_at is not None:  # final for this photo (docs/sync.md §3): answered again
            db.session.rollback()
            raise refused or evidence.refusal_of(row.refused_reason or "")
        now = clock.now()
        try:
            if refused is not None:
                raise refused
            evidence.expect_format(facts, row.mime)
        except evidence.PhotoRefused as e:
            _refuse(row, others, uuid, photo_uuid, e, digest, len(data), now, user)
            raise
        # the bytes are appended (and fsynced) beside the statements below, and waited for
        # before the commit: a photo recorded as received always has its bytes on disk
        where, kept = evidence_store.writing(digest, data, row.town_id)
        still_missing = mark_received(row.id, row.inspection_id, facts, now, where, len(data))
        if still_missing is None:  # a concurrent twin stored it
            db.session.rollback()
            kept.result()
            return _photo_replay(_photo_row(uuid, photo_uuid, user.municipality_id)[0],
                                 photo_uuid, digest)
        audit.record("photo_received", "inspection_photo", photo_uuid, actor=user,
                     municipality_id=row.town_id, at=now,
                     after={"inspection": uuid, "sha256": digest, "size": len(data),
                            "mime": row.mime, "exif_taken_at": facts.exif_taken_at})
        missing, status = _settle(row, others, still_missing, uuid, now, user)
        # as read under the lock, unless another photo was settled since (then read again)
        refused_for_good = (refused_before if len(others) == still_missing
                            else _refused_of(row.inspection_id))
        answer = {"id": photo_uuid, "inspection": uuid, "complete": not missing,
                  "missing_photos": missing, "refused_photos": refused_for_good,
                  "status": status.value, "registry_changed": bool(row.registry_changed)}
        kept.result()  # raises what the disk said (full, I/O error): nothing is committed
        db.session.commit()
        return Received(True, None, answer)

    return _retrying(write)


def _settle(row, others: list[str], still_missing: int, uuid: str, now: datetime,
            user) -> tuple[list[str], InspectionStatus]:
    """After one photo was settled (received or refused for good): the photos still awaited,
    and the inspection's status, completed (and audited) when none is."""
    # the photos read before the lock can only have been settled since, never the reverse:
    # when as many are still awaited, they are the same ones
    missing = others if len(others) == still_missing else list(
        db.session.scalars(_MISSING, {"inspection_id": row.inspection_id}))
    status = row.status
    if not missing and status == InspectionStatus.INCOMPLETE:
        status = InspectionStatus.AWAITING_REVIEW  # enforcement.propose_pending takes it
        db.session.execute(_COMPLETE, {"inspection_id": row.inspection_id,
                                       "status": status, "now": now})
        audit.record("inspection_completed", "inspection", uuid, actor=user,
                     municipality_id=row.town_id, at=now,
                     before={"status": InspectionStatus.INCOMPLETE.value},
                     after={"status": status.value})
    return missing, status


_REFUSED_OF = (select(_PHOTO.c.uuid, _PHOTO.c.refused_reason)
               .where(_PHOTO.c.inspection_id == bindparam("inspection_id"),
                      _PHOTO.c.refused_at.is_not(None))
               .order_by(_PHOTO.c.position))


def _refused_of(inspection_id: int) -> list[dict]:
    """The inspection's photos refused for good, as the progress answer lists them."""
    return [{"id": r.uuid, "reason": r.refused_reason or ""}
            for r in db.session.execute(_REFUSED_OF, {"inspection_id": inspection_id})]


def _refuse(row, others: list[str], uuid: str, photo_uuid: str, e: evidence.PhotoRefused,
            digest: str, size: int, now: datetime, user) -> None:
    """Record, audit and commit that these bytes will never be this photo: the photo is no
    longer awaited, and the inspection completes when it was the last one awaited. The caller
    then answers the refusal (422, permanent). A concurrent twin that recorded it first: the
    refusal is answered all the same, nothing written twice."""
    reason = evidence.refusal_reason(e)
    still_missing = db.session.scalar(_MARK_REFUSED, {
        "photo_id": row.id, "of_inspection": row.inspection_id, "now": now, "reason": reason})
    if still_missing is None:
        db.session.rollback()
        return
    audit.record("photo_refused", "inspection_photo", photo_uuid, actor=user,
                 municipality_id=row.town_id, at=now,
                 after={"inspection": uuid, "sha256": digest, "size": size, "mime": row.mime,
                        "problem": e.problem, "reason": reason})
    _settle(row, others, still_missing, uuid, now, user)
    db.session.commit()


def _photo_row(uuid: str, photo_uuid: str, town_id: int) -> tuple:
    """The declared photo with what its inspection's answer needs, the UUIDs of the
    inspection's other photos still awaited, and its photos refused for good as the progress
    answer lists them (both as read now), in one query.
    NotFound: no such inspection in the town; 422: the inspection did not declare it."""
    rows = db.session.execute(_DECLARED, {"uuid": uuid}).all()
    mine = next((r for r in rows if r.uuid == photo_uuid), None)
    if mine is not None and mine.town_id == town_id:
        return mine, [r.uuid for r in rows
                      if r.received_at is None and r.refused_at is None and r is not mine], [
            {"id": r.uuid, "reason": r.refused_reason or ""} for r in rows
            if r.refused_at is not None]
    known = db.session.scalar(_TOWN_OF, {"uuid": uuid})
    db.session.rollback()
    if known != town_id:
        raise NotFound(uuid)
    raise ValidationFailed({"photo": "Esta foto não foi declarada nesta vistoria."})


def mark_received(photo_id: int, inspection_id: int, facts: evidence.ImageFacts,
                  now: datetime, where: evidence_store.Location, size: int) -> int | None:
    """Record the arrival once, and where its `size` bytes are in the evidence packs;
    return how many of the inspection's other photos are still missing, or None when a
    concurrent resend recorded it first."""
    return db.session.scalar(_MARK_RECEIVED, {
        "photo_id": photo_id, "of_inspection": inspection_id, "now": now,
        "width": facts.width, "height": facts.height,
        "exif_taken_at": facts.exif_taken_at, "lat": facts.lat, "lon": facts.lon,
        "pack": where.pack, "pack_offset": where.offset, "size": size})


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
    """The original bytes of a received photo (None before they arrived, or if lost): its
    record in a pack, its object in the object store, or its loose file for photos received
    before packs."""
    if photo.received_at is None:
        return None
    return evidence_store.photo_data(photo.sha256, photo.pack, photo.pack_offset, photo.size,
                                     photo.inspection.municipality_id)


def evidence_state(photo: Photo) -> str:
    """What the server holds of a photo, checked by hashing it: "waiting" (not sent yet),
    "matches" (the file has the SHA-256 declared when it was taken), "altered" (it does not),
    "missing" (received, but its file is gone) or "damaged" (the file is the one declared,
    but not an image that can be shown: cut short or broken, kept before the sync checked
    photos whole; found by walking its structure, or by a rendering that failed)."""
    if photo.received_at is None:
        return "waiting"
    data = photo_bytes(photo)
    if data is None:
        return "missing"
    if hashlib.sha256(data).hexdigest() != photo.sha256:
        return "altered"
    if renditions.known_damaged(photo.sha256) or not evidence.is_whole(data, photo.mime):
        return "damaged"
    return "matches"


def inspection_summary(insp: Inspection) -> dict:
    """An inspection as the GET endpoint shows it."""
    out = progress(insp)
    items = db.session.scalars(select(InspectionItem).where(
        InspectionItem.inspection_id == insp.id).options(
        load_only(InspectionItem.item_id, InspectionItem.result))).all()
    out.update({"vehicle_id": insp.vehicle_id, "agent_id": insp.agent_id,
                "kind": insp.kind.value,
                "received_at": insp.received_at.isoformat(),
                "completed_at": insp.completed_at.isoformat() if insp.completed_at else None,
                "body_sha256": insp.body_sha256,
                "items": [{"item_id": i.item_id, "result": i.result.value} for i in items],
                "photos": [{"id": ph.uuid, "sha256": ph.sha256,
                            "received": ph.received_at is not None,
                            "refused": ph.refused_reason if ph.refused_at else None}
                           for ph in insp.photos]})
    return out


__all__ = ["Conflict", "NotFound", "Received", "WrongAuthor", "canonical_body", "evidence_state",
           "find_inspection", "inspection_summary", "photo_bytes", "progress", "receive_inspection",
           "receive_photo", "registry_changes"]
