"""The demo's vistorias (docs/vistoria.md) in Tapurah: a place of the agenda, an approved
periodic vistoria with its certificate, a rejected one with what to fix and a return day, and
bookings on the next day with office. The vistorias go through the field API's own path
(`receive_inspection`, then `settle`): decided from the answers, as on a phone. Idempotent:
fixed UUIDs, skipped when already there."""
from __future__ import annotations

import json
import uuid
from collections import Counter
from datetime import UTC, timedelta

from sqlalchemy import select

from inspector import clock, inspections, vistorias
from inspector.extensions import db
from inspector.models import (
    AppointmentStatus,
    Inspection,
    Municipality,
    User,
    Vehicle,
    VistoriaAppointment,
)

ACTOR = "demo-seed"
TOWN = "tapurah"
NAMESPACE = uuid.UUID("6f1d8f0e-4c55-4c1e-9d1a-7a1e0b0c0de5")
PLACE = {"name": "Pátio da Secretaria de Finanças", "address": "Av. Brasil, 100, Centro",
         "weekdays": ["0", "1", "2", "3", "4"], "start_hour": "8", "end_hour": "11",
         "slots_per_hour": "2"}
# the failed item of the rejected vistoria: one that needs no photo (Lei 406/2001 Art. 16)
FAILED_ITEM, FAILED_NOTE = "insurance", "Apólice do seguro não apresentada"


def _vistoria(town: Municipality, agent: User, vehicle: Vehicle, fail: bool) -> bool:
    """A periodic vistoria of the vehicle, sent as the phone sends it; False when there."""
    iid = str(uuid.uuid5(NAMESPACE, f"{vehicle.plate}:{'fail' if fail else 'ok'}"))
    if db.session.scalar(select(Inspection.id).where(Inspection.uuid == iid)) is not None:
        return False
    now = clock.now()
    plan = inspections.vistoria_plan(town, vehicle.service.value, "periodic",
                                     clock.town_day(town, now))
    started = now - timedelta(minutes=30)
    stamp = lambda t: t.astimezone(UTC).isoformat().replace("+00:00", "Z")  # noqa: E731
    body = {"vehicle_id": vehicle.id, "kind": "periodic", "started_at": stamp(started),
            "finished_at": stamp(started + timedelta(minutes=12)), "snapshot_version": 0,
            "items": [{"item_id": i.id, "result": "fail" if fail and i.id == FAILED_ITEM
                       else "ok", "note": FAILED_NOTE if fail and i.id == FAILED_ITEM else "",
                       "photos": []} for i in plan.items]}
    inspections.receive_inspection(iid, json.dumps(body).encode(), user=agent)
    vistorias.settle(iid, town.id)
    return True


def seed(created: Counter) -> None:
    """Tapurah's place, two decided vistorias and two bookings (the caller commits)."""
    town = db.session.scalar(select(Municipality).where(Municipality.slug == TOWN))
    agent = db.session.scalar(select(User).where(User.username == f"agente.{TOWN}"))
    admin = db.session.scalar(select(User).where(User.username == f"admin.{TOWN}"))
    if town is None or agent is None or admin is None:
        return
    places = vistorias.agenda_places(town.id)
    place = next((p for p in places if p.name == PLACE["name"]), None)
    if place is None:
        place = vistorias.save_place(town.id, PLACE, ACTOR)
        created["vistoria_place"] += 1
    fleet = list(db.session.scalars(select(Vehicle).where(Vehicle.municipality_id == town.id)
                                    .order_by(Vehicle.prefix, Vehicle.plate)))
    if len(fleet) < 4:
        return
    for vehicle, fail in ((fleet[0], False), (fleet[1], True)):
        if _vistoria(town, agent, vehicle, fail):
            created["vistoria"] += 1
    # bookings of two more vehicles on the next day with office, when not booked already
    booked = set(db.session.scalars(select(VistoriaAppointment.vehicle_id).where(
        VistoriaAppointment.municipality_id == town.id,
        VistoriaAppointment.status == AppointmentStatus.BOOKED)))
    now = clock.now()
    today = clock.town_day(town, now)
    for n in range(1, 15):
        free = vistorias.free_slots(place, today + timedelta(days=n)).slots
        if len(free) >= 2:
            break
    else:
        return
    for vehicle, start in zip(fleet[2:4], free):
        if vehicle.id in booked:
            continue
        vistorias.book_vistoria(town.id, vehicle.plate, place.id, f"{start:%Y-%m-%dT%H:%M}",
                                "periodic", ACTOR)
        created["vistoria_appointment"] += 1
