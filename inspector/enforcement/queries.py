"""Read side of enforcement: the review queue, an inspection's acts, what expires soon, what
the agent's app is told, and a holder's notice by its number and access code."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import Row, func, select
from sqlalchemy.orm import selectinload

from inspector import clock
from inspector.clock import aware, town_day, utc
from inspector.enforcement.acts import check_access_code, fmt_moment, normalise_code
from inspector.enforcement.pricing import shown
from inspector.extensions import db
from inspector.models import (
    CONCLUDED,
    CONVERTIBLE,
    DECIDED,
    EFFECTIVE,
    Appeal,
    AppealStatus,
    EnforcementEvent,
    Fine,
    Inspection,
    InspectionItem,
    InspectionStatus,
    ItemResult,
    Municipality,
    Notice,
    Photo,
    Sanction,
    SanctionStatus,
    User,
    Vehicle,
)
from inspector.rules import Money

# Groups of statuses the acts list filters by (the dashboard's columns): key -> label, statuses
LIST_GROUPS = {
    "decided": ("Decididos (confirmados ou alterados)",
                DECIDED),
    "effective": ("Em vigor ou cumpridos (não anulados)", EFFECTIVE),
    "other": ("Rejeitados, encerrados ou com recurso decidido",
              CONCLUDED),
}


@dataclass(frozen=True)
class ReviewState:
    """Where an inspection's review stands, read from its acts and photos (not from a stored
    flag a decision elsewhere may leave behind): key (a queue filter), label, badge tone."""

    key: str
    label: str
    tone: str
    pending: int = 0   # acts the supervisor has still to decide


def review_state(status: InspectionStatus, *, acts: int, pending: int, with_mayor: int,
                 photos_waiting: int) -> ReviewState:
    """The review state of an inspection: photos still on their way (a photo refused for good
    is not awaited), then its acts: some wait for the supervisor ("Aguardando revisão (2 de 3
    atos)"), some only for the mayor, all decided ("Revisada"), or none at all ("Sem atos";
    "Revisada · sem atos" once the supervisor marked it)."""
    if photos_waiting and status == InspectionStatus.INCOMPLETE:
        return ReviewState("incomplete", "Aguardando fotos", "warn")
    if pending:
        return ReviewState("awaiting_review", f"Aguardando revisão ({pending} de {acts} "
                           f"{'ato' if acts == 1 else 'atos'})", "warn", pending)
    if with_mayor:
        return ReviewState("reviewed", f"Revisada · {with_mayor} com o prefeito", "ok")
    if acts:
        return ReviewState("reviewed", "Revisada", "ok")
    if status == InspectionStatus.REVIEWED:
        return ReviewState("reviewed", "Revisada · sem atos", "ok")
    return ReviewState("awaiting_review", "Sem atos", "neutral")


def inspection_review_state(insp: Inspection, acts: list[Sanction]) -> ReviewState:
    """`review_state` of one inspection whose acts are loaded (the inspection's page)."""
    return review_state(
        insp.status, acts=len(acts),
        pending=sum(1 for a in acts if a.status == SanctionStatus.PROPOSED and not a.awaiting_mayor),
        with_mayor=sum(1 for a in acts if a.status == SanctionStatus.PROPOSED and a.awaiting_mayor),
        photos_waiting=sum(1 for p in insp.photos
                           if p.received_at is None and p.refused_at is None))


@dataclass
class QueueRow:
    """One inspection in the review queue."""

    inspection: Row  # what the row shows: id, finished_at, failed_items, status, registry_changed
    agent_name: str
    plate: str
    prefix: str
    pending_acts: int
    awaiting_mayor: int
    acts: int = 0
    photos_waiting: int = 0

    @property
    def state(self) -> ReviewState:
        """The row's review state, read from its acts and photos."""
        return review_state(self.inspection.status, acts=self.acts, pending=self.pending_acts,
                            with_mayor=self.awaiting_mayor, photos_waiting=self.photos_waiting)


@dataclass
class QueuePage:
    """A page of the review queue."""

    rows: list[QueueRow]
    page: int
    per_page: int
    has_next: bool


def review_queue(town_id: int, *, agent_id: int | None = None, status: str | None = None,
                 day_from: date | None = None, day_to: date | None = None,
                 page: int = 1, per_page: int = 50, item: str | None = None) -> QueuePage:
    """Inspections of a town, newest first, filtered by agent, status, the local day
    they finished (the date the queue shows) and a checklist item they found failed."""
    # The page's ids come from the queue's indexes (models/inspections.py), which hold every
    # filter and the order; only those rows are then read. A town's inspections are never
    # read whole, and their wide columns (the body, the signature) never slow the walk.
    # Days are ranges of the order's own column, so a date filter only bounds the walk.
    q = select(Inspection.id).where(Inspection.municipality_id == town_id)
    if agent_id:
        q = q.where(Inspection.agent_id == agent_id)
    # The filter follows the state the rows show (review_state), not the stored status alone:
    # an act proposed after the supervisor marked the inspection, or a photo refused for good,
    # would otherwise list a row under a state it does not read.
    if status == "incomplete":   # photos awaited only while stored incomplete
        q = q.where(Inspection.status == InspectionStatus.INCOMPLETE, _photo_waiting())
    elif status == "awaiting_review":
        q = q.where(~_photo_waiting(), _act_exists(pending=True) | (
            (Inspection.status != InspectionStatus.REVIEWED) & ~_act_exists()))
    elif status == "reviewed":
        q = q.where(~_photo_waiting(), ~_act_exists(pending=True),
                    _act_exists() | (Inspection.status == InspectionStatus.REVIEWED))
    if day_from:
        q = q.where(Inspection.finished_at > end_of_day(town_id, day_from - timedelta(days=1)))
    if day_to:
        q = q.where(Inspection.finished_at <= end_of_day(town_id, day_to))
    if item:   # the dashboard's "most failed items" (index ix_inspection_items_result)
        q = q.where(Inspection.failed_items > 0, select(InspectionItem.id).where(
            InspectionItem.inspection_id == Inspection.id, InspectionItem.result == ItemResult.FAIL,
            InspectionItem.item_id == item).exists())
    page = max(1, page)
    newest_first = (Inspection.finished_at.desc(), Inspection.id.desc())
    ids = q.order_by(*newest_first).limit(per_page + 1).offset((page - 1) * per_page)

    def proposed(to_mayor: bool):
        return (select(func.count(Sanction.id))
                .where(Sanction.inspection_id == Inspection.id,
                       Sanction.status == SanctionStatus.PROPOSED,
                       Sanction.awaiting_mayor.is_(to_mayor)).scalar_subquery())

    rows = db.session.execute(
        select(Inspection.id, Inspection.finished_at, Inspection.failed_items, Inspection.status,
               Inspection.registry_changed, User.name, Vehicle.plate, Vehicle.prefix,
               proposed(False), proposed(True),
               select(func.count(Sanction.id)).where(Sanction.inspection_id == Inspection.id)
               .scalar_subquery(),
               select(func.count(Photo.id)).where(
                   Photo.inspection_id == Inspection.id, Photo.received_at.is_(None),
                   Photo.refused_at.is_(None)).scalar_subquery())
        .join(User, User.id == Inspection.agent_id)
        .join(Vehicle, Vehicle.id == Inspection.vehicle_id)
        .where(Inspection.id.in_(ids.scalar_subquery())).order_by(*newest_first)).all()
    return QueuePage([QueueRow(r, r.name, r.plate, r.prefix, r[8], r[9], r[10], r[11])
                      for r in rows[:per_page]], page, per_page, len(rows) > per_page)


def _act_exists(*, pending: bool = False):
    """EXISTS an act of the inspection (pending: one the supervisor has still to decide)."""
    q = select(Sanction.id).where(Sanction.inspection_id == Inspection.id)
    if pending:
        q = q.where(Sanction.status == SanctionStatus.PROPOSED, Sanction.awaiting_mayor.is_(False))
    return q.exists()


def _photo_waiting():
    """EXISTS a photo of the inspection still on its way (not received, not refused for good)."""
    return select(Photo.id).where(Photo.inspection_id == Inspection.id,
                                  Photo.received_at.is_(None), Photo.refused_at.is_(None)).exists()


def agents(town_id: int) -> list[User]:
    """The town's users who have sent inspections (for the queue's filter)."""
    # EXISTS per user: one probe of the agent's index each, not every inspection of the
    # town (a user belongs to one town, so their inspections are that town's)
    sent = select(Inspection.id).where(Inspection.agent_id == User.id)
    return list(db.session.scalars(
        select(User).where(User.municipality_id == town_id, sent.exists())
        .order_by(User.name)))


def acts_of(insp: Inspection) -> list[Sanction]:
    """Every act of an inspection (daily fines after their notice), in order."""
    return list(db.session.scalars(
        select(Sanction).where(Sanction.inspection_id == insp.id)
        .options(selectinload(Sanction.appeals), selectinload(Sanction.notice),
                 selectinload(Sanction.fine))
        .order_by(Sanction.inspection_item_id, Sanction.parent_id.is_not(None),
                  Sanction.measure_index, Sanction.id)))


def events_of(insp: Inspection) -> list[EnforcementEvent]:
    """The history of an inspection and its acts, oldest first."""
    return list(db.session.scalars(
        select(EnforcementEvent).where(EnforcementEvent.inspection_id == insp.id)
        .order_by(EnforcementEvent.id)))


def review_for_agent(insp: Inspection) -> dict:
    """What the agent's app shows after a sync: each act's decision, reasons and comments."""
    acts = acts_of(insp)
    comments = db.session.execute(
        select(EnforcementEvent.at, EnforcementEvent.actor, EnforcementEvent.text)
        .where(EnforcementEvent.inspection_id == insp.id, EnforcementEvent.kind == "comment")
        .order_by(EnforcementEvent.id)).all()
    items = {a.inspection_item_id: a.inspection_item.item_id for a in acts
             if a.inspection_item is not None}
    return {
        "status": insp.status.value, "status_label": insp.status.label,
        "reviewed_at": aware(insp.reviewed_at).isoformat() if insp.reviewed_at else None,
        "acts": [{"id": a.id, "item_id": items.get(a.inspection_item_id), "kind": a.kind,
                  "kind_label": a.kind_label, "label": a.label, "status": a.status.value,
                  "status_label": a.status_label, "reason": a.reason or None,
                  "comment": a.comment or None,
                  "decided_at": aware(a.decided_at).isoformat() if a.decided_at else None,
                  "deadline_at": aware(a.deadline_at).isoformat() if a.deadline_at else None,
                  "notice_number": a.notice.number if a.notice else None}
                 for a in acts],
        "comments": [{"at": aware(c.at).isoformat(), "by": c.actor, "text": c.text}
                     for c in comments],
    }


@dataclass
class Deadlines:
    """What expires soon in a town ("Prazos")."""

    now: datetime
    days: int
    notices: list[Sanction] = field(default_factory=list)        # deadline to comply
    appeal_windows: list[Sanction] = field(default_factory=list)  # last day to appeal
    awaiting_mayor: list[Sanction] = field(default_factory=list)
    pending_appeals: list[Appeal] = field(default_factory=list)
    daily_fines: list[Sanction] = field(default_factory=list)    # running
    awaiting_delivery: list[Sanction] = field(default_factory=list)  # decided, not delivered


def _town(town_id: int) -> Municipality | None:
    return db.session.get(Municipality, town_id)


def end_of_day(town_id: int, day: date) -> datetime:
    """The last instant of `day` on the clock of the town `town_id` (a filter's "até")."""
    return clock.end_of_day(_town(town_id), day)


def deadlines(town_id: int, now: datetime, days: int = 7) -> Deadlines:
    """Notices due (or overdue and not yet converted), appeal windows closing, decided acts
    waiting for their delivery (no time runs before it), decisions waiting for the mayor, appeals
    waiting for a decision, daily fines running."""
    now = utc(now)
    today = town_day(_town(town_id), now)
    out = Deadlines(now, days)
    base = select(Sanction).where(Sanction.municipality_id == town_id)
    out.notices = list(db.session.scalars(
        base.where(Sanction.deadline_at.is_not(None), Sanction.deadline_at <= now +
                   timedelta(days=days), Sanction.status.in_(CONVERTIBLE))
        .order_by(Sanction.deadline_at)))
    out.appeal_windows = list(db.session.scalars(
        base.where(Sanction.appeal_until.is_not(None), Sanction.appeal_until >= today,
                   Sanction.appeal_until <= today + timedelta(days=days),
                   Sanction.status.in_(EFFECTIVE), Sanction.status != SanctionStatus.APPEALED)
        .order_by(Sanction.appeal_until, Sanction.id)))
    out.awaiting_delivery = list(db.session.scalars(
        base.where(Sanction.awaiting_delivery).order_by(Sanction.decided_at, Sanction.id)))
    out.awaiting_mayor = list(db.session.scalars(
        base.where(Sanction.status == SanctionStatus.PROPOSED,
                   Sanction.awaiting_mayor.is_(True)).order_by(Sanction.id)))
    out.pending_appeals = list(db.session.scalars(
        select(Appeal).where(Appeal.municipality_id == town_id,
                             Appeal.status == AppealStatus.PENDING).order_by(Appeal.filed_on)))
    out.daily_fines = list(db.session.scalars(
        base.join(Fine, Fine.sanction_id == Sanction.id)
        .where(Fine.per == "day", Fine.stopped_at.is_(None),
               Sanction.status.in_(EFFECTIVE)).order_by(Fine.daily_start_at)))
    return out


def deadline_soon(town_id: int | None, now: datetime, within: timedelta) -> list[Sanction]:
    """Notices whose deadline falls within `within` from `now` (e.g. two days away)."""
    q = select(Sanction).where(Sanction.deadline_at.is_not(None),
                               Sanction.deadline_at > utc(now),
                               Sanction.deadline_at <= utc(now) + within,
                               Sanction.status.in_(CONVERTIBLE))
    if town_id is not None:
        q = q.where(Sanction.municipality_id == town_id)
    return list(db.session.scalars(q.order_by(Sanction.deadline_at)))


def acts_list(town_id: int, *, status: str | None = None, kind: str | None = None,
              holder_id: int | None = None, driver_id: int | None = None,
              page: int = 1, per_page: int = 50, day_from: date | None = None,
              day_to: date | None = None) -> tuple[list[Sanction], bool]:
    """The town's acts, newest first, filtered by status (or a group of them: LIST_GROUPS),
    kind, holder and driver (the holder's and the driver's registry pages list the same
    acts: Sanction.holder_id / driver_id, each indexed) and the local day they were proposed
    (the dashboard's period)."""
    town = Sanction.municipality_id == town_id
    if holder_id is not None or driver_id is not None:
        # "+ 0": one person's few acts are read by their holder_id / driver_id index; SQLite
        # (no ANALYZE statistics) otherwise chose the town's index and read all its acts
        town = Sanction.municipality_id + 0 == town_id
    q = select(Sanction).where(town)
    if holder_id is not None:
        q = q.where(Sanction.holder_id == holder_id)
    if driver_id is not None:
        q = q.where(Sanction.driver_id == driver_id)
    if status == "awaiting_delivery":   # decided in the office, document not yet delivered
        q = q.where(Sanction.awaiting_delivery)
    elif status == "awaiting_mayor":
        q = q.where(Sanction.status == SanctionStatus.PROPOSED, Sanction.awaiting_mayor.is_(True))
    elif status in LIST_GROUPS:
        q = q.where(Sanction.status.in_(LIST_GROUPS[status][1]))
    elif status in {s.value for s in SanctionStatus}:
        q = q.where(Sanction.status == SanctionStatus(status))
    if kind:
        q = q.where(Sanction.kind == kind)
    if day_from:
        q = q.where(Sanction.proposed_at > end_of_day(town_id, day_from - timedelta(days=1)))
    if day_to:
        q = q.where(Sanction.proposed_at <= end_of_day(town_id, day_to))
    rows = list(db.session.scalars(q.options(selectinload(Sanction.notice),
                                             selectinload(Sanction.vehicle))
                                   .order_by(Sanction.id.desc())
                                   .limit(per_page + 1).offset((max(page, 1) - 1) * per_page)))
    return rows[:per_page], len(rows) > per_page


def notice_for_holder(town_id: int, number: str, code: str) -> Notice | None:
    """A notice by its printed number and access code (None for a wrong pair)."""
    notice = db.session.scalar(select(Notice).where(Notice.municipality_id == town_id,
                                                    Notice.number == (number or "").strip()))
    if notice is None or not check_access_code(notice, code):
        return None
    return notice


def notices_for_holder(holder_id: int) -> list[Notice]:
    """Every document issued to a holder (their acts and their drivers' and vehicles')."""
    return list(db.session.scalars(
        select(Notice).join(Sanction, Sanction.id == Notice.sanction_id)
        .where(Sanction.holder_id == holder_id).order_by(Notice.issued_at.desc())))


def money_of(act: Sanction) -> Money:
    """The act's amount in the law's unit and in BRL, as the engine prints money (a proposal
    left to a decree: with the decree values registered now, see `pricing.shown`)."""
    return shown(act)


__all__ = ["Deadlines", "QueuePage", "QueueRow", "ReviewState", "inspection_review_state",
           "review_state", "acts_list", "acts_of", "agents",
           "deadline_soon", "deadlines", "events_of", "fmt_moment", "money_of", "normalise_code",
           "notice_for_holder", "notices_for_holder", "review_for_agent", "review_queue"]
