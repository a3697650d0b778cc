"""A vistoria's result, decided from its checklist when the phone's inspection arrives.

Who decides (docs/vistoria.md): the agent who performs it. The laws give the vistoria to the
servants designated for it (Nova Santa Helena Lei 535/2013 Art. 32; Tapurah Lei 406/2001
Art. 3 § 1º; Sapezal Lei 060/1998 Art. 11; Nortelândia Lei 030/1998 Art. 2), and let "o
responsável pela vistoria" shorten its validity (Nova Santa Helena Art. 32 § 3º): the result is
theirs, read from their answers, never typed. Every item its kind checks conforming (or not
applying): approved, the vehicle's vistoria recorded through the registry's writer and the
certificate issued. Any item failing: rejected, with what to fix and a return date; the
vehicle's earlier vistoria is left as it was (it lapses on its own day, as the law counts it).
"""
from __future__ import annotations

import json
from datetime import date, datetime, timedelta

from sqlalchemy import select

from inspector import audit, clock
from inspector.extensions import db
from inspector.inspections import VistoriaTold, vistoria_plan
from inspector.models import (
    Inspection,
    InspectionItem,
    InspectionKind,
    ItemResult,
    Municipality,
    User,
    Vehicle,
    Vistoria,
    VistoriaResult,
    VistoriaSettings,
)
from inspector.registry import record_vistoria
from inspector.vistorias import agenda, certificate
from inspector.vistorias.queries import result_of

DEFAULT_RETURN_DAYS = 15
MAX_RETURN_DAYS = 30


def return_days(town_id: int) -> int:
    """Days a rejected vehicle has to come back (the town's setting, docs/vistoria.md)."""
    s = db.session.get(VistoriaSettings, town_id)
    return s.return_days if s is not None else DEFAULT_RETURN_DAYS


def set_return_days(town_id: int, days: int, actor) -> None:
    """Change the town's return days (1 to MAX_RETURN_DAYS), audited."""
    if not 1 <= days <= MAX_RETURN_DAYS:
        raise ValueError(days)
    s = db.session.get(VistoriaSettings, town_id)
    before = None if s is None else {"return_days": s.return_days}
    if s is None:
        s = VistoriaSettings(municipality_id=town_id, return_days=days)
        db.session.add(s)
    s.return_days = days
    db.session.flush()
    audit.record("vistoria_settings_changed", "municipality", town_id, before=before,
                 after={"return_days": days}, actor=actor, municipality_id=town_id)


def _to_fix(items: list[InspectionItem]) -> list[dict]:
    out = []
    for item in items:
        if item.result != ItemResult.FAIL:
            continue
        c = item.citation if isinstance(item.citation, dict) else {}
        out.append({"item_id": item.item_id, "label": item.label or item.item_id,
                    "law": c.get("law", ""), "article": c.get("article", ""),
                    "note": item.note or ""})
    return out


def _told(insp: Inspection) -> VistoriaTold | None:
    """The inspector's shortening as the phone sent it (checked when it arrived)."""
    try:
        raw = insp.payload.get("vistoria")
        return VistoriaTold.model_validate_json(json.dumps(raw)) if isinstance(raw, dict) \
            else None
    except (TypeError, ValueError, AttributeError):
        return None


def settle(uuid: str, town_id: int, now: datetime | None = None) -> dict | None:
    """The result of the vistoria inspection with this UUID, deciding it first if it is not
    yet (in the caller's transaction: the caller commits; a concurrent decision of the same
    one fails there on the unique inspection and is read back with `result_of`); None for a
    street inspection or another town's."""
    insp = db.session.scalar(select(Inspection).where(Inspection.uuid == uuid.lower()))
    if insp is None or insp.municipality_id != town_id or insp.kind == InspectionKind.STREET:
        return None
    if db.session.scalar(select(Vistoria.id).where(Vistoria.inspection_id == insp.id)) is None:
        decide(insp, now or clock.now())
    return result_of(uuid.lower())


def decide(insp: Inspection, now: datetime) -> Vistoria:
    """Decide and record the vistoria of a stored inspection (in the caller's transaction).
    The decision is the agent's who performed it (module docstring)."""
    day: date = insp.rules_day
    town = db.session.get(Municipality, insp.municipality_id)
    user = db.session.get(User, insp.agent_id)
    vehicle = db.session.get(Vehicle, insp.vehicle_id)
    kind = insp.kind.value
    plan = vistoria_plan(town, insp.service.value, kind, day)
    items = list(db.session.scalars(select(InspectionItem).where(
        InspectionItem.inspection_id == insp.id).order_by(InspectionItem.position)))
    to_fix, told = _to_fix(items), _told(insp)
    v = Vistoria(municipality_id=town.id, inspection_id=insp.id, vehicle_id=vehicle.id,
                 agent_id=user.id, kind=insp.kind, performed_on=day,
                 law=plan.citation.law, article=plan.citation.article,
                 period_article=(f"{plan.months_citation.law}, {plan.months_citation.article}"
                                 if plan.months_citation else None), decided_at=now,
                 to_fix=to_fix)
    if to_fix:
        v.result = VistoriaResult.REJECTED
        v.return_on = day + timedelta(days=return_days(town.id))
    else:
        v.result = VistoriaResult.APPROVED
        v.normal_until = plan.normal_until(day)
        v.valid_until = told.shorten_until if told is not None else v.normal_until
        v.shortened_reason = told.reason.strip() if told is not None else None
    db.session.add(v)
    db.session.flush()
    audit.record("vistoria_decided", "vistoria", v.id, actor=user, municipality_id=town.id,
                 after={"inspection": insp.uuid, "vehicle_id": vehicle.id, "kind": kind,
                        "performed_on": day.isoformat(), "result": v.result.value,
                        "valid_until": v.valid_until.isoformat() if v.valid_until else None,
                        "shortened_reason": v.shortened_reason,
                        "return_on": v.return_on.isoformat() if v.return_on else None,
                        "to_fix": [f["item_id"] for f in to_fix]})
    agenda.attended(vehicle.id, town.id, day, user)  # its booking, if any, took place
    if v.result == VistoriaResult.APPROVED:
        # a vistoria synced late, after a newer one was recorded, does not go back in time
        if vehicle.last_vistoria_on is None or day >= vehicle.last_vistoria_on:
            record_vistoria(
                vehicle, day, v.valid_until if v.shortened_reason else None, actor=user,
                why={"vistoria_id": v.id, "kind": kind,
                     "reason": v.shortened_reason or f"{plan.label} aprovada"})
        certificate.issue(v, user)
    return v
