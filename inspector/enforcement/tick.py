"""`tick(now)`: what the passing of time does under the law, idempotent and safe to run
concurrently.

1. notices past their deadline become the daily fine of their ladder step (Tapurah Art. 29 § ú);
2. daily fines accrue (days and BRL recomputed from `now`: running twice adds nothing);
3. deadlines two days away are announced once (`deadline_soon`, for push notifications);
4. appeal windows close (and a suspensive window that closes unused lets the effect apply);
   suspensions whose last day is over are lifted (the registry row returns to its previous
   status unless something else changed it); acts with nothing left to follow are closed;
5. measures the law applies by itself (`automatic: true` in the pack): registrations not
   revalidated in time are cancelled (Nortelândia 127 Art. 8 § ú), moto-taxi permits whose
   insurance lapsed are revoked (Tapurah Art. 17).

Every change writes the audit log. Each phase (and the law's own measures, each town) is a
transaction of its own, so a tick holds its row locks for one phase at a time and a tick cut
short keeps what its finished phases did (the next one does the rest). Each of those
transactions starts by updating the single `TickState` row: on PostgreSQL that row lock makes
a second tick wait for the first's phase to commit (then it finds nothing left to do); on
SQLite the write lock does the same. Unique `origin_key`s and event `dedupe_key`s are the
backstop.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import aliased

from inspector import clock, laws, rules
from inspector.clock import town_day, utc
from inspector.enforcement import lifecycle
from inspector.enforcement.acts import (
    accrue,
    apply_effect,
    convert_missed,
    issue_notice,
    open_fine,
    schedule,
)
from inspector.enforcement.common import (
    REMIND_BEFORE,
    appeal_fields,
    event,
    jsonable,
    measure_fields,
    notify,
    record,
)
from inspector.enforcement.pending import propose_pending
from inspector.enforcement.suspensions import lift_due
from inspector.extensions import db, insert_once
from inspector.models import (
    CLOSABLE,
    CONVERTIBLE,
    ENFORCEABLE,
    LIVE,
    Appeal,
    AppealStatus,
    Driver,
    DriverCategory,
    Fine,
    InsurancePolicy,
    Municipality,
    Sanction,
    SanctionStatus,
    Service,
    Status,
    TickState,
    Vehicle,
)


@dataclass
class TickReport:
    """What one tick changed (all zero the second time with the same `now`)."""

    now: datetime
    proposed: list[int] = field(default_factory=list)       # inspections given proposals
    converted: list[int] = field(default_factory=list)      # notices -> daily fines
    accrued: list[int] = field(default_factory=list)        # fines whose days changed
    reminders: list[int] = field(default_factory=list)      # deadline_soon announced
    windows_closed: list[int] = field(default_factory=list)
    effects: list[int] = field(default_factory=list)        # effects applied after a window
    lifted: list[int] = field(default_factory=list)         # suspensions whose period ended
    closed: list[int] = field(default_factory=list)
    automatic: list[int] = field(default_factory=list)      # acts the law applied itself

    @property
    def changes(self) -> int:
        """How many things changed."""
        return sum(len(v) for k, v in self.__dict__.items() if isinstance(v, list))

    def as_dict(self) -> dict:
        """JSON-ready form."""
        out = {k: v for k, v in self.__dict__.items() if isinstance(v, list)}
        return {"now": self.now.isoformat(), "changes": self.changes, **out}


def _lock(now: datetime, *, start: bool = False) -> None:
    """Take the tick lock for one phase: update the one TickState row (created on first use)."""
    if db.session.get(TickState, 1) is None:
        insert_once(TickState(id=1, runs=0, last_changes=0))  # or another tick did
        db.session.commit()
    values = {"last_now": utc(now)}
    if start:
        values |= {"runs": TickState.runs + 1, "last_started_at": clock.now()}
    db.session.execute(update(TickState).where(TickState.id == 1).values(**values))
    db.session.expire_all()  # read what the previous phase committed, not the identity map


def tick(now: datetime) -> TickReport:
    """Apply what time brings up to `now`; commits each phase. Safe to run twice or
    concurrently."""
    now = utc(now)
    db.session.commit()  # a tick's phases are transactions of their own
    report = TickReport(now)
    phases = (
        lambda: report.proposed.extend(propose_pending(now)),  # inspections the sync completed
        lambda: _convert(now, report),
        lambda: _accrue(now, report),
        lambda: _remind(now, report),
        lambda: _close_windows(now, report),
        lambda: report.lifted.extend(lift_due(now)),
        lambda: _close_finished(now, report),
    )
    for i, phase in enumerate(phases):
        _lock(now, start=i == 0)
        phase()
        db.session.commit()
    for town_id in db.session.scalars(select(Municipality.id).order_by(Municipality.id)).all():
        _lock(now)
        _automatic(db.session.get(Municipality, town_id), now, report)
        db.session.commit()
    _lock(now)
    db.session.execute(update(TickState).where(TickState.id == 1).values(
        last_finished_at=clock.now(), last_changes=report.changes))
    db.session.commit()
    return report


def _convert(now: datetime, report: TickReport) -> None:
    child = aliased(Sanction)
    due = db.session.scalars(
        select(Sanction).where(
            Sanction.deadline_at.is_not(None), Sanction.deadline_at <= now,
            Sanction.on_missed.is_not(None), Sanction.status.in_(CONVERTIBLE),
            Sanction.suspended.is_(False),
            ~exists().where(child.parent_id == Sanction.id))
        .order_by(Sanction.id).with_for_update()).all()
    for act in due:
        if act.notice is not None and act.notice.complied_at is not None:
            continue
        made = convert_missed(act, now)
        if made is not None:
            report.converted.append(act.id)


def _accrue(now: datetime, report: TickReport) -> None:
    fines = db.session.scalars(
        select(Fine).join(Sanction, Sanction.id == Fine.sanction_id)
        .where(Fine.per == "day", Fine.daily_start_at.is_not(None),
               Sanction.status.in_(LIVE))
        .order_by(Fine.id).with_for_update(of=Fine)).all()
    for fine in fines:
        before = (fine.accrued_days, fine.accrued_brl)
        if not accrue(fine, now):
            continue
        act = fine.sanction
        record("fine_accrued", act, actor=None,
               after={"fine_id": fine.id, "accrued_days": fine.accrued_days,
                      "accrued_brl": fine.accrued_brl, "before_days": before[0],
                      "before_brl": before[1]})
        event("fine_accrued", town_id=act.municipality_id, now=now, act=act,
              message=f"Multa diária: {fine.accrued_days} dia(s).",
              data={"accrued_days": fine.accrued_days, "accrued_brl": fine.accrued_brl},
              dedupe_key=f"accrued:{fine.id}:{fine.accrued_days}:{fine.daily_start_at}")
        report.accrued.append(fine.id)


def _remind(now: datetime, report: TickReport) -> None:
    soon = db.session.scalars(
        select(Sanction).where(Sanction.deadline_at.is_not(None), Sanction.deadline_at > now,
                               Sanction.deadline_at <= now + REMIND_BEFORE,
                               Sanction.status.in_(ENFORCEABLE),
                               Sanction.suspended.is_(False))
        .order_by(Sanction.id)).all()
    for act in soon:
        key = f"deadline_soon:{act.id}:{utc(act.deadline_at).isoformat()}"
        made = event("deadline_soon", town_id=act.municipality_id, now=now, act=act,
                     message="Prazo da notificação vence em até 2 dias.",
                     data={"deadline_at": utc(act.deadline_at)}, dedupe_key=key)
        if made is not None:
            notify("deadline_soon", act=act, deadline_at=utc(act.deadline_at))
            report.reminders.append(act.id)


def _close_windows(now: datetime, report: TickReport) -> None:
    # an appeal window ends with the last day on the town's own clock (municipalities.timezone)
    today = {t.id: town_day(t, now) for t in db.session.scalars(select(Municipality))}
    acts = db.session.scalars(
        select(Sanction).where(Sanction.appeal_until.is_not(None),
                               Sanction.appeal_until < max(today.values(), default=date.min),
                               Sanction.appeal_closed_at.is_(None),
                               Sanction.status.in_(LIVE + (SanctionStatus.CLOSED,)))
        .order_by(Sanction.id).with_for_update()).all()
    for act in acts:
        if act.appeal_until >= today[act.municipality_id]:
            continue   # still the last day (or before) in the act's town
        lifecycle.move(act, "close_window", now=now, values={"appeal_closed_at": now}).done(
            f"Prazo de recurso encerrado em {act.appeal_until:%d/%m/%Y}.",
            after={"appeal_closed_at": now})
        report.windows_closed.append(act.id)
        if act.appeal_suspensive and act.status != SanctionStatus.APPEALED and \
                apply_effect(act, now):
            report.effects.append(act.id)


def _close_finished(now: datetime, report: TickReport) -> None:
    """Acts whose appeal window is over and that have nothing left to follow are closed."""
    pending = exists().where(Appeal.sanction_id == Sanction.id,
                             Appeal.status == AppealStatus.PENDING)
    acts = db.session.scalars(
        select(Sanction).where(Sanction.appeal_closed_at.is_not(None),
                               Sanction.status.in_(CLOSABLE), ~pending)
        .order_by(Sanction.id).with_for_update()).all()
    for act in acts:
        if act.deadline_at is not None and act.status != SanctionStatus.COMPLIED:
            continue   # a notice still waiting to be complied with
        if act.fine is not None and act.fine.per == "day" and act.fine.stopped_at is None:
            continue   # a daily fine still running
        if act.effect_applied_at is not None and act.suspension_end is not None \
                and act.effect_lifted_at is None:
            continue   # a suspension still running
        lifecycle.move(act, "close", now=now, values={"closed_at": now}).done(
            "Ato encerrado: prazo de recurso terminado, nada pendente.")
        report.closed.append(act.id)


# --- what the law applies by itself -------------------------------------------------------------
def _automatic(town: Municipality, now: datetime, report: TickReport) -> None:
    today = town_day(town, now)   # the law's day is the town's (municipalities.timezone)
    for pack in rules.packs_for_town(town.slug):
        if not pack.span.covers(today):
            continue
        offences = [o for o in pack.offences if o.span.covers(today)
                    and any(m.automatic for m in o.measures)]
        if not offences:
            continue
        r = rules.rules_on(pack, today)
        found = _registry_violations(town, pack, r, {f for o in offences for f in o.findings})
        for violation, row, vehicle in found:
            for o in offences:
                if violation.rule_id in o.findings:
                    for m in o.measures:
                        if m.automatic:
                            act = _apply_automatic(town, pack, o, m, violation, row, vehicle, now)
                            if act is not None:
                                report.automatic.append(act.id)


def _registry_violations(town: Municipality, pack, r, wanted: set[str]):
    """(violation, driver or vehicle row, vehicle) for the engine rule ids an offence names.

    Rows are prefiltered in SQL by what could possibly be late; the engine judges."""
    out = []
    today = r.on
    service = Service(pack.service)
    if wanted & {"driver.registration.cancelled", "driver.registration.expired"}:
        grace = r.value("periodicity.registration_grace_days") or 0
        category = Driver.category == DriverCategory.MOTOTAXISTA \
            if service == Service.MOTOTAXI else Driver.category != DriverCategory.MOTOTAXISTA
        drivers = db.session.scalars(select(Driver).where(
            Driver.municipality_id == town.id, category, Driver.status != Status.REVOKED,
            Driver.registration_expiry < today - timedelta(days=grace))
            .order_by(Driver.id).with_for_update()).all()
        for d in drivers:
            for v in rules.driver_rule_violations(r, laws.driver_facts(d)):
                if v.rule_id in wanted:
                    out.append((v, d, None))
    if wanted & {"insurance.lapsed", "insurance.missing"}:
        last_end = select(func.max(InsurancePolicy.valid_until)).where(
            InsurancePolicy.vehicle_id == Vehicle.id).scalar_subquery()
        vehicles = db.session.scalars(select(Vehicle).where(
            Vehicle.municipality_id == town.id, Vehicle.service == service,
            last_end < today).order_by(Vehicle.id)).all()
        for veh in vehicles:
            for v in rules.vehicle_document_violations(r, laws.vehicle_facts(veh)):
                if v.rule_id in wanted:
                    out.append((v, veh, veh))
    return out


def _apply_automatic(town, pack, offence, m, violation, row, vehicle, now: datetime):
    subject = violation.subject or "?"
    key = f"auto:{offence.id}:{subject}:{violation.due_on}"
    if db.session.scalar(select(Sanction.id).where(Sanction.origin_key == key)):
        return None
    driver = row if isinstance(row, Driver) else None
    holder = vehicle.holder if vehicle is not None else (driver.holder if driver else None)
    permit = None
    if m.target == "permit" and holder is not None:
        mine = [p for p in holder.permits if p.service.value == pack.service]
        permit = max(mine, key=lambda p: (p.status == Status.ACTIVE, p.valid_from)) \
            if mine else None
        if permit is None or permit.status == Status.REVOKED:
            return None  # nothing left to revoke
    appeal = m.appeal or pack.appeal
    # Applied by the law itself, so notified (time running) now, without waiting for a
    # delivery as an office decision does (delivery.py): the law leaves no decision to deliver
    # ("ficará automaticamente cancelada", Nortelândia Lei 127/2009 Art. 8 § único; "sob pena
    # de revogação automática da permissão", Tapurah Lei 406/2001 Art. 17), and the effect
    # holds from the day the law says. Its document is issued all the same.
    act = Sanction(
        municipality_id=town.id, origin_key=key, pack_id=pack.id, law=pack.law,
        rule_id=violation.rule_id, offence_id=offence.id, occurrence=1, measure_index=0,
        offender=subject, holder_id=holder.id if holder else None,
        driver_id=driver.id if driver else None,
        vehicle_id=vehicle.id if vehicle is not None else None,
        permit_id=permit.id if permit else None,
        breach_citation=jsonable(violation.citation.as_dict()) if violation.citation else None,
        required_action=violation.message,
        automatic=True, status=SanctionStatus.CONFIRMED,
        notified_at=now, proposed_at=now, decided_at=now, updated_at=now,
        amount_on=town_day(town, now), **measure_fields(m), **appeal_fields(appeal))
    if not insert_once(act):
        return None
    schedule(act)
    step = lifecycle.born(act, "apply", now=now)
    step.record(f"Aplicado por força da lei: {m.label} ({violation.message})",
                after={"rule_id": act.rule_id, "violation": violation.message})
    apply_effect(act, now)
    open_fine(act, now)
    issue_notice(act, now)
    step.tell(notice=act.notice)
    return act


__all__ = ["TickReport", "tick"]
