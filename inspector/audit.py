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

from sqlalchemy import bindparam, event, func, select, text
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.orm import Session

from inspector import clock
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


def jsonable(value: Any) -> Any:
    """A value as JSON keeps it (dates and instants as ISO text, enums as their value,
    decimals as text): what a JSON column stores and gives back."""
    return json.loads(canonical(value))


def values(stored: str | None) -> Any:
    """An entry's `before` or `after` (canonical JSON text) as Python; None stays None."""
    return None if stored is None else json.loads(stored)


def snapshot(row: Any, exclude: Iterable[str] = ("photo", "photo_thumb", "name_folded")) -> dict:
    """The column values of a model row, as the audit log records them."""
    out = {}
    for attr in sa_inspect(row).mapper.column_attrs:
        if attr.key not in exclude:
            out[attr.key] = getattr(row, attr.key)
    return jsonable(out)


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


def _lock_chain(session) -> None:
    """Serialise the chaining of entries so the chain never forks (on SQLite the database's
    one writer does)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(4242001)"))


_TABLE = AuditEntry.__table__
_APPEND = _TABLE.insert()  # built once: entries are written on every change
_LAST = select(_TABLE.c.seq, _TABLE.c.hash).order_by(_TABLE.c.seq.desc()).limit(1)
_PENDING = "audit_pending"  # session.info: [(transaction written in, entry), ...]


def record(action: str, entity: str, entity_id: Any, *, before: dict | None = None,
           after: dict | None = None, actor=None, municipality_id: int | None = None,
           at: datetime | None = None) -> None:
    """Add an entry to the caller's transaction (committed with the change it records).

    The entry is written, numbered and chained when the transaction commits (`sequence`, a
    before-commit hook): the chain's lock, which serialises every town's audited writes, is
    then held only for that last step, not while the transaction does its work (a tick, an
    import, a sync). A savepoint rolled back takes its entries with it (`_forget`). Pending
    ORM changes are flushed first, as the change comes before its record."""
    db.session.flush()
    session = db.session()
    at = at or clock.now()
    # the hash is taken of the instant as the database gives it back: UTC, to the microsecond
    at = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    written_in = session.get_nested_transaction() or session.get_transaction()
    session.info.setdefault(_PENDING, []).append((written_in, {
        "at": at, "actor_id": getattr(actor, "id", None),
        "actor": getattr(actor, "username", None) or (actor if isinstance(actor, str) else "system"),
        "municipality_id": municipality_id, "action": action, "entity": entity,
        "entity_id": str(entity_id),
        "before": canonical(before) if before is not None else None,
        "after": canonical(after) if after is not None else None}))


def _within(transaction, ancestor) -> bool:
    while transaction is not None:
        if transaction is ancestor:
            return True
        transaction = transaction.parent
    return False


def _forget(session, previous_transaction) -> None:
    """A rollback takes the entries of what it undid: all of them, or a savepoint's."""
    pending = session.info.get(_PENDING)
    if not pending:
        return
    if not previous_transaction.nested:
        session.info.pop(_PENDING, None)
        return
    session.info[_PENDING] = [(tx, e) for tx, e in pending
                              if not _within(tx, previous_transaction)]


def sequence(session) -> int:
    """Write the entries this transaction added, in the order added, numbered and chained
    after the last one committed; return how many. Run before the outermost commit
    (`install`)."""
    if session.in_nested_transaction() or not session.info.get(_PENDING):
        return 0
    entries = [e for _, e in session.info.pop(_PENDING)]
    _lock_chain(session)
    last = session.execute(_LAST).first()
    seq, prev = (last.seq, last.hash) if last else (0, GENESIS)
    for e in entries:
        seq += 1
        e["seq"], e["prev_hash"] = seq, prev
        e["hash"] = prev = entry_hash(seq, e["at"], e["actor"], e["actor_id"],
                                      e["municipality_id"], e["action"], e["entity"],
                                      e["entity_id"], e["before"], e["after"], prev)
    session.execute(_APPEND, entries)
    return len(entries)


def install() -> None:
    """Chain each transaction's entries as it commits, and drop those of what a rollback
    undid (create_app calls it)."""
    for name, hook in (("before_commit", sequence), ("after_soft_rollback", _forget)):
        if not event.contains(Session, name, hook):
            event.listen(Session, name, hook)


def latest() -> tuple[int, str] | None:
    """The chain's last committed entry (seq, hash), read without the chain's lock (a
    public page must not be able to hold up writers); None while the log is empty. Printed on
    issued documents, it makes every copy a witness: a log that no longer holds that entry
    with that hash was truncated or rewritten (`flask audit verify --expect SEQ:HASH`); the
    document's own entries follow it, chained when its transaction commits."""
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


# Built once: most pages ask for it, and building the statement cost more than its index seek.
_TOWN_VERSION = (select(func.max(AuditEntry.seq))
                 .where(AuditEntry.municipality_id == bindparam("town")))


def town_version(town_id: int) -> int:
    """The newest sequence number of a town's entries (0 when none): it moves whenever
    anything of the town changes. One index seek on (municipality_id, seq)."""
    return db.session.scalar(_TOWN_VERSION, {"town": town_id}) or 0


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
