"""Append to and verify the hash-chained audit log.

Each entry's hash is SHA-256 over a canonical JSON encoding of its content and the
previous entry's hash. Editing, deleting or reordering any entry breaks the chain at
that point, and `flask audit verify` names the first broken link.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy import inspect as sa_inspect

from inspector.extensions import db
from inspector.models import AuditEntry

GENESIS = "0" * 64


def _default(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat(timespec="microseconds")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return {"sha256": hashlib.sha256(value).hexdigest()}
    raise TypeError(f"cannot encode {type(value).__name__} in the audit log")


def canonical(value: Any) -> str:
    """The one JSON encoding used for hashing: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, default=_default, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def snapshot(row: Any, exclude: Iterable[str] = ("photo", "photo_thumb", "name_folded")) -> dict:
    """The column values of a model row, as the audit log records them."""
    out = {}
    for attr in sa_inspect(row).mapper.column_attrs:
        if attr.key not in exclude:
            out[attr.key] = getattr(row, attr.key)
    return json.loads(canonical(out))


def entry_hash(seq: int, at: datetime, actor: str, actor_id: int | None,
               municipality_id: int | None, action: str, entity: str, entity_id: str,
               before: str | None, after: str | None, prev_hash: str) -> str:
    """SHA-256 of an entry's content and its predecessor's hash."""
    body = canonical({
        "seq": seq, "at": at, "actor": actor, "actor_id": actor_id,
        "municipality_id": municipality_id, "action": action, "entity": entity,
        "entity_id": entity_id, "before": before, "after": after, "prev_hash": prev_hash,
    })
    return hashlib.sha256(body.encode()).hexdigest()


def _lock_chain() -> None:
    """Serialise appenders so the chain never forks."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock(4242001)"))


_APPEND = AuditEntry.__table__.insert()  # built once: an entry is written on every change
_LAST = select(AuditEntry.__table__.c.seq, AuditEntry.__table__.c.hash).order_by(
    AuditEntry.__table__.c.seq.desc()).limit(1)


def record(action: str, entity: str, entity_id: Any, *, before: dict | None = None,
           after: dict | None = None, actor=None, municipality_id: int | None = None,
           at: datetime | None = None) -> tuple[int, str]:
    """Append an entry in the caller's transaction (committed with the change it records);
    return its (seq, hash). Pending ORM changes are flushed first, as the change comes
    before its record."""
    db.session.flush()
    seq, prev = _tail()
    at = at or datetime.now(UTC)
    actor_label = getattr(actor, "username", None) or (actor if isinstance(actor, str) else "system")
    actor_id = getattr(actor, "id", None)
    before_s = canonical(before) if before is not None else None
    after_s = canonical(after) if after is not None else None
    entity_id = str(entity_id)
    digest = entry_hash(seq, at, actor_label, actor_id, municipality_id, action, entity,
                        entity_id, before_s, after_s, prev)
    db.session.execute(_APPEND, {
        "seq": seq, "at": at, "actor_id": actor_id, "actor": actor_label,
        "municipality_id": municipality_id, "action": action, "entity": entity,
        "entity_id": entity_id, "before": before_s, "after": after_s, "prev_hash": prev,
        "hash": digest})
    db.session.info[_TAIL] = (_innermost(), seq, digest)
    return seq, digest


_TAIL = "audit_tail"


def _innermost():
    """The transaction an entry is written in: the innermost savepoint, or the session's."""
    session = db.session()
    return session.get_nested_transaction() or session.get_transaction()


def _tail() -> tuple[int, str]:
    """(next seq, previous hash). The first append of a transaction takes the chain's lock
    and reads the last entry; later appends in the same (innermost) transaction continue
    from the entry it wrote, still the tail: the lock is held until the commit. Any other
    transaction (a savepoint begun, released or rolled back since) reads the tail again."""
    tx, seq, digest = db.session.info.get(_TAIL, (None, None, None))
    if tx is not None and tx is _innermost() and tx.is_active:
        return seq + 1, digest
    _lock_chain()
    last = db.session.execute(_LAST).first()
    return (last.seq + 1, last.hash) if last else (1, GENESIS)


def head() -> tuple[int, str] | None:
    """The chain's last entry (seq, hash) as an append in this transaction would continue it
    (the chain's lock is taken, as for an append); None while the log is empty. Printed on
    issued documents, it makes every copy a witness: a log that no longer holds that entry
    with that hash was truncated or rewritten (`flask audit verify --expect SEQ:HASH`)."""
    seq, prev = _tail()
    return None if seq == 1 else (seq - 1, prev)


def latest() -> tuple[int, str] | None:
    """The chain's last committed entry (seq, hash), read without the chain's lock (a
    public page must not be able to hold up writers); None while the log is empty."""
    last = db.session.execute(_LAST).first()
    return (last.seq, last.hash) if last else None


def hash_of(seq: int) -> str | None:
    """The hash the log holds today for entry number `seq` (None: no such entry)."""
    return db.session.scalar(select(AuditEntry.hash).where(AuditEntry.seq == seq))


def missing_anchors(expected: Iterable[tuple[int, str]]) -> list[str]:
    """For each (seq, hash) a document printed, a reason when the log does not hold it."""
    problems = []
    for seq, digest in expected:
        found = hash_of(seq)
        if found is None:
            problems.append(f"entry #{seq} is missing: the log was truncated or renumbered")
        elif found != digest:
            problems.append(f"entry #{seq} has another hash ({found[:16]}…, the document "
                            f"says {digest[:16]}…): the log was rewritten")
    return problems


def town_version(town_id: int) -> int:
    """The newest sequence number of a town's entries (0 when none): it moves whenever
    anything of the town changes. One index seek on (municipality_id, seq)."""
    return db.session.scalar(select(func.max(AuditEntry.seq))
                             .where(AuditEntry.municipality_id == town_id)) or 0


@dataclass(frozen=True)
class Break:
    """The first place where the chain does not hold."""

    seq: int | None
    entry_id: int | None
    reason: str


def verify() -> tuple[int, Break | None]:
    """Walk the chain in order; return how many entries held and the first break, if any."""
    prev = GENESIS
    expected_seq = 1
    count = 0
    rows = db.session.execute(select(AuditEntry).order_by(AuditEntry.seq, AuditEntry.id))
    for (e,) in rows:
        if e.seq != expected_seq:
            return count, Break(e.seq, e.id, f"expected entry #{expected_seq}, found #{e.seq}: "
                                             "an entry was deleted or renumbered")
        if e.prev_hash != prev:
            return count, Break(e.seq, e.id, f"entry #{e.seq} does not follow entry "
                                             f"#{e.seq - 1}: reordered or the previous one "
                                             "was replaced")
        digest = entry_hash(e.seq, e.at, e.actor, e.actor_id, e.municipality_id, e.action,
                            e.entity, e.entity_id, e.before, e.after, e.prev_hash)
        if digest != e.hash:
            return count, Break(e.seq, e.id, f"entry #{e.seq} was edited: its content no longer "
                                             "matches its hash")
        prev = e.hash
        expected_seq += 1
        count += 1
    return count, None
