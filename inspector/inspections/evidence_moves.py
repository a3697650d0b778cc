"""`flask evidence migrate`: a town's evidence photos moved between the packs and the object
store, one photo at a time, resumable.

Each photo is read where its row says, hashed (bytes that are not the declared SHA-256 are
never moved: reported, left where they are), written to the destination and confirmed there
(S3: the store checked the upload's ChecksumSHA256, or an object already there was read back
and hashed; packs: the record written and fsynced), and only then is its row pointed at the
destination, committed with an audit entry. A run cut short anywhere leaves every row
pointing at bytes that are there; the next run skips the rows already moved and finds an
object uploaded just before the cut already there (If-None-Match), checked by its hash. The
source is left as it was: packs are never rewritten, and a bucket with object lock refuses
deletes anyway; freeing the space is the operator's decision.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from sqlalchemy import select, update

from inspector import audit
from inspector.extensions import db
from inspector.inspections import evidence_store
from inspector.models import Inspection, Municipality, Photo

S3 = evidence_store.IN_S3


@dataclass
class Moved:
    """What a run did."""

    town: str
    to: str
    moved: int = 0        # written to the destination now
    already: int = 0      # found there already (a resumed run), checked by hash
    problems: list[tuple[str, str]] = field(default_factory=list)  # (sha256, what)

    @property
    def total(self) -> int:
        return self.moved + self.already


def town_by_slug(slug: str) -> Municipality | None:
    return db.session.scalar(select(Municipality).where(Municipality.slug == slug))


def move_evidence(town: Municipality, to: str, actor: str = "cli") -> Moved:
    """Move every received photo of `town` to `to` ("s3" or "packs"); evidence_objects.
    NotConfigured (before anything moves) when the object store is not configured."""
    destination = evidence_store.backend(to, sync=True)  # a move is always fsynced
    origin = evidence_store.backend(S3 if to != S3 else "packs")
    source = (Photo.pack.is_(None) | (Photo.pack != S3)) if to == S3 else Photo.pack == S3
    rows = db.session.execute(
        select(Photo.id, Photo.uuid, Photo.sha256, Photo.pack, Photo.pack_offset, Photo.size)
        .join(Inspection, Inspection.id == Photo.inspection_id)
        .where(Inspection.municipality_id == town.id, Photo.received_at.is_not(None), source)
        .order_by(Photo.id)).all()
    db.session.rollback()  # no transaction held while the bytes travel
    out = Moved(town.slug, to)
    for row in rows:
        data = origin.read(town.slug, evidence_store.Location(row.pack, row.pack_offset or 0),
                           row.sha256, row.size)
        if data is None:
            out.problems.append((row.sha256, "ausente da origem"))
            continue
        if hashlib.sha256(data).hexdigest() != row.sha256:
            out.problems.append((row.sha256, evidence_store.ALTERED))
            continue
        # confirmed at the destination: the store checked the SHA-256 (or an object already
        # there was read back and hashed), or the pack record is written and fsynced
        where, done = destination.put(town.slug, row.sha256, data)
        written = done.result() is not False
        changed = db.session.execute(
            update(Photo).where(Photo.id == row.id, _same_place(row))
            .values(pack=where.pack, pack_offset=where.offset)).rowcount
        if changed != 1:  # moved meanwhile by another run: nothing to record
            db.session.rollback()
            continue
        audit.record("evidence_moved", "inspection_photo", row.uuid, actor=actor,
                     municipality_id=town.id,
                     before={"pack": row.pack, "offset": row.pack_offset},
                     after={"pack": where.pack, "offset": where.offset, "sha256": row.sha256})
        db.session.commit()
        if written:
            out.moved += 1
        else:
            out.already += 1
    return out


def _same_place(row):
    """The row still points where it was read (the update is conditional)."""
    if row.pack is None:
        return Photo.pack.is_(None)
    return (Photo.pack == row.pack) & (Photo.pack_offset == row.pack_offset)
