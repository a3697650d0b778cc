"""Deadlines of an act counted by the legal calendar, and moved when a town closure is entered.

One calendar for every act (`inspector.rules.calendar`): days are counted by the rule of the
act's law (`RulePack.counting`: Lei 9.784/1999 Art. 66 continuous days by default, CPC Arts.
219/224 business days for Nortelândia Lei 030/1998 Art. 16 § 2º) over the town's calendar
(weekends, national and Mato Grosso holidays, the town's own closures). Hours (Tapurah Lei
406/2001 Art. 29 § único, 72 h) run minute to minute and never move.

A deadline keeps the date it was issued with: a later change of the calendar does not
recount it (`schedule` runs when the act is notified), with one exception the product owner
settled: a closure entered before a deadline falls due moves the deadlines it
reaches that are not yet past (`move_for_closure`, audited `sanction_deadline_moved`). A
removed closure moves nothing back. The counting is kept with the date (`appeal_explain`,
`deadline_explain`: the rule, the span, the days skipped and why).
"""
from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import or_, select

from inspector import rules
from inspector.clock import end_of_day, town_day, town_moment, utc
from inspector.enforcement import lifecycle, suspensions
from inspector.enforcement.common import act_state
from inspector.extensions import db
from inspector.laws import calendar_for
from inspector.models import (
    ANY_LIVE,
    COMPLIANCE_OVER,
    Municipality,
    Sanction,
)
from inspector.rules import (
    DEFAULT_COUNTING,
    ActKind,
    Counting,
    TownCalendar,
    deadline_days,
    deadline_hours,
)

# acts whose deadlines may still be running (not voided, not rejected): a street notice is
# notified, its time running, while the supervisor has still to confirm it


def counting_of(act: Sanction) -> Counting:
    """How the act's law counts days (the pack it was proposed under; default Art. 66)."""
    pack = next((p for p in rules.load_all() if p.id == act.pack_id), None)
    return pack.counting if pack is not None else DEFAULT_COUNTING


def _count(act: Sanction, start: date, days: int, calendar: TownCalendar, *, moves: bool = True):
    """`moves=False` for days to repair: they end when they end, closed day or not (only
    deadlines to file or appeal move: product owner, December 2026)."""
    return deadline_days(start, days, counting_of(act).rule, calendar, moves=moves)


def schedule(act: Sanction, calendar: TownCalendar | None = None) -> None:
    """Set the deadline and the last day to appeal from the moment the act was notified,
    by the legal calendar, each with its explanation."""
    if act.notified_at is None:
        return
    notified = utc(act.notified_at)
    town = db.session.get(Municipality, act.municipality_id)  # days are the town's (its zone)
    day = town_day(town, notified)
    cal = calendar if calendar is not None else calendar_for(act.municipality_id)
    if act.deadline_hours is not None:
        act.deadline_at = notified + timedelta(hours=act.deadline_hours)
        act.deadline_explain = deadline_hours(town_moment(town, notified),
                                              act.deadline_hours, cal).explain()
    elif act.deadline_days is not None:
        d = _count(act, day, act.deadline_days, cal, moves=False)
        act.deadline_at = end_of_day(town, d.last_day)
        act.deadline_explain = d.explain()
    if act.appeal_days is not None:
        d = _count(act, day, act.appeal_days, cal)
        act.appeal_until, act.appeal_explain = d.last_day, d.explain()


def move_for_closure(town_id: int, closure_day: date, now: datetime, *, actor=None
                     ) -> list[Sanction]:
    """A closure was entered: the deadlines in days of the town's acts that are not yet past
    and that the closure reaches are counted again with it, and move to the later day the
    count gives (never earlier). Hours do not move. One audit entry and one event per act."""
    town = db.session.get(Municipality, town_id)
    today = town_day(town, now)
    acts = db.session.scalars(
        select(Sanction).where(
            Sanction.municipality_id == town_id, Sanction.notified_at.is_not(None),
            Sanction.status.in_(ANY_LIVE),
            or_(Sanction.appeal_until >= today,
                (Sanction.deadline_days.is_not(None)) & (Sanction.deadline_at > utc(now))))
        .order_by(Sanction.id).with_for_update()).all()
    if not acts:
        return []
    cal = calendar_for(town_id)
    moved = []
    for act in acts:
        start = town_day(town, act.notified_at)
        before = act_state(act)
        changes = []
        if act.appeal_days is not None and act.appeal_until is not None \
                and act.appeal_until >= today and act.appeal_closed_at is None:
            d = _count(act, start, act.appeal_days, cal)
            if d.last_day > act.appeal_until:
                changes.append(f"recurso até {act.appeal_until:%d/%m/%Y} → {d.last_day:%d/%m/%Y}")
                act.appeal_until, act.appeal_explain = d.last_day, d.explain()
        if act.deadline_days is not None and act.deadline_hours is None \
                and act.deadline_at is not None and utc(act.deadline_at) > utc(now) \
                and act.status not in COMPLIANCE_OVER:
            d = _count(act, start, act.deadline_days, cal, moves=False)
            new_at = end_of_day(town, d.last_day)
            if new_at > utc(act.deadline_at):
                old = town_day(town, act.deadline_at)
                changes.append(f"prazo para cumprir até {old:%d/%m/%Y} → {d.last_day:%d/%m/%Y}")
                act.deadline_at, act.deadline_explain = new_at, d.explain()
                if act.notice is not None:
                    act.notice.deadline_at = new_at
        if not changes:
            continue
        if act.kind == ActKind.SUSPENSION and act.effect_applied_at is None \
                and act.appeal_suspensive is True and act.suspension_start is not None:
            suspensions.plan_on_decision(act)   # it starts the day after the (moved) window
        lifecycle.move(act, "move_deadline", now=now, actor=actor, before=before).done(
            f"Prazo prorrogado por dia sem expediente registrado depois da "
            f"notificação ({closure_day:%d/%m/%Y}): " + "; ".join(changes) + ".",
            data={"closure_day": closure_day.isoformat()},
            after={"closure_day": closure_day, "appeal_explain": act.appeal_explain,
                   "deadline_explain": act.deadline_explain},
            changes=tuple(changes), closure_day=closure_day, now=now)
        moved.append(act)
    return moved


__all__ = ["counting_of", "move_for_closure", "schedule"]
