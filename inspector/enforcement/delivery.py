"""Delivery of a decided act: time runs from the moment the offender receives it.

The laws count from delivery, not from the decision:
- Nova Santa Helena Lei 535/2013 Art. 27 § único and Art. 28 § único: "Após o recebimento,
  pelo infrator e pelo permissionário, da notificação ... terão prazo de 10 (dez) dias".
- Nortelândia Lei 030/1998 Art. 16 § 2º: appeal "no prazo de 10 (dez) dias, contados a partir
  da intimação".
- Tapurah Lei 406/2001: the notice is handed over and signed on the street ("com o respectivo
  ciente", Art. 27 I), so `propose` sets `notified_at` from the inspection for the acts the
  street signer receives; Art. 30 (8 days to appeal) and Art. 29 § único (72 hours to comply)
  do not say from when: a period cannot run against someone who has not received the act
  (Nortelândia 030 Art. 16 § 2º refers to the Código de Processo Civil, whose periods run from
  the intimação), so an office decision waits for delivery there too.
- Sapezal Lei 060/1998 and Nortelândia Lei 127/2009 fix no period; the same rule is applied.

So a decision made in the office issues the act's document but starts nothing: no deadline,
no appeal window, no daily fine, no suspension, no effect on the registry ("Aguardando
entrega"). A supervisor (or an admin) records the delivery: the local day (not in the future,
not before the decision), the means and a reference; an optional time of day. The moment
recorded is `notified_at`, the moment time starts:
- with a time: that exact moment (a hand delivery whose hour is known);
- without one: the start of that local day (appeal windows, deadlines in days and suspensions
  count whole local days, so only the day matters), or, when the decision was later that same
  day, the decision itself; for a deadline in hours (Tapurah's 72 h) the hour matters, so
  without a time it counts from the end of that day (or from the recording, when that is
  earlier): the offender never loses hours to a time nobody wrote down.
Then everything the decision used to start is started from there (`schedule`, the suspension's
period, the registry effect unless a suspensive appeal window holds it, a daily fine's start).

Acts without a document (an oral warning, requests to other authorities, record entries) are
notified with the decision, as before: there is nothing to deliver. Acts the law applies by
itself are handled in tick.py (see the comment there).
"""
from __future__ import annotations

from datetime import date, datetime, time

from inspector.clock import at_time, aware, end_of_day, town_day, town_moment, utc
from inspector.enforcement import lifecycle, suspensions
from inspector.enforcement.acts import DOCUMENTS, accrue, apply_effect, schedule
from inspector.enforcement.common import (
    clean_text,
    require_role,
    town_of,
)
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import DELIVERY_MEANS, Role, Sanction
from inspector.rules import fmt_date

# The means a supervisor may record ("street" is the phone's signature, set by the sync).
OFFICE_MEANS = {k: v for k, v in DELIVERY_MEANS.items() if k != "street"}


def needs_delivery(act: Sanction) -> bool:
    """Whether a decision of this act waits for its delivery before time runs: it carries a
    document and was not already notified on the street."""
    return act.notified_at is None and act.kind in DOCUMENTS


def _moment(act: Sanction, day: date, at: time | None, now: datetime) -> datetime:
    if at is not None:
        return at_time(town_of(act), day, at)
    decided = utc(act.decided_at)
    if act.deadline_hours is not None:
        return min(end_of_day(town_of(act), day), utc(now))
    return max(at_time(town_of(act), day), decided)


def _parse(act: Sanction, day, at, via: str, ref: str, now: datetime):
    errors: dict[str, str] = {}
    town = town_of(act)
    if not act.awaiting_delivery:
        if act.delivery_recorded_at is not None:   # someone recorded it first: 409, naming who
            raise lifecycle.conflict(act, None, done="entregue")
        errors["status"] = ("Este ato não aguarda entrega: " + (
            f"já foi entregue em {fmt_date(town_day(town, act.notified_at))}."
            if act.notified_at is not None else f"está “{act.status_label.lower()}”."))
        raise ValidationFailed(errors)
    decided_day = town_day(town, act.decided_at)
    if isinstance(day, str):
        try:
            day = date.fromisoformat(day.strip())
        except ValueError:
            day = None
    if isinstance(at, str):
        raw = at.strip()
        try:
            at = time.fromisoformat(raw) if raw else None
        except ValueError:
            errors["delivered_time"] = "Hora da entrega inválida: use hh:mm."
            at = None
    if not isinstance(day, date):
        errors["delivered_on"] = "Informe a data da entrega."
    elif day > town_day(town, now):
        errors["delivered_on"] = "A data da entrega não pode ser futura."
    elif day < decided_day:
        errors["delivered_on"] = (f"A data da entrega não pode ser anterior à decisão "
                                  f"({fmt_date(decided_day)}).")
    elif at is not None:
        moment = at_time(town, day, at)
        if moment > utc(now):
            errors["delivered_time"] = "A hora da entrega não pode ser futura."
        elif moment < utc(act.decided_at):
            errors["delivered_time"] = ("A hora da entrega não pode ser anterior à decisão "
                                        f"({town_moment(town, act.decided_at):%H:%M}).")
    if via not in OFFICE_MEANS:
        errors["delivered_via"] = ("Escolha como o documento foi entregue: em mãos, correio "
                                   "com AR, e-mail ou edital.")
    try:
        ref = clean_text(ref, "delivery_ref", minimum=3, maximum=200,
                   what="a referência da entrega (nº do AR, quem recebeu, e-mail ou edital)")
    except ValidationFailed as e:
        errors |= e.errors
    if errors:
        raise ValidationFailed(errors)
    return day, at, ref


def record_delivery(act: Sanction, user, now: datetime, *, day, via: str, ref: str,
                    at=None) -> Sanction:
    """Record that a decided act reached the offender (supervisor or admin): from that moment
    its deadline, appeal window, suspension and registry effect run, as the decision used to
    start them. ValidationFailed naming each field that will not do; nothing written."""
    require_role(user, Role.SUPERVISOR, Role.ADMIN,
                 message="Só a supervisão ou a administração registram a entrega de um ato.")
    day, at, ref = _parse(act, day, at, (via or "").strip(), ref, now)
    # the one winner: the act is taken while it still waits for its delivery
    step = lifecycle.move(act, "deliver", now=now, actor=user, expect={"notified_at": None},
                   values={"notified_at": _moment(act, day, at, now),
                           "delivered_via": via.strip(), "delivery_ref": ref,
                           "delivery_recorded_by_id": user.id, "delivery_recorded_at": utc(now)})
    schedule(act)
    suspensions.plan_on_decision(act)
    if act.notice is not None:
        act.notice.deadline_at = aware(act.deadline_at)
    fine = act.fine
    if fine is not None and fine.per == "day" and fine.daily_start_at is None:
        fine.daily_start_at = utc(act.notified_at)
        accrue(fine, now)
    label = OFFICE_MEANS[act.delivered_via]
    step.record(f"Entrega registrada: {label} em {fmt_date(day)} ({ref}). Os prazos contam "
                f"a partir daí.",
                data={"via": act.delivered_via, "ref": ref, "notified_at": utc(act.notified_at)},
                after={"notified_at": utc(act.notified_at), "delivered_via": act.delivered_via,
                       "delivery_ref": ref})
    if act.appeal_suspensive is not True:  # a suspensive appeal window holds the effect
        apply_effect(act, now, actor=user)
    step.tell()
    db.session.flush()
    return act


__all__ = ["OFFICE_MEANS", "needs_delivery", "record_delivery"]
