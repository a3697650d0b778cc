"""What each record's page shows besides its own fields: related records and history."""
from __future__ import annotations

import hashlib

from inspector import clock, laws, registry, vistorias
from inspector.blueprints.registry.kinds import Kind
from inspector.blueprints.registry.queries import allowed
from inspector.extensions import db
from inspector.models import Driver, Holder, Licence, Municipality, Permit, Service, Stand, Vehicle
from inspector.registry import record_history, sanctions


def photo_etag(photo: bytes) -> str:
    """A strong validator for a photo's bytes."""
    return hashlib.sha256(photo).hexdigest()[:32]



def _town(town: int) -> Municipality:
    """The town whose day "today" is on its pages (its own zone)."""
    return db.session.get(Municipality, town)

def _vehicle(v: Vehicle, town: int) -> dict:
    subjects = [("vehicle", v.id)]
    subjects += [("licence", lic.id) for lic in v.licences]
    subjects += [("insurance", p.id) for p in v.insurance_policies]
    today = clock.today(_town(town))
    insurance_in_force = any(p.valid_from <= today <= p.valid_until
                             for p in v.insurance_policies)
    standing = laws.standing_of(v, today)
    return {"history": record_history(town, subjects), "today": today,
            "verdict": standing.verdict, "standing": standing,
            "needs_insurance": v.service == Service.MOTOTAXI,
            "insurance_in_force": insurance_in_force,
            "vistoria": registry.vistoria_valid_until(v, today),
            "vistorias": vistorias.for_vehicle(v.id)[:5],
            "reminders": vistorias.reminders_for_vehicle(v.id)[:6],
            "sanctions": sanctions(town, vehicle_id=v.id), "can_open_acts": allowed("review.act"),
            "acts_args": {}}   # the acts list filters by holder or driver, not by vehicle


def _driver(d: Driver, town: int) -> dict:
    today = clock.today(_town(town))
    return {"history": record_history(town, [("driver", d.id)]), "today": today,
            "verdict": laws.verdict_of(d, today),
            "documents": {x.kind: x for x in laws.driver_documents_of(d, today)},
            "sanctions": sanctions(town, driver_id=d.id), "can_open_acts": allowed("review.act"),
            "acts_args": {"condutor": d.id}}


def _holder(h: Holder, town: int) -> dict:
    return {"history": record_history(town, [("holder", h.id)] + [("permit", p.id) for p in h.permits]),
            "today": clock.today(_town(town)), "sanctions": sanctions(town, holder_id=h.id),
            "can_open_acts": allowed("review.act"), "acts_args": {"titular": h.id}}


def _licence(lic: Licence, town: int) -> dict:
    return {"history": record_history(town, [("licence", lic.id)]), "today": clock.today(_town(town))}


def _permit(p: Permit, town: int) -> dict:
    return {"history": record_history(town, [("permit", p.id)]), "today": clock.today(_town(town))}


def _stand(s: Stand, town: int) -> dict:
    vehicles = db.session.scalars(db.select(Vehicle).filter_by(municipality_id=town, stand_id=s.id)
                                  .order_by(Vehicle.prefix, Vehicle.plate)).all()
    return {"history": record_history(town, [("stand", s.id)]), "vehicles": vehicles,
            "over_capacity": len(vehicles) > s.capacity}


_CONTEXTS = {"vehicle": _vehicle, "driver": _driver, "holder": _holder, "licence": _licence,
             "permit": _permit, "stand": _stand}


def context(kind: Kind, obj, town: int) -> dict:
    """The extra template values of a record's page."""
    return _CONTEXTS[kind.key](obj, town)



def vehicle_verdicts(rows: list[Vehicle], town: int) -> dict[int, laws.Verdict]:
    """Today's verdict of each listed vehicle, from the town's standing kept for the field
    snapshot (the same engine, computed once per town and day and brought up to date by the
    audit log), so a search stays as fast as before."""
    from inspector import audit
    from inspector.field import town_standing

    if not rows:
        return {}
    today = clock.today(_town(town))
    kept = town_standing(town, today, audit.town_version(town))
    return {v.id: laws.verdict_of_standing(kept[v.id]) if v.id in kept else laws.verdict_of(v, today)
            for v in rows}


def vehicle_documents(rows: list[Vehicle]) -> dict[int, dict]:
    """Each listed vehicle's licence and permit as they stand today (laws.standing_of): an
    Alvará under a revoked permit is "sem efeito", not "Ativo"."""
    if not rows:
        return {}
    today = clock.today(_town(rows[0].municipality_id))
    out = {}
    for v in rows:
        standing = laws.standing_of(v, today, drivers=False)
        out[v.id] = {d.kind: d for d in standing.documents}
    return out
