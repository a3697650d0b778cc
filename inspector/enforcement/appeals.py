"""Appeals: recorded with the day they were filed, admitted only inside the window the law
gives (counted in local days from the day the act was notified: Tapurah 8 days, so day 8
is in time and day 9 is not), suspending the act where the law says so, decided by the
authority the law names (the mayor's decision is recorded by an admin).

A suspensive appeal holds the act's effect on the registry and pauses a daily fine; when
it is refused the effect is applied and the fine resumes (the paused time is not counted).
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import select

from inspector import audit
from inspector.clock import town_day, utc
from inspector.enforcement import lifecycle
from inspector.enforcement.acts import accrue, apply_effect, revert_effect
from inspector.enforcement.common import (
    clean_text,
    event,
    notify,
    require_role,
    town_of,
)
from inspector.enforcement.propose import repropose_later
from inspector.enforcement.suspensions import period_text, replan_after_refused_appeal
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import (
    APPEALABLE,
    TERMINAL,
    Appeal,
    AppealStatus,
    Role,
    Sanction,
    SanctionStatus,
)
from inspector.rules import fmt_date

FILERS = {"holder": "Titular da permissão", "driver": "Condutor", "company": "Empresa",
          "other": "Procurador(a) / outro"}



def _appeal_state(a: Appeal) -> dict:
    return {"sanction_id": a.sanction_id, "filed_on": a.filed_on, "filed_by": a.filed_by,
            "filed_by_role": a.filed_by_role, "admitted": a.admitted, "to": a.to,
            "suspensive": a.suspensive, "window_until": a.window_until,
            "status": a.status.value, "decision_text": a.decision_text or None,
            "decision_ref": a.decision_ref or None}


def first_day(act: Sanction) -> date | None:
    """The first local day an appeal can be filed on: the day the act was notified (where
    the appeal window starts; on the street, before the decision), else the day decided (an
    offender who appeals before the document's delivery has come to know the act)."""
    moments = [m for m in (act.notified_at, act.decided_at) if m is not None]
    return min(town_day(town_of(act), m) for m in moments) if moments else None


def _fines(act: Sanction) -> list:
    """The fine of the act and those of the daily fines it turned into."""
    out = [act.fine] if act.fine is not None else []
    children = db.session.scalars(select(Sanction).where(Sanction.parent_id == act.id)).all()
    return out + [c.fine for c in children if c.fine is not None]


def can_file(act: Sanction) -> bool:
    """Whether an appeal may be recorded against the act now (what `file_appeal` accepts on
    time): decided and notified, no appeal pending, none decided already."""
    return act.status in APPEALABLE and not any(
        a.status in (AppealStatus.ACCEPTED, AppealStatus.REFUSED) for a in act.appeals)


def file_appeal(act: Sanction, *, filed_on: date, filed_by: str, filed_by_role: str,
                text_: str, user, now: datetime) -> Appeal:
    """Record an appeal. Filed after the window it is kept as not admitted (act unchanged)."""
    require_role(user, Role.SUPERVISOR, Role.ADMIN, message="Recursos são protocolados pela "
                                                           "supervisão ou administração.")
    errors = {}
    filed_by = clean_text(filed_by, "filed_by", minimum=3, maximum=200, what="quem recorre")
    body = clean_text(text_, "text", minimum=10, what="o texto do recurso")
    if filed_by_role not in FILERS:
        errors["filed_by_role"] = "Diga se recorre o titular, o condutor, a empresa ou outro."
    if not isinstance(filed_on, date):
        errors["filed_on"] = "Data do protocolo inválida."
    elif filed_on > town_day(town_of(act), now):
        errors["filed_on"] = "A data do protocolo não pode ser futura."
    elif (first := first_day(act)) is not None and filed_on < first:
        told = act.notified_at is not None and town_day(town_of(act), act.notified_at) == first
        errors["filed_on"] = (f"A data do protocolo não pode ser anterior a {fmt_date(first)}, "
                              f"dia em que o ato foi {'notificado' if told else 'decidido'}: "
                              f"não se recorre de um ato antes de conhecê-lo.")
    if act.status not in APPEALABLE and act.status != SanctionStatus.APPEALED:
        errors["status"] = (f"Não cabe recurso de um ato “{act.status_label.lower()}”: só de "
                            f"atos decididos e notificados.")
    if errors:
        raise ValidationFailed(errors)
    window = act.appeal_until
    appeal = Appeal(municipality_id=act.municipality_id, sanction_id=act.id, filed_on=filed_on,
                    recorded_at=utc(now), filed_by=filed_by, filed_by_role=filed_by_role,
                    text=body, recorded_by_id=user.id, window_until=window,
                    suspensive=act.appeal_suspensive, to=act.appeal_to or "supervisor",
                    status=AppealStatus.PENDING)
    if window is not None and filed_on > window:
        cite = (act.appeal_citation or {}).get("article", "")
        appeal.admitted, appeal.status = False, AppealStatus.NOT_ADMITTED
        appeal.decided_at = utc(now)
        appeal.decision_text = (f"Recurso apresentado em {fmt_date(filed_on)}, após o prazo de "
                                f"{act.appeal_days} dias ({act.law}, {cite}), que terminou em "
                                f"{fmt_date(window)}.")
        db.session.add(appeal)
        db.session.flush()
        audit.record("appeal_not_admitted", "appeal", appeal.id, actor=user,
                     municipality_id=act.municipality_id, after=_appeal_state(appeal))
        event("appeal_not_admitted", town_id=act.municipality_id, now=now, actor=user, act=act,
              message=appeal.decision_text, data={"appeal_id": appeal.id})
        notify("appeal_decided", appeal=appeal, act=act)
        return appeal
    if act.status == SanctionStatus.APPEALED:
        raise lifecycle.Conflict({"status": "Já há um recurso deste ato aguardando decisão."})
    if act.appeals and any(a.status in (AppealStatus.ACCEPTED, AppealStatus.REFUSED)
                           for a in act.appeals):
        raise ValidationFailed({"status": "O recurso deste ato já foi decidido."})
    # the one winner: of two filings at once, one takes the act to "em recurso"
    step = lifecycle.move(act, "appeal", now=now, actor=user,
                          values={"suspended": True} if act.appeal_suspensive else None)
    db.session.add(appeal)
    db.session.flush()
    if act.appeal_suspensive:
        for fine in _fines(act):
            if fine.per == "day" and fine.stopped_at is None:
                accrue(fine, now)
                fine.stopped_at = utc(now)   # paused while the appeal is pending
    audit.record("appeal_filed", "appeal", appeal.id, actor=user,
                 municipality_id=act.municipality_id, after=_appeal_state(appeal))
    step.done(f"Recurso protocolado em {fmt_date(filed_on)} por {filed_by}"
              + (" (efeito suspensivo)." if act.appeal_suspensive else "."),
              data={"appeal_id": appeal.id, "suspensive": act.appeal_suspensive}, appeal=appeal)
    return appeal


def decide_appeal(appeal: Appeal, user, now: datetime, *, accepted: bool, text_: str,
                  ref: str = "") -> Appeal:
    """Uphold (accepted) or dismiss an admitted appeal, by the authority the law names."""
    if appeal.to == "mayor":
        require_role(user, Role.ADMIN, message="Este recurso é decidido pelo prefeito; a "
                                               "decisão é registrada por um(a) administrador(a).")
        ref = clean_text(ref, "ref", minimum=3, maximum=200, what="o ato do prefeito (nº e data)")
    else:
        require_role(user, Role.SUPERVISOR, Role.ADMIN, message="Só a supervisão decide "
                                                                "este recurso.")
        ref = clean_text(ref, "ref", required=False, minimum=1, maximum=200, what="a referência")
    if appeal.status != AppealStatus.PENDING:
        raise lifecycle.conflict(appeal, None, noun="Este recurso", entity="appeal")
    body = clean_text(text_, "decision_text", minimum=5, what="a fundamentação da decisão")
    act = appeal.sanction
    before = _appeal_state(appeal)
    was_suspended = act.suspended
    # the one winner: the appeal is taken from "pending" before anything else is written
    lifecycle.claim(appeal, expect={"status": AppealStatus.PENDING},
                    values={"status": AppealStatus.ACCEPTED if accepted else AppealStatus.REFUSED,
                            "decided_by_id": user.id, "decided_at": utc(now)},
                    noun="Este recurso", entity="appeal")
    step = lifecycle.move(act, "appeal_accept" if accepted else "appeal_refuse", now=now,
                          actor=user, values={"suspended": False})
    appeal.decision_text, appeal.decision_ref = body, ref
    if accepted:
        _void(act, now, user, f"Recurso provido: {body}")
        children = db.session.scalars(select(Sanction).where(
            Sanction.parent_id == act.id, Sanction.status.not_in(TERMINAL))).all()
        for child in children:
            voided = lifecycle.move(child, "void_with_parent", now=now, actor=user,
                                    values={"suspended": False})
            _void(child, now, user, "Recurso provido contra o ato de origem.")
            voided.done()
    else:
        for fine in _fines(act):
            if was_suspended and fine.per == "day" and fine.stopped_at is not None:
                fine.daily_start_at = utc(fine.daily_start_at) + (utc(now) - utc(fine.stopped_at))
                fine.stopped_at = None
                accrue(fine, now)
        replan_after_refused_appeal(act, now, was_suspended)  # served whole from today
        apply_effect(act, now, actor=user)
    audit.record("appeal_decided", "appeal", appeal.id, actor=user,
                 municipality_id=act.municipality_id, before=before, after=_appeal_state(appeal))
    step.done(("Recurso provido: " if accepted else "Recurso negado: ") + body
              + (f" Período: {period_text(act)}." if period_text(act) and not accepted else ""),
              data={"appeal_id": appeal.id, "accepted": accepted, "ref": ref or None},
              appeal=appeal)
    if accepted:
        repropose_later(act, now, actor=user)  # no longer a prior offence
    return appeal


def _void(act: Sanction, now: datetime, user, reason: str) -> None:
    """The act has no effect any more: fines count nothing, the registry is restored."""
    if act.fine is not None:
        if act.fine.per == "day":
            act.fine.stopped_at = act.fine.daily_start_at
            accrue(act.fine, now)
    revert_effect(act, now, reason, actor=user)


__all__ = ["FILERS", "decide_appeal", "file_appeal", "first_day"]
