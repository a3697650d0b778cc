"""Supervisor review: confirm, amend within the law's bounds, reject with a reason; the
mayor's decisions (recorded by an admin) on the acts the law reserves to the mayor.

"Within the law's bounds": another measure of the same pack in force that day (any rung
of the ladder, or an offence the finding may constitute, `suspension_or_revocation`
narrowed to one of the two), and an amount no higher than the pack's `max` (a fixed or
decree amount is not amended). A measure the pack gives to the mayor is forwarded:
"aguarda decisão do prefeito" until an admin records the mayor's act.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from sqlalchemy import func, select

from inspector import audit, laws
from inspector.clock import utc
from inspector.enforcement import delivery, lifecycle, pricing, suspensions
from inspector.enforcement.acts import apply_effect, issue_notice, open_fine, pack_of, schedule
from inspector.enforcement.common import (
    act_state,
    clean_text,
    event,
    jsonable,
    notify,
    pack_measure,
    require_role,
)
from inspector.enforcement.propose import DEADLINE_KINDS, _permit_of, repropose_later
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import (
    Inspection,
    InspectionStatus,
    Municipality,
    Notice,
    Role,
    Sanction,
    SanctionStatus,
)
from inspector.rules import (
    ActKind,
    Amount,
    Appeal,
    decree_label,
    money,
    unit_value,
)

REVIEWERS = (Role.SUPERVISOR, Role.ADMIN)


@dataclass(frozen=True)
class Decision:
    """The act as decided, its document and the access code printed on it (shown once)."""

    act: Sanction
    notice: Notice | None = None
    access_code: str | None = None


@dataclass(frozen=True)
class AmendOption:
    """A measure the supervisor may choose instead of the proposed one."""

    key: str
    kind: str
    target: str
    label: str
    decided_by: str
    citation: dict
    amount: Amount | None
    appeal: Appeal | None

    @property
    def bounds_text(self) -> str:
        """What amount may be set, in pt-BR."""
        a = self.amount
        if a is None:
            return "sem valor"
        if a.decree:
            return "valor do decreto"
        if a.max is not None:
            return f"até {a.max.normalize():f} {a.unit}"
        return f"{a.amount.normalize():f} {a.unit}"


def amend_options(act: Sanction) -> list[AmendOption]:
    """The measures of the act's pack in force on its day that may replace it: any rung
    (the laws grade by gravity), except a measure the law gives only on a repeat
    (`repeat_only`) before its rung's occurrence, e.g. the fine of up to 100 UFM of
    Nortelândia 030 Art. 16 II ("em caso de reincidência") on what is not a reincidência."""
    pack, on = pack_of(act), act.amount_on
    base = act.rule_id.split(":", 1)[0]
    reached = act.occurrence or 1
    sources = [(f"step:{s.id}", tuple(None if m.repeat_only and not _repeat(act, s, reached)
                                      else m for m in s.measures))
               for s in pack.ladder if s.span.covers(on)]
    sources += [(f"offence:{o.id}", o.measures) for o in pack.offences
                if o.span.covers(on) and any(f.split(":", 1)[0] == base for f in o.findings)]
    out, seen = [], set()
    for prefix, measures in sources:
        for i, m in enumerate(measures):
            if m is None or m.automatic:
                continue
            variants = [(f"{prefix}:{i}", m.kind, m.label)]
            if m.kind == ActKind.SUSPENSION_OR_REVOCATION:
                variants = [(f"{prefix}:{i}:suspension", ActKind.SUSPENSION, f"Suspensão — {m.label}"),
                            (f"{prefix}:{i}:revocation", ActKind.REVOCATION, f"Cassação — {m.label}")]
            for key, kind, label in variants:
                if (kind, m.target, label) in seen:
                    continue
                seen.add((kind, m.target, label))
                out.append(AmendOption(key, kind, m.target, label, m.decided_by,
                                       m.citation.as_dict(), m.fine, m.appeal or pack.appeal))
    return out


def _repeat(act: Sanction, step, reached: int) -> bool:
    """Whether the act is the repeat a `repeat_only` measure of this rung needs: its rung's
    occurrence reached, and, for a rung of reincidência, the proposal found one (the act was
    proposed on that rung: Nortelândia 030 Art. 16 II, as the product owner reads it)."""
    if step.reincidence is not None:
        return act.step_id == step.id
    return step.occurrence <= reached


def _amount(raw, bound: Amount | None, *, required: bool) -> Decimal | None:
    """An amount typed by the supervisor, checked against the pack's bounds."""
    if raw in (None, ""):
        if required:
            raise ValidationFailed({"amount": f"Informe o valor da multa (até "
                                              f"{bound.max.normalize():f} {bound.unit})."})
        return None
    if bound is None or bound.decree or bound.max is None:
        fixed = bound.amount if bound is not None else None
        try:
            same = fixed is not None and Decimal(str(raw).replace(",", ".")) == fixed
        except InvalidOperation:
            same = False
        if same:
            return None
        raise ValidationFailed({"amount": "A lei não deixa este valor à escolha: ele não pode "
                                          "ser alterado."})
    try:
        value = Decimal(str(raw).replace(",", ".").strip())
    except InvalidOperation:
        raise ValidationFailed({"amount": "Valor inválido."}) from None
    if not value.is_finite() or value <= 0 or value > bound.max:
        raise ValidationFailed({"amount": f"O valor deve ser maior que zero e no máximo "
                                          f"{bound.max.normalize():f} {bound.unit} (limite da lei)."})
    return value.quantize(Decimal("0.0001"))


def _set_amount(act: Sanction, value: Decimal) -> None:
    town = db.session.get(Municipality, act.municipality_id)
    per_unit, basis = unit_value(laws.town_facts(town), act.amount_unit, act.amount_on)
    act.amount = value
    act.amount_brl = None if per_unit is None else (value * per_unit).quantize(Decimal("0.01"))
    act.amount_basis = basis


def _apply_option(act: Sanction, opt: AmendOption) -> None:
    town = db.session.get(Municipality, act.municipality_id)
    act.kind, act.target, act.label, act.decided_by = opt.kind, opt.target, opt.label, \
        opt.decided_by
    act.citation = jsonable(opt.citation)
    cash = money(opt.amount, laws.town_facts(town), act.amount_on,
                 decree_label(pack_of(act), opt.amount.decree)) if opt.amount else None
    act.amount_unit = cash.unit if cash else None
    act.amount, act.amount_max = (cash.amount, cash.max) if cash else (None, None)
    act.amount_per, act.amount_decree_key = (cash.per, cash.decree_key) if cash else (None, None)
    act.amount_brl, act.amount_basis = (cash.brl, cash.basis) if cash else (None, "")
    a = opt.appeal
    act.appeal_days, act.appeal_to = (a.days, a.to) if a else (None, None)
    act.appeal_suspensive = a.suspensive if a else None
    act.appeal_citation = jsonable(a.citation.as_dict()) if a else None
    if opt.kind not in DEADLINE_KINDS:
        act.deadline_hours = act.deadline_days = act.deadline_text = None
        act.deadline_citation = act.on_missed = None
        act.deadline_granted_by = act.deadline_grant_reason = None  # no deadline, no grant
        act.deadline_at = None
    if act.target == "permit" and act.permit_id is None and act.holder is not None:
        permit = _permit_of(act.holder, act.vehicle.service) if act.vehicle else None
        act.permit_id = permit.id if permit else None
    if act.target == "licence" and act.licence_id is None and act.vehicle is not None:
        lic = act.vehicle.current_licence
        act.licence_id = lic.id if lic else None
    if act.notified_at is not None:
        schedule(act)


def _pending(act: Sanction) -> None:
    """The act still waits for this decision; else 409, saying who decided it and when."""
    if act.status != SanctionStatus.PROPOSED:
        raise lifecycle.conflict(act, None)


def _not_forwarded(act: Sanction) -> None:
    if act.awaiting_mayor:
        raise lifecycle.conflict(act, None, done="encaminhado ao prefeito")


def _not_open_choice(act: Sanction) -> None:
    if act.kind == ActKind.SUSPENSION_OR_REVOCATION:
        raise ValidationFailed({"kind": "Escolha entre suspensão e cassação (use “Alterar”)."})


def confirm(act: Sanction, user, now: datetime, *, amount=None, comment: str = "",
            days=None) -> Decision:
    """Confirm a proposed act (or, if the law reserves it to the mayor, forward it); a
    suspension lasts `days` (the pack's default when not given, within its bounds)."""
    require_role(user, *REVIEWERS, message="Só a supervisão confirma atos.")
    _pending(act)
    _not_forwarded(act)
    _not_open_choice(act)
    comment = clean_text(comment, "comment", required=False, minimum=1, what="o comentário")
    open_amount = act.amount is None and act.amount_max is not None
    value = _amount(amount, Amount(act.amount_unit, act.amount, act.amount_max,
                                   act.amount_decree_key), required=open_amount)
    if value is not None:
        _set_amount(act, value)
    suspensions.set_days(act, days)
    if act.decided_by == "mayor":
        return _forward(act, user, now, comment, amended=False)
    return _decide(act, SanctionStatus.CONFIRMED, user, now, comment=comment)


def amend(act: Sanction, user, now: datetime, *, option: str | None = None, amount=None,
          reason: str, comment: str = "", days=None) -> Decision:
    """Decide the act with another measure, amount or suspension length within the bounds."""
    require_role(user, *REVIEWERS, message="Só a supervisão altera atos.")
    _pending(act)
    _not_forwarded(act)
    reason = clean_text(reason, "reason", what="o motivo da alteração")
    comment = clean_text(comment, "comment", required=False, minimum=1, what="o comentário")
    before = act_state(act)
    _change(act, option, amount, days)
    act.reason = reason
    if act.decided_by == "mayor":
        event("amendment_proposed", town_id=act.municipality_id, now=now, actor=user, act=act,
              message=f"Alteração proposta ao prefeito: {act.label}. Motivo: {reason}",
              data={"before": before})
        return _forward(act, user, now, comment, amended=True)
    return _decide(act, SanctionStatus.AMENDED, user, now, comment=comment, before=before)


def _change(act: Sanction, option: str | None, amount, days=None) -> None:
    if option:
        opt = next((o for o in amend_options(act) if o.key == option), None)
        if opt is None:
            raise ValidationFailed({"option": "Medida fora das previstas pela lei para este caso."})
        _apply_option(act, opt)
    _not_open_choice(act)
    bound = Amount(act.amount_unit, act.amount, act.amount_max, act.amount_decree_key)
    value = _amount(amount, bound, required=act.amount is None and act.amount_max is not None)
    if value is not None:
        _set_amount(act, value)
    elif not option and (days in (None, "") or act.kind != ActKind.SUSPENSION):
        raise ValidationFailed({"option": "Nada foi alterado: escolha outra medida, valor ou "
                                          "duração da suspensão."})
    suspensions.set_days(act, days)


def reject(act: Sanction, user, now: datetime, *, reason: str) -> Decision:
    """Reject a proposed act with a reason the agent will read."""
    require_role(user, *REVIEWERS, message="Só a supervisão rejeita atos.")
    _pending(act)
    _not_forwarded(act)
    reason = clean_text(reason, "reason", what="o motivo da rejeição")
    return _close_rejected(act, user, now, reason)


def _close_rejected(act: Sanction, user, now: datetime, reason: str, ref: str = "") -> Decision:
    step = lifecycle.move(act, "reject", now=now, actor=user,
                          expect={"awaiting_mayor": act.awaiting_mayor},
                          values={"awaiting_mayor": False, "decided_at": utc(now),
                                  "decided_by_user_id": user.id})
    act.reason, act.decision_ref = reason, ref
    step.done(f"Rejeitado: {reason}", data={"reason": reason, "ref": ref or None}, notice=None)
    repropose_later(act, now, actor=user)
    maybe_reviewed(act.inspection, user, now)
    return Decision(act)


def _forward(act: Sanction, user, now: datetime, comment: str, *, amended: bool) -> Decision:
    step = lifecycle.move(act, "forward", now=now, actor=user, expect={"awaiting_mayor": False},
                          values={"awaiting_mayor": True})
    act.comment = comment
    step.done("Encaminhado ao prefeito" + (" com alteração." if amended else "."))
    maybe_reviewed(act.inspection, user, now)
    return Decision(act)


def record_mayor_decision(act: Sanction, user, now: datetime, *, decision: str, ref: str,
                          reason: str = "", option: str | None = None, amount=None,
                          comment: str = "", days=None) -> Decision:
    """An admin records the mayor's decision (confirm | amend | reject) with its reference."""
    require_role(user, Role.ADMIN, message="A decisão do prefeito é registrada por um(a) "
                                           "administrador(a).")
    _pending(act)
    if not act.awaiting_mayor:
        raise ValidationFailed({"status": "A supervisão ainda não encaminhou este ato ao prefeito."})
    ref = clean_text(ref, "ref", minimum=3, maximum=200, what="o ato do prefeito (nº e data)")
    comment = clean_text(comment, "comment", required=False, minimum=1, what="o comentário")
    if decision == "reject":
        return _close_rejected(act, user, now, clean_text(reason, "reason", what="o motivo"), ref)
    if decision == "amend":
        reason = clean_text(reason, "reason", what="o motivo da alteração")
        before = act_state(act)
        _change(act, option, amount, days)
        act.reason = reason
        return _decide(act, SanctionStatus.AMENDED, user, now, comment=comment, ref=ref,
                       before=before)
    if decision != "confirm":
        raise ValidationFailed({"decision": "Decisão desconhecida."})
    _not_open_choice(act)
    value = _amount(amount, Amount(act.amount_unit, act.amount, act.amount_max,
                                   act.amount_decree_key),
                    required=act.amount is None and act.amount_max is not None)
    if value is not None:
        _set_amount(act, value)
    suspensions.set_days(act, days)
    return _decide(act, SanctionStatus.CONFIRMED, user, now, comment=comment, ref=ref)


def _decide(act: Sanction, status: SanctionStatus, user, now: datetime, *, comment: str = "",
            ref: str = "", before: dict | None = None) -> Decision:
    before = before or act_state(act)
    # the one winner: the act is taken from "proposed" before anything of the decision is written
    step = lifecycle.move(act, "confirm" if status == SanctionStatus.CONFIRMED else "amend",
                          now=now, actor=user, before=before,
                          expect={"awaiting_mayor": act.awaiting_mayor},
                          values={"awaiting_mayor": False, "decided_at": utc(now),
                                  "decided_by_user_id": user.id})
    pricing.reprice_for_decision(act, "registrar a decisão do prefeito" if ref else
                                 "alterar o ato" if status == SanctionStatus.AMENDED
                                 else "confirmar")
    act.comment, act.decision_ref = comment, ref
    # Time runs from delivery, not from the decision (Nova Santa Helena Lei 535/2013 Art. 27
    # § único "Após o recebimento"; Nortelândia Lei 030/1998 Art. 16 § 2º "a partir da
    # intimação"): an act with a document waits for `delivery.record_delivery` ("Aguardando
    # entrega"); one without (an oral warning, a request) is notified with the decision.
    waits = delivery.needs_delivery(act)
    if act.notified_at is None and not waits:
        act.notified_at = utc(now)
    schedule(act)
    suspensions.plan_on_decision(act)
    why = f" Motivo: {act.reason}" if status == SanctionStatus.AMENDED and act.reason else ""
    period = suspensions.period_text(act)
    step.record(f"{status.label}: {act.label}." + (f" Ato do prefeito: {ref}." if ref else "")
                + (f" {period[0].upper()}{period[1:]}." if period else "") + why,
                data={"comment": comment or None, "ref": ref or None,
                      "before": before if status == SanctionStatus.AMENDED else None})
    notice, code = issue_notice(act, now, actor=user)
    open_fine(act, now)
    # a suspensive appeal window holds the effect; so does the delivery, unless the law applies
    # it at once (Nova Santa Helena Lei 535/2013 Art. 19 "Será cassado, imediatamente")
    at_once = not waits or getattr(pack_measure(act), "immediate", False)
    if act.appeal_suspensive is not True and at_once:
        apply_effect(act, now, actor=user)
    step.tell(notice=notice)
    repropose_later(act, now, actor=user)
    maybe_reviewed(act.inspection, user, now)
    return Decision(act, notice, code)


def maybe_reviewed(insp: Inspection | None, user, now: datetime) -> bool:
    """Mark the inspection reviewed once no act of it waits for the supervisor."""
    if insp is None or insp.status != InspectionStatus.AWAITING_REVIEW:
        return False
    waiting = db.session.scalar(select(func.count(Sanction.id)).where(
        Sanction.inspection_id == insp.id, Sanction.status == SanctionStatus.PROPOSED,
        Sanction.awaiting_mayor.is_(False)))
    if waiting:
        return False
    _reviewed(insp, user, now)
    return True


def mark_reviewed(insp: Inspection, user, now: datetime) -> None:
    """The supervisor has looked at an inspection (e.g. one without failures)."""
    require_role(user, *REVIEWERS, message="Só a supervisão revisa vistorias.")
    if insp.status == InspectionStatus.INCOMPLETE:
        raise ValidationFailed({"status": "A vistoria ainda espera fotos do celular do agente."})
    if insp.status == InspectionStatus.REVIEWED:
        raise ValidationFailed({"status": "Esta vistoria já foi revisada."})
    if not maybe_reviewed(insp, user, now):
        raise ValidationFailed({"status": "Decida antes os atos propostos desta vistoria."})


def _reviewed(insp: Inspection, user, now: datetime) -> None:
    insp.status = InspectionStatus.REVIEWED
    insp.reviewed_by_id, insp.reviewed_at = user.id, utc(now)
    audit.record("inspection_reviewed", "inspection", insp.uuid, actor=user,
                 municipality_id=insp.municipality_id,
                 before={"status": InspectionStatus.AWAITING_REVIEW.value},
                 after={"status": InspectionStatus.REVIEWED.value})
    event("inspection_reviewed", town_id=insp.municipality_id, now=now, actor=user,
          inspection_id=insp.id, message="Vistoria revisada.")
    notify("inspection_reviewed", inspection=insp)


def comment_inspection(insp: Inspection, user, now: datetime, message: str) -> None:
    """A supervisor's comment on an inspection; the agent's app shows it after its next sync."""
    require_role(user, *REVIEWERS, message="Só a supervisão comenta vistorias.")
    message = clean_text(message, "comment", minimum=2, what="o comentário")
    audit.record("inspection_commented", "inspection", insp.uuid, actor=user,
                 municipality_id=insp.municipality_id, after={"comment": message})
    event("comment", town_id=insp.municipality_id, now=now, actor=user,
          inspection_id=insp.id, message=message)
    notify("inspection_commented", inspection=insp, text=message)


__all__ = ["AmendOption", "Decision", "amend", "amend_options", "comment_inspection",
           "confirm", "mark_reviewed", "maybe_reviewed", "record_mayor_decision", "reject"]
