"""Every vehicle's standing for the field snapshot, cached per town and day.

Computing standing goes through the ORM and the rules engine, vehicle by vehicle
(`compliance.vehicle_standing`), which costs about a millisecond each. The result is
kept in the process per town for the local day and brought up to date incrementally:
only the vehicles named, directly or through a licence, insurance policy, credential,
permit, holder or driver, by audit entries newer than the cached version are
recomputed. Every registry change writes an audit entry, so nothing is missed; a new
day recomputes everything (dates expire without any entry).
"""
from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass
from datetime import date

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from inspector import audit, laws
from inspector.extensions import db
from inspector.models import AuditEntry, Holder, Licence, Permit, Vehicle, vehicle_drivers

CHUNK = 500
_locks: defaultdict[int, threading.Lock] = defaultdict(threading.Lock)  # one per town
_VIA_VEHICLE = ("licence", "insurance", "credential")


@dataclass(frozen=True)
class _Cached:
    day: date
    version: int
    entries: dict  # vehicle id -> {"vehicle_id", "status", "suspended_until", "reasons", ...}


def _options():
    return (selectinload(Vehicle.licences).selectinload(Licence.permit),
            selectinload(Vehicle.insurance_policies), selectinload(Vehicle.drivers),
            selectinload(Vehicle.holder).selectinload(Holder.permits))


def compute(town_id: int, vehicle_ids: set[int] | None, day: date) -> dict[int, dict]:
    """Standing of a town's vehicles (all, or these) on a day, from the compliance service."""
    base = select(Vehicle).where(Vehicle.municipality_id == town_id).options(*_options())
    if vehicle_ids is None:
        batches = [base]
    else:
        ids = sorted(vehicle_ids)
        batches = [base.where(Vehicle.id.in_(ids[i:i + CHUNK]))
                   for i in range(0, len(ids), CHUNK)]
    out = {}
    for query in batches:
        rows = list(db.session.scalars(query))
        with laws.preloaded_causes(_status_rows(rows)):
            out.update(_judge(rows, day))
    return out


def _status_rows(vehicles: list[Vehicle]) -> dict[str, list]:
    """The rows whose status an act may have set, for `laws.preloaded_causes`."""
    return {"licence": [lic for v in vehicles for lic in v.licences],
            "permit": [p for v in vehicles if v.holder is not None for p in v.holder.permits],
            "driver": [d for v in vehicles for d in v.drivers]}


def _judge(vehicles: list[Vehicle], day: date) -> dict[int, dict]:
    out = {}
    for v in vehicles:
        standing = laws.vehicle_standing(v, day)
        d = standing.as_dict()
        out[v.id] = {"vehicle_id": v.id, "status": d["status"],
                     "suspended_until": suspended_until(standing),
                     "reasons": d["reasons"], "warnings": d.get("warnings", [])}
    return out


def suspended_until(standing) -> str | None:
    """The last day of a suspended vehicle's suspension (ISO), as the passenger page reads it:
    the latest end of the suspensions holding it, None when one of them has no known end
    (entered by hand) or the vehicle is not suspended."""
    if standing.status != "suspended" or not standing.reasons:
        return None
    ends = [r.due_on for r in standing.reasons]
    return max(ends).isoformat() if all(ends) else None


def affected_vehicles(town_id: int, since: int, version: int) -> set[int]:
    """Vehicles whose standing may have changed with the town's audit entries in
    (since, version]: named directly, or through a related row (read from the entry's
    before/after, so a deleted licence still names its vehicle)."""
    vehicles: set[int] = set()
    holders: set[int] = set()
    drivers: set[int] = set()
    unnamed: dict[str, set[int]] = defaultdict(set)
    rows = db.session.execute(
        select(AuditEntry.entity, AuditEntry.entity_id, AuditEntry.before, AuditEntry.after)
        .where(AuditEntry.municipality_id == town_id, AuditEntry.seq > since,
               AuditEntry.seq <= version,
               AuditEntry.entity.in_(("vehicle", "holder", "driver", "permit")
                                     + _VIA_VEHICLE)))
    for entity, entity_id, before, after in rows:
        if entity == "vehicle" and entity_id.isdigit():
            vehicles.add(int(entity_id))
        elif entity == "holder" and entity_id.isdigit():
            holders.add(int(entity_id))
        elif entity == "driver" and entity_id.isdigit():
            drivers.add(int(entity_id))
        found = False
        for snap in (before, after):
            values = _load(snap)
            if entity in _VIA_VEHICLE and isinstance(values.get("vehicle_id"), int):
                vehicles.add(values["vehicle_id"])
                found = True
            if entity in ("permit", "vehicle") and isinstance(values.get("holder_id"), int):
                holders.add(values["holder_id"])
                found = found or entity == "permit"
        if not found and entity in ("licence", "permit") and entity_id.isdigit():
            # an entry that carries only part of the row (a suspension's end moved:
            # "suspension_period_changed"): the row itself names its vehicle or holder
            unnamed[entity].add(int(entity_id))
    if unnamed["licence"]:
        vehicles |= set(db.session.scalars(select(Licence.vehicle_id).where(
            Licence.id.in_(sorted(unnamed["licence"])))))
    if unnamed["permit"]:
        holders |= set(db.session.scalars(select(Permit.holder_id).where(
            Permit.id.in_(sorted(unnamed["permit"])))))
    if holders:
        vehicles |= set(db.session.scalars(select(Vehicle.id).where(
            Vehicle.municipality_id == town_id, Vehicle.holder_id.in_(sorted(holders)))))
    if drivers:
        vehicles |= set(db.session.scalars(select(vehicle_drivers.c.vehicle_id).where(
            vehicle_drivers.c.driver_id.in_(sorted(drivers)))))
    return vehicles


def _load(snapshot: str | None) -> dict:
    value = audit.values(snapshot)
    return value if isinstance(value, dict) else {}


def town_standing(town_id: int, day: date, version: int) -> dict[int, dict]:
    """Every vehicle's standing on `day`, as of audit version `version` (cached)."""
    # bench/caches.py: a town's standing judged anew costs 83 ms (20 vehicles) to 1.6 s (500)
    cache = current_app.extensions.setdefault("field_standing", {})
    with _locks[town_id]:
        held = cache.get(town_id)
        if held is None or held.day != day or held.version > version:
            held = _Cached(day, version, compute(town_id, None, day))
        elif held.version < version:
            changed = affected_vehicles(town_id, held.version, version)
            entries = {k: v for k, v in held.entries.items() if k not in changed}
            entries.update(compute(town_id, changed, day))
            held = _Cached(day, version, entries)
        cache[town_id] = held
        return held.entries
