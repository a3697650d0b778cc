"""The supervisor grants, or removes, the discretionary deadline of a proposed notice before
deciding it (Tapurah Lei 406/2001 Art. 19, as the product owner reads it: "A critério, poderá
ser concedido prazo máximo de 10 dias" for a defect of the vehicle that does not affect safety;
never automatic, always with a reason). The law's own deadline otherwise: Art. 29 § único,
72 hours. The agent's grant arrives with the inspection (docs/sync.md §2, propose.py).
"""
from __future__ import annotations

from datetime import datetime

from inspector import rules
from inspector.clock import utc
from inspector.enforcement import lifecycle
from inspector.enforcement.acts import pack_of, schedule
from inspector.enforcement.common import (
    NotAllowed,
    act_state,
    clean_text,
    jsonable,
    require_role,
)
from inspector.errors import ValidationFailed
from inspector.models import Role, Sanction, SanctionStatus
from inspector.rules import GRANT_REASON_MAX, GRANT_REASON_MIN, grant_text

REVIEWERS = (Role.SUPERVISOR, Role.ADMIN)


def grant_of(act: Sanction) -> rules.GrantOption | None:
    """The discretionary deadline this act may carry: None when it has no deadline to fix
    (not a notice), or its law has no such grant; else the option, eligible or why not."""
    if act.deadline_hours is None and act.deadline_days is None:
        return None
    pack = pack_of(act)
    if pack is None:
        return None
    step = next((s for s in pack.ladder if s.id == act.step_id and s.span.covers(act.amount_on)),
                None)
    return rules.grant_option(pack, act.rule_id, act.amount_on, step=step) \
        if step is not None else None


def deadline_rule(act: Sanction) -> str | None:
    """The deadline with the article that gives it, as the notice and the holder's page print
    it: "72 horas (Art. 29, parágrafo único)", or "10 dias, concedidos pelo agente (Art. 19):
    <motivo>". None: the act has no deadline to fix."""
    if act.deadline_hours is None and act.deadline_days is None:
        return None
    article = (act.deadline_citation or {}).get("article")
    if act.deadline_granted_by:
        return f"{act.deadline_text}: {act.deadline_grant_reason}"
    n = f"{act.deadline_hours} horas" if act.deadline_hours is not None \
        else f"{act.deadline_days} dias"
    return f"{n} ({article})" if article else n


def offered_grants(act: Sanction) -> rules.GrantOption | None:
    """The option shown on the act's card: only while the act waits for its decision."""
    if act.status != SanctionStatus.PROPOSED or act.awaiting_mayor:
        return None
    return grant_of(act)


def _pending(act: Sanction, user) -> rules.GrantOption:
    require_role(user, *REVIEWERS, message="Só a supervisão concede ou retira o prazo.")
    if act.status != SanctionStatus.PROPOSED:
        raise ValidationFailed({"status": f"Este ato já foi decidido ({act.status_label}): o "
                                          f"prazo não muda mais."})
    if act.awaiting_mayor:
        raise NotAllowed({"status": "Aguarda decisão do prefeito: registre a decisão dele."})
    option = grant_of(act)
    if option is None:
        raise ValidationFailed({"grant_days": f"A {act.law} não prevê prazo concedido a critério "
                                              f"para este ato."})
    return option


def _as_read(act: Sanction) -> dict:
    """The deadline as the supervisor saw it: a grant or its removal taken at the same moment
    by someone else changes it, and this one then loses (409)."""
    return {"awaiting_mayor": False, "deadline_granted_by": act.deadline_granted_by,
            "deadline_days": act.deadline_days, "deadline_hours": act.deadline_hours}


def grant_seen(act: Sanction) -> str:
    """The act's deadline as a page shows it, sent back with the grant's forms: a grant or
    removal taken meanwhile by someone else makes it stale (409, `seen_as`)."""
    return f"{act.deadline_granted_by or ''}:{act.deadline_days or ''}:{act.deadline_hours or ''}"


def _seen_as(act: Sanction, seen: str | None) -> None:
    if seen is not None and seen != grant_seen(act):
        raise lifecycle.conflict(act, None, done="alterado")


def give_grant(act: Sanction, user, now: datetime, *, days, reason: str,
          seen: str | None = None) -> Sanction:
    """The supervisor grants `days` (1 to the law's maximum) with a reason: the act's deadline
    becomes them, counted from its notification as its law counts days."""
    option = _pending(act, user)
    _seen_as(act, seen)
    if not option.eligible:
        raise ValidationFailed({"grant_days": f"Prazo do {option.citation.article} não pode ser "
                                              f"concedido: {option.refusal}."})
    try:
        n = int(str(days).strip())
    except (TypeError, ValueError):
        n = 0
    if not 1 <= n <= option.max_days:
        raise ValidationFailed({"grant_days": f"O prazo concedido vai de 1 a {option.max_days} "
                                              f"dias ({option.citation.article})."})
    reason = clean_text(reason, "grant_reason", minimum=GRANT_REASON_MIN,
                        maximum=GRANT_REASON_MAX, what="o motivo da concessão do prazo")
    step = lifecycle.move(act, "grant", now=now, actor=user, expect=_as_read(act),
                          before=act_state(act) | {"deadline_text": act.deadline_text})
    act.deadline_hours, act.deadline_days = None, n
    act.deadline_text = grant_text(n, "supervisor", option.citation.article)
    act.deadline_citation = jsonable(option.citation.as_dict())
    act.deadline_granted_by, act.deadline_grant_reason = "supervisor", reason
    act.updated_at = utc(now)
    schedule(act)   # a notice signed on the street: its time runs from the "ciente"
    step.done(f"Prazo de {act.deadline_text}. Motivo: {reason}",
              data={"days": n, "reason": reason}, after={"deadline_text": act.deadline_text})
    return act


def remove_grant(act: Sanction, user, now: datetime, *, reason: str,
           seen: str | None = None) -> Sanction:
    """The supervisor takes the granted days back, with a reason: the law's own deadline
    (Tapurah Art. 29 § único: 72 hours) again."""
    _pending(act, user)
    _seen_as(act, seen)
    if act.deadline_granted_by is None:
        raise ValidationFailed({"grant_reason": "Este ato não tem prazo concedido a retirar."})
    reason = clean_text(reason, "grant_reason", minimum=GRANT_REASON_MIN,
                        maximum=GRANT_REASON_MAX, what="o motivo de retirar o prazo")
    step = next(s for s in pack_of(act).ladder if s.id == act.step_id)
    own = next(d for d in step.deadlines if d.grant is None)
    step = lifecycle.move(act, "remove_grant", now=now, actor=user, expect=_as_read(act),
                          before=act_state(act) | {"deadline_text": act.deadline_text})
    act.deadline_hours, act.deadline_days = own.hours, own.days
    act.deadline_text = f"{own.hours} horas" if own.hours is not None else f"{own.days} dias"
    act.deadline_citation = jsonable(own.citation.as_dict())
    act.deadline_granted_by = act.deadline_grant_reason = None
    act.updated_at = utc(now)
    schedule(act)
    step.done(f"Prazo concedido retirado: volta a {act.deadline_text} "
              f"({own.citation.article}). Motivo: {reason}", data={"reason": reason},
              after={"deadline_text": act.deadline_text})
    return act
