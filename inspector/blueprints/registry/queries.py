"""Read-only lookups for the registry screens: a page of search results, a record's history."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Integer, and_, bindparam, or_, select, union_all
from sqlalchemy.orm import aliased

from ...extensions import db
from ...models import AuditEntry, StatusChange, User
from .kinds import Kind

PER_PAGE = 25


@dataclass(frozen=True)
class ResultPage:
    """One page of search results and whether there is another after it."""

    rows: list[Any]
    page: int
    has_next: bool

    @property
    def has_prev(self) -> bool:
        """Whether a page comes before this one."""
        return self.page > 1


def search(kind: Kind, service, town: int, q: str, page: int) -> ResultPage:
    """One page of the service's search, asking for one row more to know if a next page exists."""
    search_fn = getattr(service, kind.search_fn)
    rows = list(search_fn(town, q, limit=PER_PAGE + 1, offset=(page - 1) * PER_PAGE))
    return ResultPage(rows[:PER_PAGE], page, len(rows) > PER_PAGE)


@dataclass(frozen=True)
class Event:
    """One line of a record's history: a status change or an audit entry."""

    at: Any
    who: str
    what: str          # audit action, or "status_change"
    entity: str
    entity_id: str
    reason: str = ""
    from_status: Any = None
    to_status: Any = None
    changed: tuple[str, ...] = ()


def history(town: int, subjects: list[tuple[str, int]], limit: int = 100) -> list[Event]:
    """Status changes and audit entries of some records (entity, id), newest first.

    Status changes carry the reason; audit entries carry the fields changed.
    """
    from .labels import changed_fields

    if not subjects:
        return []
    status_rows = db.session.scalars(
        db.select(StatusChange).where(
            StatusChange.municipality_id == town,
            or_(*[and_(StatusChange.subject_type == e, StatusChange.subject_id == i)
                  for e, i in subjects]))
        .order_by(StatusChange.at.desc(), StatusChange.id.desc()).limit(limit)).all()
    audit_rows = _audit_entries(town, subjects, limit)
    names = _names({a.actor_id for a in audit_rows if a.actor_id})
    events = [Event(at=s.at, who=s.user.name if s.user else "sistema", what="status_change",
                    entity=s.subject_type, entity_id=str(s.subject_id), reason=s.reason,
                    from_status=s.from_status, to_status=s.to_status) for s in status_rows]
    events += [Event(at=a.at, who=names.get(a.actor_id, a.actor), what=a.action, entity=a.entity,
                     entity_id=a.entity_id, changed=tuple(changed_fields(a.before, a.after)))
               for a in audit_rows if not _is_status_audit(a)]
    events.sort(key=lambda e: _aware(e.at), reverse=True)
    return events[:limit]


def _audit_entries(town: int, subjects: list[tuple[str, int]], limit: int) -> list[AuditEntry]:
    """The town's newest `limit` audit entries about these records, newest first."""
    statement, params = audit_query(town, subjects, limit)
    return list(db.session.scalars(statement, params))


def audit_query(town: int, subjects: list[tuple[str, int]], limit: int) -> tuple[Any, dict]:
    """The statement and parameters for the town's newest `limit` audit entries about
    these records (built once per number of records: building one costs more than running it)."""
    records = list(dict.fromkeys((e, str(i)) for e, i in subjects))
    params = {"town": town, "limit": limit}
    for k, (entity, entity_id) in enumerate(records):
        params[f"entity_{k}"], params[f"entity_id_{k}"] = entity, entity_id
    return _audit_statement(len(records)), params


@lru_cache(maxsize=64)
def _audit_statement(records: int):
    """The newest :limit entries of the town (:town) about :entity_k/:entity_id_k, k < records.

    One branch per record, each the newest :limit of its own range of the (entity,
    entity_id, seq) index, then merged. One OR over the records ordered by seq made SQLite
    walk the town's whole log backwards for a record with few entries, even with that index
    (bench/audit_lookups.py).
    """
    a = AuditEntry.__table__.c
    limit = bindparam("limit", type_=Integer)
    branches = [select(a).where(a.entity == bindparam(f"entity_{k}"),
                                a.entity_id == bindparam(f"entity_id_{k}"),
                                a.municipality_id == bindparam("town"))
                .order_by(a.seq.desc()).limit(limit) for k in range(records)]
    if records == 1:
        return select(AuditEntry).from_statement(branches[0])
    # SQLite takes no ORDER BY/LIMIT inside a compound's member: each is a subquery
    merged = union_all(*[select(b.subquery()) for b in branches]).subquery()
    entry = aliased(AuditEntry, merged)
    return select(entry).order_by(entry.seq.desc()).limit(limit)


def _names(user_ids: set[int]) -> dict[int, str]:
    """People's names for the user ids an audit page mentions (the log keeps usernames)."""
    if not user_ids:
        return {}
    return dict(db.session.execute(db.select(User.id, User.name)
                                   .where(User.id.in_(user_ids))).all())


def _is_status_audit(entry: AuditEntry) -> bool:
    """A status change is shown once, from its StatusChange row (which has the reason)."""
    return "status" in entry.action


def _aware(value):
    from datetime import UTC

    return value if value.tzinfo else value.replace(tzinfo=UTC)
