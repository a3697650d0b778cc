"""Append to and verify the hash-chained audit log: one chain per town.

Each town is its own legal entity: its entries form a chain of their own, and entries of no
town (the deployment's: admins' accounts, signing keys, the daily digests) form another.
Each entry's hash is SHA-256 over a canonical JSON encoding of its content, its position in
its chain and the previous entry's hash. Editing, deleting or reordering any entry breaks
its chain at that point, and `flask audit verify` names the first broken link of each chain.
Entries written before migration 0032 stay as the single chain they were (the legacy chain),
ending where the deployment chain's first entry says it did. Once a day `take_digest`
stores one digest of every chain's head, published at /transparencia/registro/resumos.
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
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from inspector import clock
from inspector.extensions import db
from inspector.models import AuditDigest, AuditEntry

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
               before: str | None, after: str | None, prev_hash: str,
               chain_seq: int | None = None) -> str:
    """SHA-256 of an entry's content and its predecessor's hash. `chain_seq`, the entry's
    position in its town's chain, is hashed too; an entry of the legacy chain has none."""
    content = {
        "seq": seq, "at": at, "actor": actor, "actor_id": actor_id,
        "municipality_id": municipality_id, "action": action, "entity": entity,
        "entity_id": entity_id, "before": before, "after": after, "prev_hash": prev_hash,
    }
    if chain_seq is not None:
        content["chain_seq"] = chain_seq
    return hashlib.sha256(canonical(content).encode()).hexdigest()


def genesis(town_id: int | None) -> str:
    """What a town's chain (None: the deployment's) starts from: its own value, so that no
    two chains share a first link (prev_hash is unique: a fork cannot be written)."""
    return hashlib.sha256(canonical({"chain": "deployment" if town_id is None else town_id})
                          .encode()).hexdigest()


# Appends of one town wait for each other, never for another town's: a transaction-scoped
# advisory lock keyed by (class, town id), 0 for the deployment's chain.
_LOCK_CLASS = 4242002
_LOCK = text("SELECT pg_advisory_xact_lock(:cls, :key)")


def _lock_chains(session, towns: Iterable[int | None]) -> None:
    """Serialise the chaining of each town's entries so its chain never forks. Towns are
    locked in one order (by id), so two transactions writing for the same towns cannot
    deadlock. On SQLite the database's one writer serialises everything anyway."""
    if session.get_bind().dialect.name == "postgresql":
        for key in sorted(0 if t is None else t for t in towns):
            session.execute(_LOCK, {"cls": _LOCK_CLASS, "key": key})


_TABLE = AuditEntry.__table__
_C = _TABLE.c
_APPEND = _TABLE.insert()  # built once: entries are written on every change
_LAST = select(_C.seq, _C.hash).order_by(_C.seq.desc()).limit(1)
_CHAIN_HEAD = {  # a chain's last position, read after its lock is held
    "town": select(_C.chain_seq, _C.hash).where(_C.municipality_id == bindparam("town"),
                                                _C.chain_seq.is_not(None))
    .order_by(_C.chain_seq.desc()).limit(1),
    "deployment": select(_C.chain_seq, _C.hash).where(_C.municipality_id.is_(None),
                                                      _C.chain_seq.is_not(None))
    .order_by(_C.chain_seq.desc()).limit(1),
}
# PostgreSQL: entry numbers from the id's own sequence (no lock shared by towns; a number a
# rolled-back commit took is a gap). SQLite: the next after the last, under its one writer.
_NUMBERS = text("SELECT nextval(pg_get_serial_sequence('audit_entries', 'id')) "
                "FROM generate_series(1, :n)")
_MAX_SEQ = select(func.max(_C.seq))
_PENDING = "audit_pending"  # session.info: [(transaction written in, entry), ...]


def record(action: str, entity: str, entity_id: Any, *, before: dict | None = None,
           after: dict | None = None, actor=None, municipality_id: int | None = None,
           at: datetime | None = None) -> None:
    """Add an entry to the caller's transaction (committed with the change it records), in
    the chain of `municipality_id` (None: the deployment's own chain).

    The entry is written, numbered and chained when the transaction commits (`sequence`, a
    before-commit hook): the lock of the town's chain is then held only for that last step,
    not while the transaction does its work (a tick, an import, a sync), and another town's
    writes never wait for it. A savepoint rolled back takes its entries with it (`_forget`).
    Pending ORM changes are flushed first, as the change comes before its record."""
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


def _chain_head(session, town_id: int | None) -> tuple[int, str]:
    """(position, hash) of a chain's last entry; (0, its genesis) while it has none."""
    if town_id is None:
        last = session.execute(_CHAIN_HEAD["deployment"]).first()
    else:
        last = session.execute(_CHAIN_HEAD["town"], {"town": town_id}).first()
    return (last.chain_seq, last.hash) if last else (0, genesis(town_id))


def _numbers(session, n: int) -> list[int]:
    if session.get_bind().dialect.name == "postgresql":
        return sorted(session.scalars(_NUMBERS, {"n": n}))
    last = session.scalar(_MAX_SEQ) or 0
    return list(range(last + 1, last + n + 1))


def sequence(session) -> int:
    """Write the entries this transaction added, in the order added, each numbered and
    chained after the last committed entry of its town; return how many. Run before the
    outermost commit (`install`)."""
    if session.in_nested_transaction() or not session.info.get(_PENDING):
        return 0
    entries = [e for _, e in session.info.pop(_PENDING)]
    towns = {e["municipality_id"] for e in entries}
    _lock_chains(session, towns)
    # numbered after the locks: within a town, numbers grow in chain order
    heads = {t: _chain_head(session, t) for t in towns}
    postgres = session.get_bind().dialect.name == "postgresql"
    for e, number in zip(entries, _numbers(session, len(entries)), strict=True):
        position, prev = heads[e["municipality_id"]]
        position += 1
        e["seq"], e["chain_seq"], e["prev_hash"] = number, position, prev
        if postgres:
            e["id"] = number
        e["hash"] = entry_hash(number, e["at"], e["actor"], e["actor_id"],
                               e["municipality_id"], e["action"], e["entity"],
                               e["entity_id"], e["before"], e["after"], prev, chain_seq=position)
        heads[e["municipality_id"]] = (position, e["hash"])
    session.execute(_APPEND, entries)
    return len(entries)


def install() -> None:
    """Chain each transaction's entries as it commits, and drop those of what a rollback
    undid (create_app calls it)."""
    for name, hook in (("before_commit", sequence), ("after_soft_rollback", _forget)):
        if not event.contains(Session, name, hook):
            event.listen(Session, name, hook)


def latest() -> tuple[int, str] | None:
    """The newest committed entry of any chain (seq, hash), read without any lock; None while
    the log is empty."""
    last = db.session.execute(_LAST).first()
    return (last.seq, last.hash) if last else None


_TOWN_HEAD = (select(_C.seq, _C.hash).where(_C.municipality_id == bindparam("town"))
              .order_by(_C.seq.desc()).limit(1))
_DEPLOYMENT_HEAD = (select(_C.seq, _C.hash).where(_C.municipality_id.is_(None))
                    .order_by(_C.seq.desc()).limit(1))


def head(town_id: int | None) -> tuple[int, str] | None:
    """A town's newest committed entry (seq, hash) (None: the deployment's own chain), read
    without the chain's lock (a public page must not be able to hold up writers); None while
    it has none. Printed on the town's documents, it makes every copy a witness: a log that
    no longer holds that entry with that hash was truncated or rewritten (`flask audit
    verify --expect SEQ:HASH`); the document's own entries follow it, chained when its
    transaction commits. One index seek on (municipality_id, seq)."""
    if town_id is None:
        last = db.session.execute(_DEPLOYMENT_HEAD).first()
    else:
        last = db.session.execute(_TOWN_HEAD, {"town": town_id}).first()
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


# ------------------------------------------------------------------ verification
LEGACY = "legacy"          # the single chain the log was before migration 0032
DEPLOYMENT = "deployment"  # entries of no town: accounts of admins, keys, digests...
CUT_OVER = "audit_chains_split"  # the deployment chain's first entry after migration 0032


@dataclass(frozen=True)
class Break:
    """The first place where a chain does not hold."""

    seq: int | None
    entry_id: int | None
    reason: str
    chain: str | None = None  # a town's slug, DEPLOYMENT or LEGACY


@dataclass
class ChainCheck:
    """One chain walked: how many entries held, its head, and its first break."""

    chain: str                 # a town's slug, DEPLOYMENT or LEGACY
    town_id: int | None
    count: int = 0
    head: tuple[int, str] | None = None     # (seq, hash) of its last entry
    broken: Break | None = None
    position: int = 0          # the position expected next (per-town chains)
    prev: str = GENESIS
    first: AuditEntry | None = None  # the deployment chain's first entry (the cut-over)

    def fail(self, e: AuditEntry, reason: str) -> None:
        self.broken = Break(e.seq, e.id, reason, self.chain)


def _step_legacy(check: ChainCheck, e: AuditEntry) -> None:
    """The legacy chain: entries numbered 1, 2, 3... each over the previous one's hash."""
    expected = check.count + 1
    if e.seq != expected:
        return check.fail(e, f"expected entry #{expected}, found #{e.seq}: an entry was "
                             "deleted or renumbered")
    if e.prev_hash != check.prev:
        return check.fail(e, f"entry #{e.seq} does not follow entry #{e.seq - 1}: reordered "
                             "or the previous one was replaced")
    digest = entry_hash(e.seq, e.at, e.actor, e.actor_id, e.municipality_id, e.action,
                        e.entity, e.entity_id, e.before, e.after, e.prev_hash)
    if digest != e.hash:
        return check.fail(e, f"entry #{e.seq} was edited: its content no longer matches its "
                             "hash")
    check.prev, check.count, check.head = e.hash, check.count + 1, (e.seq, e.hash)
    return None


def _step_town(check: ChainCheck, e: AuditEntry) -> None:
    """A town's (or the deployment's) chain: positions 1, 2, 3... in the order of the
    entries' numbers, each over the previous one's hash, the first over the chain's genesis."""
    expected = check.position + 1
    if e.chain_seq != expected:
        return check.fail(e, f"entry #{e.seq} holds position {e.chain_seq} of the {check.chain} "
                             f"chain where position {expected} was expected: an entry was "
                             "deleted, or entries were renumbered or reordered")
    if e.prev_hash != check.prev:
        return check.fail(e, f"entry #{e.seq} does not follow the previous entry of the "
                             f"{check.chain} chain: reordered, or the previous one was replaced")
    digest = entry_hash(e.seq, e.at, e.actor, e.actor_id, e.municipality_id, e.action,
                        e.entity, e.entity_id, e.before, e.after, e.prev_hash,
                        chain_seq=e.chain_seq)
    if digest != e.hash:
        return check.fail(e, f"entry #{e.seq} was edited: its content no longer matches its "
                             "hash")
    if check.first is None:
        check.first = e
    check.position, check.prev = expected, e.hash
    check.count, check.head = check.count + 1, (e.seq, e.hash)
    return None


def _check_cut_over(legacy: ChainCheck, deployment: ChainCheck | None) -> None:
    """The legacy chain ends exactly where the deployment chain's first entry says it did
    when the chains were split: a legacy tail cut off, or a legacy chain rewritten whole,
    no longer matches."""
    if legacy.broken is not None:
        return
    first = deployment.first if deployment is not None else None
    recorded = None
    if first is not None and first.action == CUT_OVER and first.after:
        recorded = json.loads(first.after).get("legacy_head")
    if legacy.head is None:
        if recorded is not None:
            legacy.broken = Break(recorded.get("seq"), None, "the legacy chain is gone: the "
                                  f"cut-over entry #{first.seq} records its last entry "
                                  f"#{recorded.get('seq')}", LEGACY)
        return
    found = {"seq": legacy.head[0], "sha256": legacy.head[1]}
    if recorded != found:
        said = (f"records #{recorded.get('seq')} ({str(recorded.get('sha256'))[:16]}…)"
                if recorded else "is missing")
        legacy.broken = Break(legacy.head[0], None, f"the legacy chain ends at entry "
                              f"#{legacy.head[0]} ({legacy.head[1][:16]}…), but the cut-over "
                              f"entry {said}: its tail was cut or rewritten", LEGACY)


_UNSET = object()


def chains(town_id: Any = _UNSET) -> list[ChainCheck]:
    """Walk every chain (or one town's, `town_id`) in one pass over the entries in number
    order; each chain is checked on its own, so one broken chain does not hide another's
    state. The legacy chain (entries before migration 0032) is walked with all chains, and
    with a town's when it holds entries of that town."""
    from inspector.models import Municipality

    slugs = dict(db.session.execute(select(Municipality.id, Municipality.slug)).all())
    query = select(AuditEntry).order_by(AuditEntry.seq, AuditEntry.id)
    one_town = town_id is not _UNSET
    if one_town:
        has_legacy = db.session.scalar(select(AuditEntry.id).where(
            AuditEntry.municipality_id == town_id, AuditEntry.chain_seq.is_(None)).limit(1))
        query = query.where((AuditEntry.municipality_id == town_id)
                            | AuditEntry.chain_seq.is_(None) if has_legacy else
                            AuditEntry.municipality_id == town_id)
    checks: dict[Any, ChainCheck] = {}
    for (e,) in db.session.execute(query.execution_options(yield_per=2000)):
        key = LEGACY if e.chain_seq is None else e.municipality_id
        check = checks.get(key)
        if check is None:
            label = LEGACY if key == LEGACY else DEPLOYMENT if key is None else \
                slugs.get(key, f"#{key}")
            check = checks[key] = ChainCheck(label, None if key == LEGACY else key,
                                             prev=GENESIS if key == LEGACY else genesis(key))
        if check.broken is None:
            (_step_legacy if key == LEGACY else _step_town)(check, e)
    if one_town and town_id not in checks:
        checks[town_id] = ChainCheck(slugs.get(town_id, f"#{town_id}"), town_id)
    if not one_town or LEGACY in checks:
        if one_town:
            deployment_first = db.session.scalar(select(AuditEntry).where(
                AuditEntry.municipality_id.is_(None), AuditEntry.chain_seq == 1))
            deployment = ChainCheck(DEPLOYMENT, None, first=deployment_first)
        else:
            deployment = checks.get(None)
        legacy = checks.setdefault(LEGACY, ChainCheck(LEGACY, None))
        _check_cut_over(legacy, deployment)
        if legacy.head is None and legacy.broken is None:
            del checks[LEGACY]
    order = {LEGACY: 0, DEPLOYMENT: 1}
    return sorted(checks.values(), key=lambda c: (order.get(c.chain, 2), c.chain))


def verify() -> tuple[int, Break | None]:
    """Walk every chain; return how many entries held and the first break (by entry number),
    if any."""
    checks = chains()
    breaks = [c.broken for c in checks if c.broken is not None]
    first = min(breaks, key=lambda b: (b.seq is None, b.seq or 0)) if breaks else None
    return sum(c.count for c in checks), first


# ------------------------------------------------------------------ daily digests
def heads_now() -> list[dict]:
    """Every chain's head as committed now: the deployment's, then each town's by slug
    (towns whose chain has no entry yet are left out). Numbers and hashes only: no
    personal data. One index seek per town."""
    from inspector.models import Municipality

    out = []
    towns = db.session.execute(select(Municipality.id, Municipality.slug)
                               .order_by(Municipality.slug)).all()
    for town_id, slug in [(None, None), *towns]:
        last = _chain_head(db.session, town_id)
        if last[0] == 0:
            continue
        seq = db.session.scalar(select(_C.seq).where(_C.hash == last[1]))
        out.append({"town": slug, "position": last[0], "seq": seq, "sha256": last[1]})
    return out


def digest_of(day: date, heads: list[dict], prev_digest: str | None) -> str:
    """SHA-256 over a day, its heads and the previous digest."""
    return hashlib.sha256(canonical({"day": day, "heads": heads, "prev_digest": prev_digest})
                          .encode()).hexdigest()


def take_digest(now: datetime | None = None) -> tuple[AuditDigest, bool]:
    """Today's digest (Mato Grosso's day) of every chain's head: taken and committed by the
    first call of the day, returned as stored by the others (second value: whether this call
    took it); the caller commits. Days only move forward: a clock set back gets the newest digest, so the
    digests stay one chain in day order. The tick calls it; `flask audit digest` too."""
    now = now or clock.now()
    # one digest of every town's chain: it belongs to no town, so its day is the default's
    day = clock.default_day(now)
    newest = db.session.scalar(select(AuditDigest).order_by(AuditDigest.day.desc()).limit(1))
    if newest is not None and newest.day >= day:  # today's is taken (a clock set back: kept)
        return newest, False
    prev = newest.digest if newest is not None else None
    heads = heads_now()
    row = AuditDigest(day=day, taken_at=clock.utc(now), heads=canonical(heads),
                      prev_digest=prev, digest=digest_of(day, heads, prev))
    try:
        with db.session.begin_nested():
            db.session.add(row)
    except IntegrityError:  # another process took today's at the same moment
        return db.session.scalar(select(AuditDigest).where(AuditDigest.day == day)), False
    record("audit_digest_taken", "audit_digest", day.isoformat(), actor="system",
           after={"day": day, "digest": row.digest, "chains": len(heads)}, at=now)
    return row, True


def digest_problems(kept: Iterable[tuple[date, str]] = ()) -> list[str]:
    """What the stored digests say against the log as it is now: a digest that no longer
    recomputes, one that does not follow the day before, a head the log no longer holds with
    the same hash and position (that town's chain was rewritten or cut after the digest). And
    for each (day, digest) kept elsewhere (`--digest`), whether the stored one is the same."""
    problems = []
    prev = None
    stored = {}
    for d in db.session.scalars(select(AuditDigest).order_by(AuditDigest.day)):
        stored[d.day] = d.digest
        heads = json.loads(d.heads)
        if d.prev_digest != prev:
            problems.append(f"digest of {d.day}: does not follow the digest of the day before "
                            "(a digest was removed or rewritten)")
        if digest_of(d.day, heads, d.prev_digest) != d.digest:
            problems.append(f"digest of {d.day}: its heads no longer give its digest (edited)")
        prev = d.digest
        for h in heads:
            row = db.session.execute(select(_C.hash, _C.chain_seq).where(_C.seq == h["seq"])).first()
            chain = h["town"] or DEPLOYMENT
            if row is None:
                problems.append(f"digest of {d.day}: the {chain} chain's head then, entry "
                                f"#{h['seq']}, is missing: the chain was cut")
            elif (row.hash, row.chain_seq) != (h["sha256"], h["position"]):
                problems.append(f"digest of {d.day}: the {chain} chain's head then, entry "
                                f"#{h['seq']}, now has another hash ({row.hash[:16]}…, the "
                                f"digest says {h['sha256'][:16]}…): the chain was rewritten")
    for day, digest in kept:
        if day not in stored:
            problems.append(f"kept digest of {day}: the log has no digest of that day")
        elif stored[day] != digest:
            problems.append(f"kept digest of {day}: the log's digest of that day is another "
                            f"({stored[day][:16]}…): the digests were rewritten")
    return problems
