"""Sanctions a supervisor chooses on the review of an inspection: the offences of the law in
force whose finding no checklist item records, so the street never proposes them.

- a finding the registry shows on the inspection's day (Tapurah Art. 27, IV: the request to
  seize an irregular vehicle, when the engine finds its engine size, trail or age unlawful);
- a fact only the supervisor can establish, on an inspection with a failed item (an
  infraction): the employer that did not act against its employee (Sapezal Art. 20 § ú,
  Nova Santa Helena Art. 25 § ú: the driver is not the holder), an infraction the authority
  judges grave (Nova Santa Helena Art. 25, III), an inquiry with full defence concluded
  (Art. 25, V and Art. 29).

Offences with an automatic measure are the tick's; offences of checklist items are proposed
from the items. The chosen act is created exactly as a proposal (`propose._acts`) and then
follows the same confirm / amend / reject path, the mayor's included (review.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from inspector import laws, rules
from inspector.enforcement.common import clean_text, event, require_role
from inspector.enforcement.propose import NARROWED, SUBJECT_OF_TARGET, _acts, history, offenders
from inspector.enforcement.review import REVIEWERS, reject
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import (
    Inspection,
    InspectionStatus,
    ItemResult,
    Municipality,
    Sanction,
    SanctionStatus,
)
from inspector.rules import (
    ActKind,
    NoSanction,
    RulesError,
)

# Findings the supervisor records (the street cannot): they need a failed item.
SUPERVISOR_FINDINGS = ("holder.employer_inaction", "infraction.grave", "inquiry.concluded")
WHY = {"holder.employer_inaction": "o condutor infrator não é o titular (empregado)",
       "infraction.grave": "infração constatada nesta vistoria, de gravidade a avaliar",
       "inquiry.concluded": "exige inquérito concluído, com ampla defesa"}


@dataclass(frozen=True)
class Choice:
    """A sanction the law allows for this inspection that the supervisor may propose."""

    key: str                 # "<offence id>" or "<offence id>:suspension|revocation"
    offence_id: str
    rule_id: str             # the finding that holds (vehicle.age, holder.employer_inaction...)
    label: str
    measures: tuple[str, ...]
    citations: tuple[dict, ...]
    decided_by: str
    why: str                 # what makes it possible here, pt-BR
    breach: dict | None      # the rule broken, when the engine tells it
    narrow: str | None = None
    step_id: str | None = None   # a rung the law grades by gravity (Nortelândia 127 Art. 26)


def _failed(insp: Inspection) -> list:
    return [i for i in insp.items if i.result == ItemResult.FAIL]


def _breach_of(failed: list) -> dict | None:
    """The articles the failed items broke: an act the supervisor chooses on the inspection is
    for all of them (it names no item), so its breach citation is the first one's with every
    other distinct article under "also" (readers of one citation still find the first)."""
    cites: list[dict] = []
    for item in failed:
        c = item.citation
        if c and all((c.get("law_slug"), c.get("anchor")) != (o.get("law_slug"), o.get("anchor"))
                     for o in cites):
            cites.append(c)
    if not cites:
        return None
    return cites[0] | ({"also": cites[1:]} if len(cites) > 1 else {})


def _registry_findings(insp: Inspection) -> dict[str, tuple[str, dict]]:
    """Rule id -> (message, citation) of what the registry shows wrong on the inspection day."""
    out = {}
    standings = [laws.vehicle_standing(insp.vehicle, insp.rules_day)]
    off = offenders(insp)
    if off.driver is not None:
        standings.append(laws.driver_standing(off.driver, insp.rules_day))
    for st in standings:
        for v in st.reasons:
            out.setdefault(v.rule_id, (v.message, v.citation.as_dict() if v.citation else None))
    return out


def choices(insp: Inspection) -> list[Choice]:
    """What the supervisor may add to this inspection, with the reason each one is open."""
    if insp.status == InspectionStatus.INCOMPLETE:
        return []
    town = db.session.get(Municipality, insp.municipality_id)
    try:
        pack = rules.find_pack(town.slug, insp.service.value, insp.rules_day)
    except RulesError:
        return []
    checklist = {i.id for i in pack.checklist}
    failed = _failed(insp)
    off = offenders(insp)
    registry = None
    out: list[Choice] = []
    for o in pack.offences:
        if not o.span.covers(insp.rules_day) or any(m.automatic for m in o.measures):
            continue
        found = None
        for f in o.findings:
            if f.split(":", 1)[0] in checklist:
                continue
            if f in SUPERVISOR_FINDINGS:
                if not failed:
                    continue
                if f == "holder.employer_inaction" and not _employee(off):
                    continue
                found = (f, WHY[f], _breach_of(failed))
                break
            if registry is None:
                registry = _registry_findings(insp)
            if f in registry:
                found = (f, registry[f][0], registry[f][1])
                break
        if found is None:
            continue
        rule_id, why, breach = found
        ms = o.measures
        base = Choice(o.id, o.id, rule_id, o.label, tuple(m.label for m in ms),
                      tuple(m.citation.as_dict() for m in ms),
                      max((m.decided_by for m in ms), key=("agent", "supervisor", "mayor").index),
                      why, breach)
        if any(m.kind == ActKind.SUSPENSION_OR_REVOCATION for m in ms):
            out += [Choice(f"{o.id}:{k}", o.id, rule_id, f"{NARROWED[k]} — {o.label}",
                           base.measures, base.citations, base.decided_by, why, breach, k)
                    for k in NARROWED]
        else:
            out.append(base)
    if failed:
        out += _gravity_choices(pack, insp.rules_day, failed)
    return out


GRAVITY_WHY = ("a lei gradua a penalidade “conforme a gravidade da falta”: escolha esta medida "
               "em lugar da notificação e escreva no motivo por que a falta é grave")


def _gravity_choices(pack, day, failed: list) -> list[Choice]:
    """The rungs the law grades by gravity, open on any inspection with a failed item (the
    supervisor judges the gravity and writes it; Nortelândia Lei 127/2009 Art. 26)."""
    out = []
    for s in pack.ladder:
        if not s.gravity or not s.span.covers(day):
            continue
        ms = s.measures
        out.append(Choice(f"gravity:{s.id}", "", "infraction.grave", ms[0].label,
                          tuple(m.label for m in ms), tuple(m.citation.as_dict() for m in ms),
                          max((m.decided_by for m in ms),
                              key=("agent", "supervisor", "mayor").index),
                          GRAVITY_WHY, _breach_of(failed), step_id=s.id))
    return out


def _employee(off) -> bool:
    """The driver identified is someone other than the holder (an employee of the holder)."""
    return off.driver is not None and off.holder is not None \
        and off.driver.cpf != off.holder.tax_id


def _subject(off, rule_id: str, target: str) -> str:
    if rule_id == "holder.employer_inaction":
        return off.subject("holder")
    return off.subject(SUBJECT_OF_TARGET.get(target, "vehicle"))


def choose(insp: Inspection, user, now: datetime, *, key: str, reason: str) -> list[Sanction]:
    """Propose a sanction the law allows for this inspection (see `choices`), with the
    supervisor's reason; it then waits for confirmation like any proposal."""
    require_role(user, *REVIEWERS, message="Só a supervisão propõe outras sanções.")
    if insp.status == InspectionStatus.INCOMPLETE:
        raise ValidationFailed({"status": "A vistoria ainda espera fotos do celular do agente."})
    choice = next((c for c in choices(insp) if c.key == (key or "").strip()), None)
    if choice is None:
        raise ValidationFailed({"choice": "Sanção não prevista pela lei para esta vistoria."})
    reason = clean_text(reason, "reason", what="o motivo (os fatos que a justificam)")
    town = db.session.get(Municipality, insp.municipality_id)
    pack = rules.find_pack(town.slug, insp.service.value, insp.rules_day)
    off = offenders(insp)
    if choice.step_id is not None:
        return _choose_gravity(insp, user, now, choice, reason, town, pack, off)
    offence = next(o for o in pack.offences if o.id == choice.offence_id)
    subject = _subject(off, choice.rule_id, offence.measures[0].target)
    prior = history(town.id, subject, exclude_inspection=insp.id)
    try:
        p = laws.propose_sanction(town, insp.service.value, choice.rule_id, prior,
                                        insp.rules_day)
    except (NoSanction, RulesError) as e:
        raise ValidationFailed({"choice": f"{e}."}) from None
    if p.offence_id != choice.offence_id:   # another offence of the pack names the finding
        raise ValidationFailed({"choice": "Sanção não prevista pela lei para esta vistoria."})
    key_base = f"chosen:{insp.id}:{choice.offence_id}"
    open_ = db.session.scalar(select(func.count(Sanction.id)).where(
        Sanction.inspection_id == insp.id, Sanction.offence_id == choice.offence_id,
        Sanction.inspection_item_id.is_(None), Sanction.status != SanctionStatus.REJECTED))
    if open_:
        raise ValidationFailed({"choice": "Esta sanção já foi proposta nesta vistoria."})
    version = db.session.scalar(select(func.count(Sanction.id)).where(
        Sanction.origin_key.like(f"{key_base}:%")))
    acts = _acts(insp, None, p, pack, off, subject, now, version, key_base=key_base,
                 breach=choice.breach, action="", reason=f"Proposta da supervisão: {reason}",
                 narrow=choice.narrow, actor=user)
    event("sanction_chosen", town_id=insp.municipality_id, now=now, actor=user,
          inspection_id=insp.id, message=f"Supervisão propôs: {choice.label}. Motivo: {reason}",
          data={"offence_id": choice.offence_id, "rule_id": choice.rule_id,
                "acts": [a.id for a in acts]})
    return acts


def _choose_gravity(insp: Inspection, user, now: datetime, choice: Choice, reason: str, town,
                    pack, off) -> list[Sanction]:
    """The gravity rung proposed instead of what the count proposed: the pending proposals of
    the count's rungs on this inspection are rejected, saying which measure replaced them."""
    step = next(s for s in pack.ladder if s.id == choice.step_id)
    subject = off.subject(SUBJECT_OF_TARGET.get(step.measures[0].target, "vehicle"))
    key_base = f"chosen:{insp.id}:{step.id}"
    open_ = db.session.scalar(select(func.count(Sanction.id)).where(
        Sanction.inspection_id == insp.id, Sanction.step_id == step.id,
        Sanction.inspection_item_id.is_(None), Sanction.status != SanctionStatus.REJECTED))
    if open_:
        raise ValidationFailed({"choice": "Esta sanção já foi proposta nesta vistoria."})
    prior = history(town.id, subject, exclude_inspection=insp.id)
    try:
        p = laws.propose_step(town, insp.service.value, step.id, choice.rule_id, prior,
                                    insp.rules_day)
    except (NoSanction, RulesError) as e:
        raise ValidationFailed({"choice": f"{e}."}) from None
    version = db.session.scalar(select(func.count(Sanction.id)).where(
        Sanction.origin_key.like(f"{key_base}:%")))
    acts = _acts(insp, None, p, pack, off, subject, now, version, key_base=key_base,
                 breach=choice.breach, action="",
                 reason=f"Proposta da supervisão pela gravidade da falta: {reason}", actor=user)
    counted = {s.id for s in pack.ladder if not s.gravity}
    replaced = db.session.scalars(select(Sanction).where(
        Sanction.inspection_id == insp.id, Sanction.status == SanctionStatus.PROPOSED,
        Sanction.awaiting_mayor.is_(False), Sanction.step_id.in_(counted))
        .order_by(Sanction.id)).all()
    for old in replaced:
        reject(old, user, now, reason=f"Substituída pela medida escolhida pela gravidade da "
                                      f"falta: {choice.label}.")
    event("sanction_chosen", town_id=insp.municipality_id, now=now, actor=user,
          inspection_id=insp.id, message=f"Supervisão propôs, pela gravidade da falta: "
                                         f"{choice.label}. Motivo: {reason}",
          data={"step_id": step.id, "rule_id": choice.rule_id, "acts": [a.id for a in acts],
                "replaced": [a.id for a in replaced]})
    return acts


__all__ = ["Choice", "choices", "choose"]
