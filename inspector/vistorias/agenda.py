"""The agenda: where and when a town holds vistorias (places, weekdays, hours, slots an hour),
no slot on a day without office (the legal calendar: weekends, holidays, the town's closures),
appointments booked by the admin, no-shows recorded. Every change is audited."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import select

from inspector import audit, clock, laws
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.identifiers import normalise_plate
from inspector.models import (
    AppointmentStatus,
    InspectionKind,
    Municipality,
    Vehicle,
    VistoriaAppointment,
    VistoriaPlace,
)
from inspector.rules import why_no_office


def town_zone(town_id: int):
    """The clock of the town `town_id` (municipalities.timezone): its slots are its hours."""
    return clock.zone_of(db.session.get(Municipality, town_id))


WEEKDAYS = ("segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo")
MAX_SLOTS_PER_HOUR = 12
BOOK_AHEAD_DAYS = 120


def _int(raw: str, name: str, lo: int, hi: int, errors: dict, what: str) -> int | None:
    raw = (raw or "").strip()
    if not (raw.isascii() and raw.isdigit()) or not lo <= int(raw) <= hi:
        errors[name] = f"{what}: um número inteiro de {lo} a {hi}"
        return None
    return int(raw)


def save_place(town_id: int, data: dict, actor, place: VistoriaPlace | None = None) -> VistoriaPlace:
    """Create or change a place: name, address, weekdays (list of 0-6), hours and slots."""
    errors: dict[str, str] = {}
    name = (data.get("name") or "").strip()
    if not name or len(name) > 120:
        errors["name"] = "informe o nome do local (até 120 letras)"
    days = sorted({d for d in data.get("weekdays") or [] if d in "0123456" and len(d) == 1})
    if not days:
        errors["weekdays"] = "escolha pelo menos um dia da semana"
    start = _int(data.get("start_hour"), "start_hour", 0, 23, errors, "hora de início")
    end = _int(data.get("end_hour"), "end_hour", 1, 24, errors, "hora de fim")
    per_hour = _int(data.get("slots_per_hour"), "slots_per_hour", 1, MAX_SLOTS_PER_HOUR, errors,
                    "vagas por hora")
    if start is not None and end is not None and end <= start:
        errors["end_hour"] = "a hora de fim deve ser depois da de início"
    if errors:
        raise ValidationFailed(errors)
    before = None if place is None else audit.snapshot(place)
    if place is None:
        place = VistoriaPlace(municipality_id=town_id)
        db.session.add(place)
    place.name, place.address = name, (data.get("address") or "").strip()[:200]
    place.weekdays, place.start_hour, place.end_hour = ",".join(days), start, end
    place.slots_per_hour, place.active = per_hour, True
    db.session.flush()
    audit.record("vistoria_place_saved", "vistoria_place", place.id, before=before,
                 after=audit.snapshot(place), actor=actor, municipality_id=town_id)
    return place


@dataclass(frozen=True)
class DaySlots:
    """A place's slots on a day (local starts), or why there are none."""

    day: date
    slots: tuple[datetime, ...]
    closed: str | None = None


def slots(place: VistoriaPlace, day: date) -> DaySlots:
    """The place's slots on a day: none on a weekday it does not open or a day without office."""
    if str(day.weekday()) not in place.weekdays.split(","):
        art = "aos" if day.weekday() >= 5 else "às"  # sábado and domingo are masculine
        return DaySlots(day, (), f"{place.name} não atende {art} {WEEKDAYS[day.weekday()]}s")
    why = why_no_office(day, laws.calendar_for(place.municipality_id))
    if why:
        return DaySlots(day, (), why)
    step = timedelta(minutes=60 // place.slots_per_hour)
    zone = town_zone(place.municipality_id)
    start = datetime.combine(day, time(place.start_hour), zone)
    end = datetime.combine(day, time(0), zone) + timedelta(hours=place.end_hour)
    out, t = [], start
    while t < end:
        out.append(t)
        t += step
    return DaySlots(day, tuple(out))


def _day_bounds(town_id: int, day: date) -> tuple[datetime, datetime]:
    """The first and the next day's first instant of `day` on the town's clock, in UTC (a day
    of 23 or 25 hours across a clock change has its own length)."""
    town = db.session.get(Municipality, town_id)
    return clock.at_time(town, day), clock.at_time(town, day + timedelta(days=1))


def _taken(place: VistoriaPlace, day: date) -> set[datetime]:
    lo, hi = _day_bounds(place.municipality_id, day)
    rows = db.session.scalars(select(VistoriaAppointment.starts_at).where(
        VistoriaAppointment.place_id == place.id,
        VistoriaAppointment.status == AppointmentStatus.BOOKED,
        VistoriaAppointment.starts_at >= lo, VistoriaAppointment.starts_at < hi))
    return {(r if r.tzinfo else r.replace(tzinfo=UTC)).astimezone(UTC) for r in rows}


def free_slots(place: VistoriaPlace, day: date) -> DaySlots:
    """The day's slots still free at the place."""
    found = slots(place, day)
    taken = _taken(place, day)
    return DaySlots(day, tuple(s for s in found.slots if s.astimezone(UTC) not in taken),
                    found.closed)


def book_vistoria(town_id: int, plate: str, place_id: int | None, when: str, kind: str,
         actor) -> VistoriaAppointment:
    """Book a vehicle of the town into a free slot ("2026-12-10T08:30", the town's time)."""
    errors: dict[str, str] = {}
    vehicle = db.session.scalar(select(Vehicle).where(
        Vehicle.municipality_id == town_id, Vehicle.plate == normalise_plate(plate or "")))
    if vehicle is None:
        errors["plate"] = "veículo não encontrado no cadastro deste município"
    place = db.session.get(VistoriaPlace, place_id) if place_id else None
    if place is None or place.municipality_id != town_id or not place.active:
        errors["place"] = "escolha um local de vistoria do município"
    if kind not in (InspectionKind.PRIOR.value, InspectionKind.PERIODIC.value):
        errors["kind"] = "escolha vistoria prévia ou periódica"
    try:
        start = datetime.fromisoformat((when or "").strip()).replace(tzinfo=town_zone(town_id))
    except ValueError:
        errors["when"] = "escolha o dia e o horário"
        start = None
    if start is not None and place is not None and "place" not in errors:
        today = clock.today(db.session.get(Municipality, town_id))
        if not today <= start.date() <= today + timedelta(days=BOOK_AHEAD_DAYS):
            errors["when"] = f"escolha um dia de hoje até {BOOK_AHEAD_DAYS} dias adiante"
        elif start <= clock.now():
            errors["when"] = "este horário já passou: escolha outro"
        else:
            free = free_slots(place, start.date())
            if start not in free.slots:
                errors["when"] = free.closed or "este horário não está livre neste local"
    if errors:
        raise ValidationFailed(errors)
    appt = VistoriaAppointment(municipality_id=town_id, place_id=place.id, vehicle_id=vehicle.id,
                               kind=InspectionKind(kind), starts_at=start.astimezone(UTC),
                               status=AppointmentStatus.BOOKED,
                               booked_by_id=getattr(actor, "id", None),
                               booked_at=clock.now())
    db.session.add(appt)
    db.session.flush()
    audit.record("vistoria_booked", "vistoria_appointment", appt.id, actor=actor,
                 municipality_id=town_id,
                 after={"vehicle_id": vehicle.id, "place_id": place.id, "kind": kind,
                        "starts_at": appt.starts_at.isoformat()})
    return appt


def mark_appointment(appt: VistoriaAppointment, status: str, actor) -> None:
    """Record that the vehicle did not come (no_show) or cancel the booking, audited."""
    if appt.status != AppointmentStatus.BOOKED:
        raise ValidationFailed({"status": "esta vistoria agendada já foi encerrada"})
    target = AppointmentStatus(status)
    if target == AppointmentStatus.NO_SHOW and clock.utc(appt.starts_at) > clock.now():
        raise ValidationFailed({"status": "o horário ainda não chegou: não há falta a registrar"})
    appt.status, appt.status_at = target, clock.now()
    db.session.flush()
    audit.record(f"vistoria_{target.value}", "vistoria_appointment", appt.id, actor=actor,
                 municipality_id=appt.municipality_id, after={"status": target.value})


def attended(vehicle_id: int, town_id: int, day: date, actor) -> VistoriaAppointment | None:
    """The vehicle's booking of that day, marked done by the vistoria made for it (audited)."""
    appt = next((a for a in day_appointments(town_id, day)
                 if a.vehicle_id == vehicle_id and a.status == AppointmentStatus.BOOKED), None)
    if appt is not None:
        appt.status, appt.status_at = AppointmentStatus.DONE, clock.now()
        db.session.flush()
        audit.record("vistoria_done", "vistoria_appointment", appt.id, actor=actor,
                     municipality_id=town_id, after={"status": "done"})
    return appt


def day_appointments(town_id: int, day: date) -> list[VistoriaAppointment]:
    """The town's booked vistorias of a day (the agent's list), by time."""
    lo, hi = _day_bounds(town_id, day)
    return list(db.session.scalars(select(VistoriaAppointment).where(
        VistoriaAppointment.municipality_id == town_id,
        VistoriaAppointment.starts_at >= lo, VistoriaAppointment.starts_at < hi)
        .order_by(VistoriaAppointment.starts_at)))


def appointments_for_phone(town_id: int, today: date) -> list[dict]:
    """The town's booked vistorias of today and tomorrow, as the field app keeps them offline
    (a phone synced the evening before has the next day's list)."""
    rows = day_appointments(town_id, today) + day_appointments(town_id, today + timedelta(days=1))
    town = db.session.get(Municipality, town_id)
    return [{"id": a.id, "vehicle_id": a.vehicle_id, "plate": a.vehicle.plate,
             "prefix": a.vehicle.prefix or "", "kind": a.kind.value, "kind_label": a.kind.label,
             "starts_at": clock.utc(a.starts_at).isoformat().replace("+00:00", "Z"),
             # the town's day and hour, as the agenda shows them (the phone shows these)
             "day": clock.town_day(town, a.starts_at).isoformat(),
             "time": f"{clock.town_moment(town, a.starts_at):%H:%M}",
             "place": a.place.name} for a in rows if a.status == AppointmentStatus.BOOKED]


def agenda_places(town_id: int) -> list[VistoriaPlace]:
    """The town's places."""
    return list(db.session.scalars(select(VistoriaPlace).where(
        VistoriaPlace.municipality_id == town_id).order_by(VistoriaPlace.name)))
