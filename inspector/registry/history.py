"""A record's history and the acts about a holder or driver, for the registry's pages:
the audit log's entries about the record (one index range per subject) and the legal acts."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Integer, and_, bindparam, or_, select, union_all
from sqlalchemy.orm import aliased

from inspector import audit
from inspector.extensions import db
from inspector.identifiers import format_plate
from inspector.models import (
    COPY_MEANS,
    KIND_LABELS,
    VOID,
    AuditEntry,
    Fine,
    Holder,
    Notice,
    NoticeCompanyCopy,
    Sanction,
    SanctionStatus,
    StatusChange,
    User,
    Vehicle,
)

INTERNAL_FIELDS = {"id", "municipality_id"}


def changed_fields(before: str | None, after: str | None) -> list[str]:
    """Names of the fields an update changed (none for a creation: everything is new)."""
    if not before or not after:
        return []
    old, new = audit.values(before), audit.values(after)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return []
    return sorted(k for k in set(old) | set(new)
                  if k not in INTERNAL_FIELDS and old.get(k) != new.get(k))


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


def record_history(town: int, subjects: list[tuple[str, int]], limit: int = 100) -> list[Event]:
    """Status changes and audit entries of some records (entity, id), newest first.

    Status changes carry the reason; audit entries carry the fields changed.
    """
    if not subjects:
        return []
    status_rows = db.session.scalars(
        db.select(StatusChange).where(
            StatusChange.municipality_id == town,
            or_(*[and_(StatusChange.subject_type == e, StatusChange.subject_id == i)
                  for e, i in subjects]))
        .order_by(StatusChange.at.desc(), StatusChange.id.desc()).limit(limit)).all()
    audit_rows = audit_entries(town, subjects, limit)
    names = _names({a.actor_id for a in audit_rows if a.actor_id})
    events = [Event(at=s.at, who=s.user.name if s.user else "sistema", what="status_change",
                    entity=s.subject_type, entity_id=str(s.subject_id), reason=s.reason,
                    from_status=s.from_status, to_status=s.to_status) for s in status_rows]
    events += [Event(at=a.at, who=names.get(a.actor_id, a.actor), what=a.action, entity=a.entity,
                     entity_id=a.entity_id, changed=tuple(changed_fields(a.before, a.after)))
               for a in audit_rows if not _is_status_audit(a)]
    events.sort(key=lambda e: _aware(e.at), reverse=True)
    return events[:limit]


def audit_entries(town: int, subjects: list[tuple[str, int]], limit: int) -> list[AuditEntry]:
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


# bench/caches.py: a record page's history builds it anew in 23-31 ms
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


SANCTIONS_SHOWN = 50


# Badge colour of an act's status: waiting, void, or in effect.
_WAITING = ("proposed", "appealed")


_VOID = ("rejected", "appeal_accepted")


# What a fine's payments say, as the fines page words it (enforcement/payments.py).
FINE_STATES = {"open": "Multa em aberto", "partial": "Multa paga parcialmente",
               "paid": "Multa paga", "undefined": "Valor em reais não definido",
               "none": "Nada a pagar"}


DRIVER_TARGETS = ("driver", "registration")


TARGET_LABELS = {"driver": "Condutor", "registration": "Registro do condutor",
                 "holder": "Titular", "company": "Empresa",
                 "permit": "Termo de Permissão do titular", "licence": "Alvará do veículo",
                 "vehicle": "Veículo"}


@dataclass(frozen=True)
class SanctionLine:
    """One act on a holder's or a driver's page (Nova Santa Helena Art. 26 § único: warnings
    are entered in the offender's and the holders' records)."""

    id: int
    kind: str
    law: str
    at: Any                 # when it was proposed (or applied by the law itself)
    decided_at: Any
    status: str
    awaiting_mayor: bool
    automatic: bool
    breach_citation: dict | None   # the article broken
    citation: dict | None          # the article giving the measure
    notice_number: str | None
    plate: str | None
    fine_state: str | None         # open | partial | paid | undefined | none (fines only)
    # the company's copy of the notice (Tapurah Lei 406/2001 Art. 27 I), when one was made
    has_company_copy: bool = False
    copy_remitted_on: Any = None
    copy_via: str | None = None
    # what the act falls on (the pack's measure target) and the holder it names
    target: str = "driver"
    holder_id: int | None = None
    holder_name: str | None = None
    # on a driver's page: the act is the driver's (it falls on the driver or the registration,
    # or the driver's own history of offences reached it), not only of an inspection where the
    # driver was identified (a permit's suspension the holder answers for)
    own: bool = True

    @property
    def on_label(self) -> str:
        """What the act falls on, in pt-BR: 'Termo de Permissão do titular Fulano'."""
        if self.target in DRIVER_TARGETS:
            return TARGET_LABELS[self.target]
        whose = self.holder_name if self.target in ("holder", "company", "permit") \
            else (format_plate(self.plate) if self.plate else None)
        label = TARGET_LABELS.get(self.target, self.target)
        return f"{label} {whose}" if whose else label

    @property
    def kind_label(self) -> str:
        """The kind of act in pt-BR."""
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def status_label(self) -> str:
        """The status in pt-BR ("Aguarda decisão do prefeito" when it does)."""
        if self.status == "proposed" and self.awaiting_mayor:
            return "Aguarda decisão do prefeito"
        return SanctionStatus(self.status).label

    @property
    def status_tone(self) -> str:
        """Badge class: warn while undecided or appealed, bad when void, ok in effect."""
        return "warn" if self.status in _WAITING else ("bad" if self.status in _VOID else "ok")

    @property
    def company_copy_label(self) -> str:
        """'cópia à empresa: pendente' / '... remetida em dd/mm/aaaa (meio)'; '' without one."""
        if not self.has_company_copy:
            return ""
        if self.copy_remitted_on is None:
            return "cópia à empresa: pendente"
        via = COPY_MEANS.get(self.copy_via or "", self.copy_via or "")
        return f"cópia à empresa: remetida em {self.copy_remitted_on.strftime('%d/%m/%Y')} ({via})"

    @property
    def fine_label(self) -> str:
        """A fine's payment state in pt-BR ('' for other acts and void fines)."""
        return FINE_STATES.get(self.fine_state or "", "")


@dataclass(frozen=True)
class SanctionList:
    """The newest acts about a record, and whether older ones were left out."""

    lines: list[SanctionLine]
    more: bool


def sanctions(town: int, *, holder_id: int | None = None, driver_id: int | None = None,
              vehicle_id: int | None = None, limit: int = SANCTIONS_SHOWN) -> SanctionList:
    """The town's acts about one holder (as permit holder of the vehicle), one driver (as
    the offender identified at the inspection, or whose registration the law acted on) or one
    vehicle, newest first, with what each falls on and the company's copy of each notice: one
    query, walking the sanctions' holder_id / driver_id / vehicle_id index (the copy by its
    unique notice_id)."""
    from inspector.enforcement import paid_so_far

    given = [(col, v) for col, v in ((Sanction.holder_id, holder_id),
                                     (Sanction.driver_id, driver_id),
                                     (Sanction.vehicle_id, vehicle_id)) if v is not None]
    if len(given) != 1:
        raise ValueError("sanctions(): give one of holder_id, driver_id, vehicle_id")
    who = given[0][0] == given[0][1]
    offender = f"driver:{driver_id}" if driver_id is not None else None
    paid = paid_so_far()
    rows = db.session.execute(
        select(Sanction.id, Sanction.kind, Sanction.law, Sanction.proposed_at,
               Sanction.decided_at, Sanction.status, Sanction.awaiting_mayor,
               Sanction.automatic, Sanction.breach_citation, Sanction.citation,
               Notice.number, Vehicle.plate, Fine.id.label("fine_id"), Fine.per,
               Fine.amount_brl, Fine.accrued_brl, paid.label("paid"),
               NoticeCompanyCopy.id.label("copy_id"), NoticeCompanyCopy.remitted_on,
               NoticeCompanyCopy.remitted_via, Sanction.target, Sanction.offender,
               Sanction.holder_id,
               Holder.name.label("holder_name"))
        .outerjoin(Notice, Notice.sanction_id == Sanction.id)
        .outerjoin(Holder, Holder.id == Sanction.holder_id)
        .outerjoin(NoticeCompanyCopy, NoticeCompanyCopy.notice_id == Notice.id)
        .outerjoin(Vehicle, Vehicle.id == Sanction.vehicle_id)
        .outerjoin(Fine, Fine.sanction_id == Sanction.id)
        # "+ 0": SQLite (no ANALYZE statistics) read the whole town's acts by its
        # municipality_id index instead of this person's few by holder_id / driver_id
        .where(who, Sanction.municipality_id + 0 == town)
        .order_by(Sanction.proposed_at.desc(), Sanction.id.desc())
        .limit(limit + 1)).all()
    lines = [SanctionLine(
        id=r.id, kind=r.kind, law=r.law, at=r.proposed_at, decided_at=r.decided_at,
        status=_status_value(r.status), awaiting_mayor=bool(r.awaiting_mayor),
        automatic=bool(r.automatic), breach_citation=r.breach_citation,
        citation=r.citation, notice_number=r.number, plate=r.plate,
        fine_state=_fine_state(r), has_company_copy=r.copy_id is not None,
        copy_remitted_on=r.remitted_on, copy_via=r.remitted_via, target=r.target,
        holder_id=r.holder_id, holder_name=r.holder_name,
        own=offender is None or r.target in DRIVER_TARGETS or r.offender == offender)
        for r in rows[:limit]]
    return SanctionList(lines, len(rows) > limit)


def _status_value(status) -> str:
    return status.value if isinstance(status, SanctionStatus) else str(status)


def _fine_state(r) -> str | None:
    """The payment state of a row's fine, as payments.balance() tells it (None: no fine, or
    a void one: proposed, rejected or annulled on appeal)."""
    from decimal import Decimal

    from inspector.enforcement import due_of, payment_state

    if r.fine_id is None or _status_value(r.status) in {s.value for s in VOID}:
        return None
    return payment_state(due_of(r.per, r.amount_brl, r.accrued_brl), Decimal(str(r.paid or 0)))


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
