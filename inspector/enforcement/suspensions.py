"""Suspensions as periods: how long (the rule pack's bounds: no law here sets a length),
from which local day to which, and what happens when the period ends.

- The deciding authority (the one the pack names) sets the length in days when it confirms or
  amends the act, within `sanctions.suspension` of the pack (`default_days` when not given).
- The period runs from the day the act is notified: delivered (delivery.py; an office
  decision starts nothing until then) or signed on the street; where the
  appeal suspends (Nortelândia 030 Art. 16 § 2º) from the day after the last day to appeal;
  when such an appeal is refused, the whole period runs from the day of the refusal (nothing
  of it was served while the appeal held it).
- `enforcement tick` lifts it once its last day is over (00:00 local of the next day): the
  registry row returns to the status it had before, unless something else changed it
  meanwhile (a revocation, a reactivation or a suspension entered by hand in the registry);
  while another suspension act still runs on the same row, the row stays suspended until
  that one's last day.
- The registry row keeps the last day (`suspended_until`) for the passenger page ("SUSPENSO
  até dd/mm/aaaa") and the agents; it is None for a suspension with no known end.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import select

from inspector import audit
from inspector.clock import town_day, utc
from inspector.enforcement import lifecycle
from inspector.enforcement.common import pack_of, town_of
from inspector.enforcement.effects import effect_subject, set_status
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import (
    TERMINAL,
    VOID,
    Driver,
    Licence,
    Municipality,
    Permit,
    Sanction,
    Status,
    StatusChange,
)
from inspector.rules import (
    ActKind,
    SuspensionBounds,
)

_COLUMN = {Driver: "driver_id", Permit: "permit_id", Licence: "licence_id"}
_TARGETS = {Driver: ("registration", "driver"), Permit: ("permit",), Licence: ("licence",)}
_KIND = {Driver: "driver", Permit: "permit", Licence: "licence"}
STATUS_WORDS = {Status.ACTIVE: "ativo", Status.SUSPENDED: "suspenso", Status.REVOKED: "cassado"}


def fmt(day: date | None) -> str:
    """dd/mm/aaaa."""
    return day.strftime("%d/%m/%Y") if day else "—"


# --- length ---------------------------------------------------------------------------------------
def suspension_bounds(act: Sanction) -> SuspensionBounds | None:
    """The pack's bounds for the length of this act's suspension (None: the pack has none)."""
    return pack_of(act).suspension


def bounds_text(b: SuspensionBounds) -> str:
    """"de 1 a 90 dias (padrão 30)"."""
    return f"de {b.min_days} a {b.max_days} dias (padrão {b.default_days})"


def days_for(act: Sanction, raw) -> int | None:
    """The length a decision gives the act: typed, else the one already set, else the pack's
    default; None when the act is not a suspension. ValidationFailed outside the bounds."""
    if act.kind != ActKind.SUSPENSION:
        return None
    b = suspension_bounds(act)
    if b is None:
        raise ValidationFailed({"days": "O pacote de regras desta lei não fixa a duração da "
                                        "suspensão: ela não pode ser decidida aqui."})
    if raw is None or str(raw).strip() == "":
        return act.suspension_days or b.default_days
    text = str(raw).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 5:  # "²": isdigit, not int
        raise ValidationFailed({"days": "Informe a duração da suspensão em dias (número inteiro)."})
    days = int(text)
    if not b.min_days <= days <= b.max_days:
        raise ValidationFailed({"days": f"A suspensão deve durar {bounds_text(b)}: limites do "
                                        f"pacote de regras, pois a lei não fixa a duração."})
    return days


def set_days(act: Sanction, raw) -> None:
    """Record the length a decision gives the act (see `days_for`)."""
    act.suspension_days = days_for(act, raw)


# --- the period -----------------------------------------------------------------------------------
def plan(act: Sanction, start: date) -> None:
    """The period of `suspension_days` local days from `start` (last day inclusive)."""
    days = act.suspension_days or (suspension_bounds(act).default_days if suspension_bounds(act) else None)
    if days is None:
        return
    act.suspension_days = days
    act.suspension_start, act.suspension_end = start, start + timedelta(days=days - 1)


def plan_on_decision(act: Sanction) -> None:
    """When a decided suspension runs: from the day it is notified, or, where the appeal
    suspends it, from the day after the last day to appeal."""
    if act.kind != ActKind.SUSPENSION or act.notified_at is None:
        return
    if act.appeal_suspensive is True and act.appeal_until is not None:
        plan(act, act.appeal_until + timedelta(days=1))
    else:
        plan(act, town_day(town_of(act), act.notified_at))


def replan_after_refused_appeal(act: Sanction, now: datetime, held: bool) -> None:
    """A suspensive appeal held the suspension and was refused: it runs whole from today."""
    if act.kind == ActKind.SUSPENSION and held and act.effect_applied_at is None:
        plan(act, town_day(town_of(act), now))


def ensure_period(act: Sanction, now: datetime) -> None:
    """A suspension applied without a planned period (e.g. by the law itself) starts today."""
    if act.kind == ActKind.SUSPENSION and act.suspension_start is None:
        plan(act, town_day(town_of(act), now))


def period_text(act: Sanction) -> str:
    """"suspenso de dd/mm/aaaa a dd/mm/aaaa (30 dias)", "" when there is no period."""
    if act.kind != ActKind.SUSPENSION or act.suspension_start is None:
        return ""
    return (f"suspenso de {fmt(act.suspension_start)} a {fmt(act.suspension_end)} "
            f"({act.suspension_days} dias)")


def situation_text(act: Sanction) -> str:
    """The period and where it stands, for the holder's page ("" when there is none)."""
    period = period_text(act)
    if not period and act.kind == ActKind.SUSPENSION and act.awaiting_delivery and act.suspension_days:
        return f"{act.suspension_days} dias, a contar da entrega deste documento"
    if not period:
        return ""
    if act.status in TERMINAL:
        return f"{period}: anulada"
    if act.effect_lifted_at is not None:
        return f"{period}; encerrada"
    if act.effect_applied_at is not None:
        return period
    if act.suspended:
        return (f"{act.suspension_days} dias, retida pelo recurso: se ele for negado, contam "
                f"da decisão")
    if act.appeal_suspensive:
        return f"{period}, se não houver recurso no prazo"
    return period


# --- the registry row -----------------------------------------------------------------------------
def acts_on(subject) -> list[Sanction]:
    """Suspension acts whose effect was applied to this registry row, oldest first."""
    column = getattr(Sanction, _COLUMN[type(subject)])
    return list(db.session.scalars(select(Sanction).where(
        column == subject.id, Sanction.target.in_(_TARGETS[type(subject)]),
        Sanction.kind == ActKind.SUSPENSION, Sanction.effect_applied_at.is_not(None))
        .order_by(Sanction.id)))


def _latest_change(subject) -> StatusChange | None:
    return db.session.scalar(select(StatusChange).where(
        StatusChange.subject_type == _KIND[type(subject)], StatusChange.subject_id == subject.id)
        .order_by(StatusChange.id.desc()).limit(1))


def holding(subject) -> tuple[StatusChange | None, list[Sanction]]:
    """The status change that suspended the row, if a suspension act made it (else None: the
    row was suspended by hand, or is not suspended), and the acts that still hold it."""
    latest = _latest_change(subject)
    mine = acts_on(subject)
    starter = next((a for a in mine if latest is not None and a.effect_change_id == latest.id),
                   None)
    if subject.status != Status.SUSPENDED or starter is None:
        return None, []
    since = utc(starter.effect_applied_at)
    return latest, [a for a in mine if a.effect_lifted_at is None and a.status not in VOID
                    and a.suspension_end is not None and utc(a.effect_applied_at) >= since]


def refresh_until(subject, *, actor=None, act: Sanction | None = None) -> None:
    """Set the row's `suspended_until` to the last day of the suspensions holding it."""
    _, running = holding(subject)
    until = max((a.suspension_end for a in running), default=None)
    if subject.status != Status.SUSPENDED:
        until = None
    if until == subject.suspended_until:
        return
    before = {"status": subject.status.value, "suspended_until": subject.suspended_until}
    subject.suspended_until = until
    audit.record("suspension_period_changed", _KIND[type(subject)], subject.id, before=before,
                 after={"status": subject.status.value, "suspended_until": until,
                        "sanction_id": act.id if act is not None else None},
                 actor=actor or "enforcement-tick", municipality_id=subject.municipality_id)


def end_period(act: Sanction, now: datetime, reason: str, *, actor=None) -> tuple[bool, str]:
    """The act's suspension is over (its last day passed, or its appeal was upheld): the row
    returns to the status it had before, unless something else changed it or another
    suspension act still holds it. Returns (restored, what happened in pt-BR)."""
    act.effect_lifted_at = utc(now)
    subject = effect_subject(act)
    if subject is None:
        return False, "sem cadastro a restabelecer"
    if subject.status != Status.SUSPENDED:
        return False, (f"o cadastro já estava “{STATUS_WORDS.get(subject.status, '')}” "
                       f"(alterado depois): nada a restabelecer")
    change, running = holding(subject)
    others = [a for a in running if a.id != act.id]
    if change is None:
        return False, "suspensão lançada à mão no cadastro: mantida"
    if others:
        refresh_until(subject, actor=actor, act=act)
        last = max(others, key=lambda a: a.suspension_end)
        return False, (f"continua suspenso até {fmt(last.suspension_end)} pelo ato nº "
                       f"{last.id}")
    previous = change.from_status or Status.ACTIVE
    set_status(subject, previous, f"{reason} Ato nº {act.id}.", actor, act=act)
    return True, f"cadastro restabelecido ({STATUS_WORDS.get(previous, previous.value)})"


def lift(act: Sanction, now: datetime) -> bool:
    """The tick: the last day of the act's suspension is over. True when the row was restored."""
    step = lifecycle.move(act, "lift_suspension", now=now)
    restored, what = end_period(act, now, f"Fim da suspensão: {period_text(act)}.")
    step.done(f"Fim da suspensão ({period_text(act)}): {what}.",
              data={"restored": restored, "last_day": act.suspension_end},
              after={"restored": restored, "lifted_at": utc(now)}, restored=restored)
    return restored


def lift_due(now: datetime) -> list[int]:
    """The tick: lift every suspension whose last day is over (ids of the acts)."""
    # a suspension's last day ends on its own town's clock (municipalities.timezone)
    today = {t.id: town_day(t, now) for t in db.session.scalars(select(Municipality))}
    due = [a for a in db.session.scalars(select(Sanction).where(
        Sanction.kind == ActKind.SUSPENSION, Sanction.effect_applied_at.is_not(None),
        Sanction.effect_lifted_at.is_(None),
        Sanction.suspension_end < max(today.values(), default=date.min),
        Sanction.status.not_in(VOID))
        .order_by(Sanction.suspension_end, Sanction.id).with_for_update()).all()
        if a.suspension_end < today[a.municipality_id]]
    for act in due:
        lift(act, now)
    return [a.id for a in due]


__all__ = ["suspension_bounds", "bounds_text", "days_for", "end_period", "ensure_period", "lift",
           "lift_due", "period_text", "plan", "plan_on_decision", "refresh_until",
           "replan_after_refused_appeal", "set_days"]
