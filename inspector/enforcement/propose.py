"""Proposals: when an inspection is complete, the acts the law gives each failed item, and
the notices a later inspection finds complied with.

The offender whose history climbs the ladder is the one the law's first rung is about
(Tapurah and Nova Santa Helena: the driver; Nortelândia 030: the company; Nortelândia 127:
the licence, i.e. the vehicle). History = earlier occasions (inspections) with an act in
effect against that offender; several failed items of one inspection are one occasion.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.orm import joinedload

from inspector import laws, rules
from inspector.clock import aware, town_day, utc
from inspector.enforcement import lifecycle
from inspector.enforcement.acts import accrue, convert_missed, pack_of, schedule
from inspector.enforcement.common import (
    appeal_fields,
    event,
    jsonable,
    money_fields,
    town_of,
)
from inspector.extensions import db
from inspector.inspections import driver_told, grant_told
from inspector.models import (
    EFFECTIVE,
    OPEN,
    Appeal,
    AppealStatus,
    Credential,
    Driver,
    DriverCategory,
    Holder,
    Inspection,
    InspectionItem,
    ItemResult,
    Municipality,
    Permit,
    Sanction,
    SanctionStatus,
    Service,
    Status,
    Vehicle,
)
from inspector.rules import (
    ActKind,
    NoSanction,
    PriorSanction,
    RulesError,
)

SUBJECT_OF_TARGET = {"driver": "driver", "registration": "driver", "holder": "holder",
                     "company": "holder", "permit": "holder", "licence": "vehicle",
                     "vehicle": "vehicle"}
DEADLINE_KINDS = ("notice", "written_warning", "oral_warning")
# Whom the driver's "ciente" on the street notifies: the driver alone. An act addressed to
# the company or the permit holder reaches it with the document, not through its rider's
# signature (Nortelândia 030 Art. 16 § 2º: the company's appeal counts "a partir da
# intimação" of the company; Tapurah 406 Art. 27 I: the rider signs, the company gets a copy).
SIGNER_TARGETS = ("driver", "registration")
NARROWED = {ActKind.SUSPENSION: "Suspensão", ActKind.REVOCATION: "Cassação"}


@dataclass(frozen=True)
class Offenders:
    """Who an inspection's findings are about."""

    vehicle: Vehicle
    holder: Holder | None
    driver: Driver | None

    def subject(self, kind: str) -> str:
        """"driver:3", "holder:4" or "vehicle:5" (the vehicle when the driver is unknown)."""
        if kind == "driver" and self.driver is not None:
            return f"driver:{self.driver.id}"
        if kind == "holder" and self.holder is not None:
            return f"holder:{self.holder.id}"
        return f"vehicle:{self.vehicle.id}"


def offenders(insp: Inspection) -> Offenders:
    """The vehicle, its holder, and the driver: the one the agent chose on the phone, else the
    scanned rider badge, else the vehicle's only driver of its service; None when that cannot
    be told (also when the agent said "outro / não cadastrado")."""
    vehicle = insp.vehicle
    told = driver_told(insp)
    if told is not None:
        return Offenders(vehicle, vehicle.holder, told.driver)
    driver = None
    if insp.credential_id:
        cred = db.session.get(Credential, insp.credential_id)
        if cred is not None and cred.driver_id:
            driver = db.session.get(Driver, cred.driver_id)
    if driver is None:
        own = [d for d in vehicle.drivers   # a revoked rider still riding is still the one
               if (d.category == DriverCategory.MOTOTAXISTA) == (vehicle.service == Service.MOTOTAXI)]
        if len(own) == 1:
            driver = own[0]
    return Offenders(vehicle, vehicle.holder, driver)


# What `offenders` and `_acts` read of the vehicle (its holder and the holder's permits, its
# drivers, its licences), in one SELECT instead of four lazy loads: few rows each, so their
# product stays small.
_OFFENDER_ROWS = (select(Vehicle).where(Vehicle.id == bindparam("vehicle"))
                  .options(joinedload(Vehicle.holder).joinedload(Holder.permits),
                           joinedload(Vehicle.drivers), joinedload(Vehicle.licences)))


_TOWN_VALUES = (joinedload(Municipality.dated_values),)


def _load_offenders(vehicle_id: int) -> None:
    """Load the vehicle's holder, permits, drivers and licences into the session at once."""
    db.session.execute(_OFFENDER_ROWS, {"vehicle": vehicle_id}).unique().all()


def ladder_subject(pack: rules.RulePack, on, off: Offenders) -> str:
    """The offender whose history counts: the target of the first rung in force."""
    steps = [s for s in pack.ladder if s.span.covers(on)]
    target = steps[0].measures[0].target if steps else "vehicle"
    return off.subject(SUBJECT_OF_TARGET.get(target, "vehicle"))


# The statements of every completed inspection, built once (each build and its cache key
# cost more than running it on SQLite); the values are bound parameters.
_HISTORY = (
    select(Sanction.id, Sanction.inspection_id, Sanction.origin_key, Sanction.amount_on,
           Sanction.proposed_at, Sanction.rule_id, Sanction.kind, Sanction.breach_citation,
           Sanction.status, Sanction.notified_at, Sanction.appeal_days,
           Sanction.appeal_until, Sanction.decided_at,
           Sanction.municipality_id)   # whose clock names its days (town_of)
    .where(Sanction.municipality_id == bindparam("town"), Sanction.offender == bindparam("offender"),
           Sanction.status.in_(EFFECTIVE), Sanction.automatic.is_(False))
    .order_by(Sanction.id))
_REFUSED = (select(Appeal.sanction_id, func.max(Appeal.decided_at))
            .where(Appeal.sanction_id.in_(bindparam("ids", expanding=True)),
                   Appeal.status == AppealStatus.REFUSED)
            .group_by(Appeal.sanction_id))
_KEY_TAKEN = select(Sanction.id).where(Sanction.origin_key == bindparam("key"))
# a vehicle's open notices of earlier inspections, about the items an inspection found "ok"
_OPEN_NOTICES = (
    select(Sanction).join(Inspection, Inspection.id == Sanction.inspection_id)
    .where(Sanction.municipality_id == bindparam("town"),
           Sanction.vehicle_id == bindparam("vehicle"),
           Sanction.rule_id.in_(bindparam("ok", expanding=True)),
           # a notice still waiting for its delivery (delivery.py) is complied with too
           or_(Sanction.deadline_at.is_not(None), Sanction.deadline_hours.is_not(None),
               Sanction.deadline_days.is_not(None)), Sanction.status.in_(OPEN),
           Sanction.parent_id.is_(None), Sanction.inspection_id != bindparam("inspection"),
           Inspection.finished_at < bindparam("finished"))
    .order_by(Sanction.id).with_for_update())


def history(town_id: int, offender: str, *, exclude_inspection: int | None = None
            ) -> list[PriorSanction]:
    """One PriorSanction per earlier occasion with an act in effect against this offender,
    with the provision it punished and the day it became final (for a reincidência)."""
    rows = db.session.execute(_HISTORY, {"town": town_id, "offender": offender}).all()
    refused = dict(db.session.execute(_REFUSED, {"ids": [r.id for r in rows]}).all()) \
        if rows else {}
    seen: dict[object, PriorSanction] = {}
    for r in rows:
        occasion = r.inspection_id if r.inspection_id is not None else r.origin_key
        if occasion == exclude_inspection or occasion in seen:
            continue
        breach = r.breach_citation or {}
        provision = f"{breach['law_slug']}#{breach['anchor']}" \
            if breach.get("law_slug") and breach.get("anchor") else ""
        seen[occasion] = PriorSanction(on=r.amount_on or town_day(town_of(r), r.proposed_at),
                                       rule_id=r.rule_id, kind=r.kind, provision=provision,
                                       final_on=_final_on(r, refused.get(r.id)))
    return list(seen.values())


def _final_on(r, refused_at) -> date | None:
    """The local day a penalty became final: its appeal refused, or its appeal window over
    with no appeal (the day after the last day to appeal); with no window, the day it was
    notified. None while it can still be appealed, an appeal is pending, or it waits for
    its delivery."""
    if r.status == SanctionStatus.APPEALED or r.notified_at is None:
        return None
    if refused_at is not None:
        return town_day(town_of(r), refused_at)
    if r.appeal_until is not None:
        return r.appeal_until + timedelta(days=1)
    if r.appeal_days is None:
        return town_day(town_of(r), r.notified_at)
    return None


def _permit_of(holder: Holder | None, service: Service) -> Permit | None:
    if holder is None:
        return None
    mine = [p for p in holder.permits if p.service == service]
    # an active permit before another, then the newest (the latest made, of one day's two)
    return max(mine, key=lambda p: (p.status == Status.ACTIVE, p.valid_from, p.id)) if mine else None


def _checklist_item(pack: rules.RulePack, rule_id: str):
    base = rule_id.split(":", 1)[0]
    return next((i for i in pack.checklist if i.id == base), None)


def propose_for_inspection(insp: Inspection, now: datetime) -> list[Sanction]:
    """One proposed act per measure the law gives each failed item (idempotent)."""
    failed = [i for i in insp.items if i.result == ItemResult.FAIL]
    if not failed:
        return []
    # the town with its dated values (town_facts): one SELECT when the commit expired it
    town = db.session.get(Municipality, insp.municipality_id, options=_TOWN_VALUES)
    _load_offenders(insp.vehicle_id)
    service, day = insp.service.value, insp.rules_day
    try:
        pack = rules.find_pack(town.slug, service, day)
    except RulesError as e:
        event("no_proposal", town_id=town.id, now=now, inspection_id=insp.id,
              message=f"Nenhuma sanção proposta: {e}.")
        return []
    off = offenders(insp)
    subject = ladder_subject(pack, day, off)
    prior = history(town.id, subject, exclude_inspection=insp.id)
    calendar = laws.calendar_for(town.id)  # read once: every item and act counts days over it
    facts = dataclasses.replace(laws.town_facts(town), calendar=calendar)  # and its values
    acts: list[Sanction] = []
    for item in failed:
        try:
            proposal = _proposal_of(insp, item, town, service, prior, day, now, calendar,
                                    facts=facts)
        except (NoSanction, RulesError) as e:
            event("no_proposal", town_id=town.id, now=now, inspection_id=insp.id,
                  message=f"Item {item.item_id}: {e}.", data={"item_id": item.item_id})
            continue
        acts.extend(_acts(insp, item, proposal, pack, off, subject, now, calendar=calendar))
    return acts


def _proposal_of(insp: Inspection, item: InspectionItem, town, service: str, prior, day,
                 now: datetime, calendar: rules.TownCalendar | None = None, *,
                 facts: rules.TownFacts | None = None) -> rules.Proposal:
    """The proposal for a failed item, with the deadline the agent granted on the street
    (Tapurah Art. 19), if any. The sync refused a grant the law does not allow; should the
    law say otherwise now, the act keeps the law's own deadline and the review says why.
    `facts`: the town's, with `calendar`, read once for all the inspection's items."""
    told = grant_told(insp, item.item_id)
    if told is not None:
        try:
            return laws.propose_sanction(
                town, service, item.item_id, prior, day,
                grant=rules.Grant(told.days, told.reason.strip(), "agent"), calendar=calendar,
                facts=facts)
        except rules.GrantRefused as e:
            event("grant_not_applied", town_id=town.id, now=now, inspection_id=insp.id,
                  message=f"Item {item.item_id}: prazo concedido pelo agente não aplicado "
                          f"({e.message}).", data={"item_id": item.item_id})
    return laws.propose_sanction(town, service, item.item_id, prior, day, calendar=calendar,
                                 facts=facts)


def required_action(label: str, requirement: str) -> str:
    """What a failed item's act tells the offender to do (Tapurah Art. 29: the notice says
    what must be fixed; Nortelândia 030 Art. 16 § 1º: what must be done). The pack's help
    text describes the item as the law wants it, so alone it would read as if nothing were
    wrong ("A motocicleta tem os dois retrovisores.")."""
    return f"Regularizar “{label}”. Exigido: {_sentence(requirement)}"


def _sentence(text: str) -> str:
    """The text as a sentence that ends, so what follows it (a note, a deadline) reads apart."""
    text = " ".join(text.split())
    return text if not text or text[-1] in ".!?…" else f"{text}."


def _acts(insp, item: InspectionItem | None, p: rules.Proposal, pack, off: Offenders,
          subject: str, now: datetime, version: int = 0, *, key_base: str = "",
          breach: dict | None = None, action: str = "", reason: str | None = None,
          narrow: str | None = None, actor=None,
          calendar: rules.TownCalendar | None = None) -> list[Sanction]:
    """The proposed acts of one proposal: of a failed item, or (item None) of a sanction a
    supervisor chose on the review (`key_base`, `breach`, `action`, `reason` given; `narrow`
    picks "suspension" or "revocation" of a `suspension_or_revocation` measure)."""
    if item is not None:
        rule = _checklist_item(pack, item.item_id)
        breach = item.citation or (rule.citation.as_dict() if rule else None)
        action = required_action(rule.label, rule.help) if rule else ""
        if item.note:
            action = f"{action} Observação do agente: {_sentence(item.note)}".strip()
        key_base = f"item:{item.id}"
    principal = next((i for i, m in enumerate(p.measures) if m.kind in DEADLINE_KINDS), 0)
    street = bool(insp.ack_name)  # the driver signed the "ciente" on the street
    permit = _permit_of(off.holder, insp.service)
    licence = off.vehicle.current_licence
    out = []
    for i, m in enumerate(p.measures):
        key = f"{key_base}:{i}" + (f":v{version}" if version else "")
        kind, label = m.kind, m.label
        if narrow and kind == ActKind.SUSPENSION_OR_REVOCATION:
            kind, label = narrow, f"{NARROWED[narrow]} — {m.label}"
        if db.session.scalar(_KEY_TAKEN, {"key": key}):
            continue
        act = Sanction(
            municipality_id=insp.municipality_id, origin_key=key, inspection_id=insp.id,
            inspection_item_id=item.id if item else None, pack_id=p.pack_id, law=p.law, rule_id=p.rule_id,
            step_id=p.step_id, offence_id=p.offence_id, occurrence=p.occurrence,
            measure_index=i, kind=kind, target=m.target, label=label, offender=subject,
            holder_id=off.holder.id if off.holder else None,
            driver_id=off.driver.id if off.driver else None, vehicle_id=off.vehicle.id,
            permit_id=permit.id if permit and m.target == "permit" else None,
            licence_id=licence.id if licence and m.target == "licence" else None,
            breach_citation=jsonable(breach), citation=jsonable(m.citation.as_dict()),
            required_action=action, decided_by=m.decided_by, automatic=False,
            status=SanctionStatus.PROPOSED, proposed_at=utc(now), updated_at=utc(now),
            amount_on=p.on, reason=reason)
        for name, value in (money_fields(m.money) | (appeal_fields(m.appeal) if m.appeal
                                                     else {})).items():
            setattr(act, name, value)
        if i == principal and p.deadline is not None:
            act.deadline_hours, act.deadline_days = p.deadline.hours, p.deadline.days
            act.deadline_text = p.deadline.text
            act.deadline_citation = jsonable(p.deadline.citation.as_dict())
            act.deadline_granted_by = p.deadline.granted_by
            act.deadline_grant_reason = p.deadline.grant_reason
            if p.on_missed_deadline is not None:
                act.on_missed = jsonable(p.on_missed_deadline.as_dict())
        if m.decided_by == "agent" and street and m.target in SIGNER_TARGETS:
            act.notified_at = utc(insp.finished_at)  # handed over and signed on the street
            schedule(act, calendar)
        db.session.add(act)
        db.session.flush()
        lifecycle.born(act, "propose", now=now, actor=actor).done(
            f"Proposto: {label} ({p.law}, {m.citation.article})."
            + (f" Motivo: {reason}" if reason else ""),
            data={"item_id": item.item_id if item else None, "occurrence": p.occurrence,
                  "rule_id": p.rule_id},
            after={"rule_id": act.rule_id, "inspection": insp.uuid, "offender": subject,
                   "occurrence": act.occurrence})
        out.append(act)
    return out


def repropose_later(decided: Sanction, now: datetime, *, actor=None) -> list[Sanction]:
    """A decision changed the offender's history: proposals of the offender's later
    inspections still waiting for the supervisor are made again where the ladder now gives
    another rung (the old ones are rejected, saying why). Reviews days after the street
    would otherwise never reach the second or third rung."""
    if decided.inspection_id is None or decided.automatic:
        return []
    base = db.session.get(Inspection, decided.inspection_id)
    pending = db.session.scalars(
        select(Sanction).join(Inspection, Inspection.id == Sanction.inspection_id)
        .where(Sanction.municipality_id == decided.municipality_id,
               Sanction.offender == decided.offender, Sanction.automatic.is_(False),
               Sanction.status == SanctionStatus.PROPOSED, Sanction.awaiting_mayor.is_(False),
               Sanction.inspection_item_id.is_not(None),   # a chosen act keeps its measure
               Inspection.finished_at > base.finished_at)
        .order_by(Inspection.finished_at, Sanction.id)).all()
    by_item: dict[int, list[Sanction]] = {}
    for a in pending:
        by_item.setdefault(a.inspection_item_id, []).append(a)
    made: list[Sanction] = []
    for item_id, old in by_item.items():
        item = db.session.get(InspectionItem, item_id)
        insp = item.inspection
        town = db.session.get(Municipality, insp.municipality_id)
        prior = history(town.id, decided.offender, exclude_inspection=insp.id)
        try:
            p = _proposal_of(insp, item, town, insp.service.value, prior, insp.rules_day, now)
        except (NoSanction, RulesError):
            continue
        if (p.step_id, p.offence_id) == (old[0].step_id, old[0].offence_id):
            if p.occurrence != old[0].occurrence:   # the same measures: only the count moves
                for a in old:
                    a.occurrence, a.updated_at = p.occurrence, utc(now)
                event("occurrence_updated", town_id=old[0].municipality_id, now=now,
                      actor=actor, act=old[0], message=f"Agora {p.occurrence}ª ocorrência do "
                      f"infrator (decisão sobre uma vistoria anterior).")
            continue
        why = (f"Substituída: o histórico do infrator mudou ({p.occurrence}ª ocorrência); "
               f"veja a nova proposta.")
        for a in old:
            step = lifecycle.move(a, "supersede", now=now, actor=actor,
                                  values={"decided_at": utc(now)})
            a.reason = why
            step.done(why)
        pack = rules.find_pack(town.slug, insp.service.value, insp.rules_day)
        version = db.session.scalar(select(func.count(Sanction.id)).where(
            Sanction.inspection_item_id == item.id))
        made.extend(_acts(insp, item, p, pack, offenders(insp), decided.offender, now,
                          version=version))
    return made


def comply_from_reinspection(insp: Inspection, now: datetime) -> list[Sanction]:
    """Notices of this vehicle whose item is now "ok" are complied with (daily fines stop)."""
    ok = {i.item_id for i in insp.items if i.result == ItemResult.OK}
    if not ok:
        return []
    moment = utc(insp.finished_at)
    open_acts = db.session.scalars(_OPEN_NOTICES, {
        "town": insp.municipality_id, "vehicle": insp.vehicle_id, "ok": sorted(ok),
        "inspection": insp.id, "finished": insp.finished_at}).all()
    done = []
    for act in open_acts:
        comply(act, moment, insp, now)
        done.append(act)
    return done


def comply(act: Sanction, moment: datetime, insp: Inspection | None, now: datetime,
           *, actor=None) -> None:
    """Record that what the notice asked was done at `moment` (a daily fine stops there)."""
    if aware(act.deadline_at) and moment > aware(act.deadline_at):
        convert_missed(act, moment, actor=actor)  # the days before the fix are still due
    step = lifecycle.move(act, "comply", now=now, actor=actor)
    if act.notice is not None:
        act.notice.complied_at = moment
        act.notice.complied_inspection_id = insp.id if insp else None
    child = db.session.scalar(select(Sanction).where(Sanction.origin_key == f"daily:{act.id}"))
    if child is not None and child.fine is not None and child.fine.stopped_at is None:
        child.fine.stopped_at = moment
        accrue(child.fine, moment)
        event("fine_stopped", town_id=act.municipality_id, now=now, actor=actor, act=child,
              message=f"Multa diária encerrada: {child.fine.accrued_days} dia(s).",
              data={"accrued_days": child.fine.accrued_days,
                    "accrued_brl": child.fine.accrued_brl})
    step.done("Notificação cumprida" + (" (constatado em nova vistoria)." if insp else "."),
              data={"inspection": insp.uuid if insp else None},
              after={"complied_at": moment, "inspection": insp.uuid if insp else None})


__all__ = ["Offenders", "comply", "comply_from_reinspection", "history", "ladder_subject",
           "offenders", "pack_of", "propose_for_inspection", "repropose_later"]
