"""The holder's side of the vistoria: on the holder page (opened with a notice's access code)
the holder sees each of their vehicles' vistoria, books or moves its vistoria into a free slot
of the town's agenda, and sees the reminders sent. Only their own vehicles, only free slots of
days with office, never in the past; every booking audited as the holder's."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select

from inspector import clock, laws, registry, rules
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.identifiers import format_plate
from inspector.inspections import vistoria_plan
from inspector.models import (
    AppointmentStatus,
    Holder,
    InspectionKind,
    Municipality,
    Vehicle,
    Vistoria,
    VistoriaAppointment,
    VistoriaPlace,
    VistoriaResult,
)
from inspector.rules import fmt_date, why_no_office
from inspector.vistorias import agenda, reminders
from inspector.vistorias.queries import to_fix

# How far ahead the holder page offers slots (the admin may book further, agenda.BOOK_AHEAD_DAYS).
HOLDER_DAYS_AHEAD = 21
CHANNELS = {"push": "notificação no celular", "email": "e-mail"}


def actor_of(holder: Holder) -> str:
    """Who the audit names for a holder's own booking (holders have no account)."""
    return f"titular:{holder.id}"


def kind_for(vehicle: Vehicle, day: date) -> str | None:
    """The vistoria a vehicle books: periodic once it has one on record, prior before; None
    where the town's law sets no such vistoria (Nortelândia Lei 127/2009)."""
    town = db.session.get(Municipality, vehicle.municipality_id)
    wanted = (InspectionKind.PERIODIC if vehicle.last_vistoria_on is not None
              else InspectionKind.PRIOR).value
    for kind in (wanted, InspectionKind.PRIOR.value):
        if vistoria_plan(town, vehicle.service.value, kind, day) is not None:
            return kind
    return None


def _booking(vehicle_id: int, now: datetime) -> VistoriaAppointment | None:
    return db.session.scalar(select(VistoriaAppointment).where(
        VistoriaAppointment.vehicle_id == vehicle_id,
        VistoriaAppointment.status == AppointmentStatus.BOOKED,
        VistoriaAppointment.starts_at > now.astimezone(UTC))
        .order_by(VistoriaAppointment.starts_at).limit(1))


@dataclass
class VehicleVistoria:
    """One vehicle's vistoria as the holder page shows it."""

    id: int
    plate: str
    prefix: str
    kind: str | None           # what a booking would be (None: the law sets no vistoria)
    kind_label: str
    state: str                 # one plain sentence: valid until, overdue since, never made
    overdue: bool
    rejected: dict | None      # the last vistoria, when rejected: return day and what to fix
    booking: dict | None       # the open booking: place, day and hour
    reminders: list[dict] = field(default_factory=list)


@dataclass
class HolderVistorias:
    """Every vehicle of the holder, and the free slots a booking may take."""

    vehicles: list[VehicleVistoria]
    slots: list[tuple[str, list[tuple[str, str]]]]   # (group label, [(value, label)])
    places: list[dict]


def _state(v: Vehicle, today: date) -> tuple[str, bool]:
    validity = registry.vistoria_valid_until(v, today)
    if v.last_vistoria_on is None:
        return "nenhuma vistoria registrada", True
    if validity is None:
        return f"última vistoria em {fmt_date(v.last_vistoria_on)}", False
    if validity.until < today:
        return f"vistoria vencida em {fmt_date(validity.until)}", True
    return f"vistoria válida até {fmt_date(validity.until)}", False


def _rejected(v: Vehicle) -> dict | None:
    last = db.session.scalar(select(Vistoria).where(Vistoria.vehicle_id == v.id)
                             .order_by(Vistoria.performed_on.desc(), Vistoria.id.desc()).limit(1))
    if last is None or last.result != VistoriaResult.REJECTED:
        return None
    return {"on": fmt_date(last.performed_on),
            "return_on": fmt_date(last.return_on) if last.return_on else None,
            "to_fix": to_fix(last)}


def _appointment(a: VistoriaAppointment) -> dict:
    local = clock.town_moment(db.session.get(Municipality, a.municipality_id), a.starts_at)
    return {"id": a.id, "place": a.place.name, "address": a.place.address,
            "when": f"{local:%d/%m/%Y} às {local:%H:%M}", "kind": a.kind.label}


def slot_value(place: VistoriaPlace, start: datetime) -> str:
    """A slot as the form sends it: '<place>@<YYYY-MM-DDTHH:MM>' in the town's time."""
    return f"{place.id}@{start.astimezone(agenda.town_zone(place.municipality_id)):%Y-%m-%dT%H:%M}"


def free_slots(town_id: int, now: datetime, days: int = HOLDER_DAYS_AHEAD):
    """The town's free slots from now on, grouped by day (days without office have none)."""
    today = clock.town_day(db.session.get(Municipality, town_id), now)
    out = []
    places = [p for p in agenda.agenda_places(town_id) if p.active]
    for n in range(days + 1):
        day = today + timedelta(days=n)
        options = []
        for p in places:
            for start in agenda.free_slots(p, day).slots:
                if start > now:
                    label = f"{start:%H:%M}" + (f" · {p.name}" if len(places) > 1 else "")
                    options.append((slot_value(p, start), label))
        if options:
            out.append((f"{agenda.WEEKDAYS[day.weekday()]}, {day:%d/%m/%Y}", sorted(
                options, key=lambda o: o[0].split("@")[1])))
    return out


def holder_vistorias(holder: Holder, now: datetime | None = None) -> HolderVistorias | None:
    """The holder page's vistoria section; None when no vehicle of the holder has one."""
    now = now or clock.now()
    town = db.session.get(Municipality, holder.municipality_id)
    today = clock.town_day(town, now)
    vehicles = []
    for v in sorted(holder.vehicles, key=lambda v: (v.prefix or "", v.plate)):
        kind = kind_for(v, today)
        if kind is None:  # the law sets no vistoria (Nortelândia Lei 127/2009)
            continue
        state, overdue = _state(v, today)
        booking = _booking(v.id, now)
        vehicles.append(VehicleVistoria(
            id=v.id, plate=format_plate(v.plate), prefix=v.prefix or "", kind=kind,
            kind_label=InspectionKind(kind).label if kind else "", state=state,
            overdue=overdue, rejected=_rejected(v),
            booking=_appointment(booking) if booking else None,
            reminders=[{"sent": f"{clock.town_moment(town, r.sent_at):%d/%m/%Y}",
                        "channel": CHANNELS.get(r.channel, r.channel),
                        "lead": r.lead_days, "due": fmt_date(r.due_on)}
                       for r in reminders.reminders_for_vehicle(v.id)]))
    if not vehicles:
        return None
    places = [{"name": p.name, "address": p.address} for p in agenda.agenda_places(holder.municipality_id)
              if p.active]
    return HolderVistorias(vehicles, free_slots(holder.municipality_id, now), places)


def book_for_holder(holder: Holder, vehicle_id: str, slot: str, now: datetime | None = None
         ) -> VistoriaAppointment:
    """Book (or move) the vistoria of one of the holder's vehicles into a free slot, in the
    caller's transaction: the open booking, if any, is cancelled and the new one made, both
    audited as the holder's. Refused (ValidationFailed, nothing written) for a vehicle not
    theirs, a law without vistoria, a slot not free, a closed day, a past hour."""
    now = now or clock.now()
    raw = (vehicle_id or "").strip()
    vehicle = db.session.get(Vehicle, int(raw)) if raw.isascii() and raw.isdigit() \
        and len(raw) < 10 else None
    if vehicle is None or vehicle.holder_id != holder.id:
        raise ValidationFailed({"vehicle": "escolha um dos seus veículos"})
    town = db.session.get(Municipality, vehicle.municipality_id)
    kind = kind_for(vehicle, clock.town_day(town, now))
    if kind is None:
        raise ValidationFailed({"vehicle": "a lei do município não prevê vistoria para este "
                                           "veículo"})
    place, sep, when = (slot or "").strip().partition("@")
    if not sep or not (place.isascii() and place.isdigit() and len(place) < 10):
        raise ValidationFailed({"slot": "escolha um dia e horário da lista"})
    try:
        start = datetime.fromisoformat(when).replace(tzinfo=clock.zone_of(town))
    except ValueError:
        raise ValidationFailed({"slot": "escolha um dia e horário da lista"}) from None
    if start <= now:
        raise ValidationFailed({"slot": "este horário já passou: escolha outro"})
    if start.date() > clock.town_day(town, now) + timedelta(days=HOLDER_DAYS_AHEAD):
        raise ValidationFailed({"slot": f"escolha um dia nos próximos {HOLDER_DAYS_AHEAD} "
                                        "dias"})
    actor = actor_of(holder)
    old = _booking(vehicle.id, now)
    if old is not None:
        agenda.mark_appointment(old, AppointmentStatus.CANCELLED.value, actor)
    try:
        return agenda.book_vistoria(vehicle.municipality_id, vehicle.plate, int(place), when, kind, actor)
    except ValidationFailed as e:
        # the holder chose from a list: say it plainly, whatever field failed
        raise ValidationFailed({"slot": e.errors.get("when") or e.errors.get("place")
                                or next(iter(e.errors.values()))}) from None


def _next_office_day(town: Municipality, today: date) -> date | None:
    calendar = laws.calendar_for(town.id)
    for n in range(15):
        day = today + timedelta(days=n)
        if not why_no_office(day, calendar):
            return day
    return None


def proof_for(act, holder: Holder | None, now: datetime | None = None) -> dict | None:
    """How the holder proves the act's finding fixed (rules.proof_of, from the pack): what to
    present or bring, where and when, with the article; None when the pack knows nothing of
    the finding or the act has no finding (a sanction decided in the office)."""
    now = now or clock.now()
    town = db.session.get(Municipality, act.municipality_id)
    today = clock.town_day(town, now)
    vehicle = db.session.get(Vehicle, act.vehicle_id) if act.vehicle_id else None
    service = vehicle.service.value if vehicle is not None else \
        (act.pack_id or "").rsplit("-", 1)[-1]
    if service not in rules.SERVICES or not act.rule_id:
        return None
    try:
        proof = rules.proof_of(rules.resolve(town.slug, service, today), act.rule_id)
    except rules.RulesError:
        return None
    if proof is None:
        return None
    out = {"how": proof.how, "what": proof.what, "where_kind": proof.where,
           "article": f"{proof.citation.law}, {proof.citation.article}" if proof.citation else None,
           "places": [], "booking": None, "office": None}
    if proof.where == "vistoria":
        out["kind_label"] = InspectionKind(proof.vistoria_kind).label
        out["places"] = [f"{p.name}" + (f", {p.address}" if p.address else "")
                         for p in agenda.agenda_places(town.id) if p.active]
        if vehicle is not None and (holder is None or vehicle.holder_id == holder.id):
            booking = _booking(vehicle.id, now)
            out["booking"] = _appointment(booking) if booking else None
    if proof.where in ("office", "vistoria"):
        day = _next_office_day(town, today)
        out["office"] = {"name": f"Prefeitura Municipal de {town.name}",
                         "next_day": fmt_date(day) if day else None,
                         "today": day == today}
    return out
