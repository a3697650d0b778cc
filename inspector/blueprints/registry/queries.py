"""Read-only lookups for the registry screens: a page of search results, a record's history."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_

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
    audit_rows = db.session.scalars(
        db.select(AuditEntry).where(
            AuditEntry.municipality_id == town,
            or_(*[and_(AuditEntry.entity == e, AuditEntry.entity_id == str(i))
                  for e, i in subjects]))
        .order_by(AuditEntry.seq.desc()).limit(limit)).all()
    names = _names({a.actor_id for a in audit_rows if a.actor_id})
    events = [Event(at=s.at, who=s.user.name if s.user else "sistema", what="status_change",
                    entity=s.subject_type, entity_id=str(s.subject_id), reason=s.reason,
                    from_status=s.from_status, to_status=s.to_status) for s in status_rows]
    events += [Event(at=a.at, who=names.get(a.actor_id, a.actor), what=a.action, entity=a.entity,
                     entity_id=a.entity_id, changed=tuple(changed_fields(a.before, a.after)))
               for a in audit_rows if not _is_status_audit(a)]
    events.sort(key=lambda e: _aware(e.at), reverse=True)
    return events[:limit]


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
