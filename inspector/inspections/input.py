"""Check an inspection sent by the field app; name every field that can never be accepted.

Its shape and bounds are `inspections.schemas.InspectionBody` (the same model documents it in
/api/openapi.json); what needs the database or the law is checked here. Errors are collected
as {"items[2].photos[0].sha256": "motivo"} and raised together as ValidationFailed (HTTP 422):
the phone shows them to the agent and stops retrying.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Row

from inspector import bodies, clock, laws
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.inspections import evidence, schemas
from inspector.inspections.schemas import MAX_PHOTOS
from inspector.models import Driver, Inspection, ItemResult, Municipality, Photo, Vehicle

RESULTS = {r.value: r for r in ItemResult}


@dataclass
class ParsedPhoto:
    uuid: str
    sha256: str
    mime: str
    size: int
    taken_at: datetime | None


@dataclass
class ParsedItem:
    item_id: str
    result: ItemResult
    note: str
    label: str | None = None
    citation: dict | None = None
    photos: list[ParsedPhoto] = field(default_factory=list)
    grant: schemas.RepairGrant | None = None   # the agent's discretionary deadline (Art. 19)


# Built once: every inspection of every sync runs them.
_VEHICLES = Vehicle.__table__.c
_PHOTO_TAKEN = select(Photo.__table__.c.uuid).where(
    Photo.__table__.c.uuid.in_(bindparam("ids", expanding=True))).limit(1)
_DRIVER_TOWN = select(Driver.__table__.c.municipality_id).where(
    Driver.__table__.c.id == bindparam("driver"))
# The vehicle and, in the same round trip (each is one on PostgreSQL), one of the
# inspection's photo UUIDs already registered, if any (`taken`), and the town of the driver
# the agent chose, if any (`driver_town`)
_VEHICLE = select(_VEHICLES.id, _VEHICLES.municipality_id, _VEHICLES.holder_id,
                  _VEHICLES.service, _PHOTO_TAKEN.scalar_subquery().label("taken"),
                  _DRIVER_TOWN.scalar_subquery().label("driver_town")
                  ).where(_VEHICLES.id == bindparam("id"))


@dataclass
class Parsed:
    vehicle: Row  # id, municipality_id, holder_id, service
    agent_id: int | None  # the author the phone stamped (None: older phones)
    credential_token: str | None
    started_at: datetime
    finished_at: datetime
    rules_day: date
    snapshot_version: int | None
    lat: float | None
    lon: float | None
    accuracy_m: float | None
    ack_name: str | None
    ack_signature: bytes | None
    items: list[ParsedItem]
    driver_id: int | None = None    # who was driving, as the agent chose (None: not told /
    driver_name: str | None = None  # not registered, then driver_name is the typed name)
    kind: str = "street"            # street | prior | periodic (docs/vistoria.md)
    vistoria: schemas.VistoriaTold | None = None  # the inspector's shortening, with its reason


class _Errors(dict):
    def add(self, name: str, reason: str) -> None:
        self.setdefault(name, reason)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_inspection(raw: bytes | str, town: Municipality) -> Parsed:
    """The inspection's values, checked: first its shape and bounds (`schemas.InspectionBody`),
    then against the town, the checklist and the photos already stored; ValidationFailed
    naming every bad field."""
    body = bodies.parse(schemas.InspectionBody, raw)
    e = _Errors()
    ids = [str(ph.id) for it in body.items for ph in it.photos or ()]
    driver = body.driver.id if body.driver is not None else None
    vehicle = db.session.execute(_VEHICLE, {"id": body.vehicle_id, "ids": ids,
                                            "driver": driver}).first()
    # no such vehicle: the photos are looked up on their own (a refusal anyway)
    taken = vehicle.taken if vehicle is not None else _first_taken(ids)
    if vehicle is None or vehicle.municipality_id != town.id:
        vehicle = None
        e.add("vehicle_id", f"veículo não encontrado no cadastro de {town.name}")
    if body.finished_at < body.started_at:
        e.add("finished_at", "o fim da vistoria é anterior ao início")
    loc = body.location
    ack_name, ack_sig = _acknowledgement(body.acknowledgement, e)
    driver_id, driver_name = _driver(body.driver, e)
    if vehicle is not None and driver_id is not None \
            and vehicle.driver_town not in (None, town.id):
        # only a phone of another town knows this id; a driver removed since the snapshot
        # (no row) was still the one driving (docs/sync.md §5)
        e.add("driver.id", f"condutor não encontrado no cadastro de {town.name}")
    day = clock.town_day(town, body.started_at)   # the law in force on the town's day
    items = _items(body.items, e)
    if body.vistoria is not None and body.kind == "street":
        e.add("vistoria", "só uma vistoria prévia ou periódica tem validade a reduzir")
    if vehicle is not None and items:
        _against_checklist(items, town, vehicle, day, e, body.kind, body.vistoria)
    _photos_unused(items, taken, e)
    if e:
        raise ValidationFailed(dict(e))
    return Parsed(vehicle=vehicle, agent_id=body.agent_id, credential_token=body.credential_token,
                  started_at=body.started_at, finished_at=body.finished_at, rules_day=day,
                  snapshot_version=body.snapshot_version,
                  lat=loc.lat if loc else None, lon=loc.lon if loc else None,
                  accuracy_m=loc.accuracy_m if loc else None, ack_name=ack_name,
                  ack_signature=ack_sig, items=items, driver_id=driver_id,
                  driver_name=driver_name, kind=body.kind, vistoria=body.vistoria)


def _acknowledgement(ack: schemas.Acknowledgement | None,
                     e: _Errors) -> tuple[str | None, bytes | None]:
    """The driver's "ciente": a name and an on-screen signature (both optional)."""
    if ack is None:
        return None, None
    sig = None
    if ack.signature_png is not None:
        try:
            sig = evidence.decode_signature(ack.signature_png)
        except ValidationFailed as bad:
            for k, v in bad.errors.items():
                e.add(k, v)
    return (ack.name or "").strip() or None, sig


def _driver(told: schemas.DriverTold | None, e: _Errors) -> tuple[int | None, str | None]:
    """Who was driving (optional, docs/sync.md §2): {"id": 12 | null, "name": "..."}.

    An id is not checked against the registry here: a driver unlinked or removed after the
    phone's snapshot was still the one driving (§5); `driver_told` resolves it in the town."""
    if told is None:
        return None, None
    name = (told.name or "").strip() or None
    if told.id is None and name is None:
        e.add("driver.name", "informe o nome de quem conduzia")
    return told.id, name


@dataclass
class DriverTold:
    """Who was driving, as the agent recorded it in the inspection."""
    driver: Driver | None  # the registered driver (None: not registered / not found)
    name: str | None       # the name the phone showed or the agent typed


def driver_told(insp: Inspection) -> DriverTold | None:
    """The inspection's `driver` as sent (None: the phone did not say, older app)."""
    try:
        raw = insp.payload.get("driver")
    except (TypeError, ValueError, AttributeError):
        return None
    if not isinstance(raw, dict):
        return None
    driver = None
    if _int(raw.get("id")) is not None:
        driver = db.session.get(Driver, raw["id"])
        if driver is not None and driver.municipality_id != insp.municipality_id:
            driver = None
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    return DriverTold(driver, (driver.name if driver is not None else name))


def registry_answers(insp: Inspection) -> dict[str, dict]:
    """The items the registry already knew failing, by item id, as sent: {"reason": the
    card's words, "overruled": the agent answered otherwise (with a note)}. Empty for bodies
    without them (older apps). The review reads it beside the agent's answer."""
    try:
        items = insp.payload.get("items")
    except (TypeError, ValueError, AttributeError):
        return {}
    out = {}
    for it in items if isinstance(items, list) else ():
        known = it.get("registry") if isinstance(it, dict) else None
        if isinstance(known, dict) and isinstance(it.get("item_id"), str):
            out[it["item_id"]] = {"reason": str(known.get("reason") or ""),
                                  "overruled": known.get("overruled") is True}
    return out


def bulk_answers(insp: Inspection) -> set[str]:
    """The items the agent answered "conforme" with the one tap "Marcar os demais como
    conformes" (the body's items[].bulk), not one by one; empty for older apps' bodies."""
    try:
        items = insp.payload.get("items")
    except (TypeError, ValueError, AttributeError):
        return set()
    if not isinstance(items, list):
        return set()
    return {it["item_id"] for it in items if isinstance(it, dict) and it.get("bulk") is True
            and isinstance(it.get("item_id"), str)}


def grant_told(insp: Inspection, item_id: str) -> schemas.RepairGrant | None:
    """The grant the agent chose for this item in the inspection's body (None: none, or an
    older app). The body was checked when it arrived."""
    try:
        raw = insp.payload.get("items")
        found = next((it.get("grant") for it in raw if isinstance(it, dict)
                      and it.get("item_id") == item_id), None)
        return schemas.RepairGrant.model_validate(found) if isinstance(found, dict) else None
    except (TypeError, ValueError, AttributeError):
        return None


def _items(raw: list[schemas.Item], e: _Errors) -> list[ParsedItem]:
    out, seen = [], set()
    for i, it in enumerate(raw):
        if it.item_id in seen:
            e.add(f"items[{i}].item_id", f"o item {it.item_id} aparece duas vezes")
        seen.add(it.item_id)
        photos = [ParsedPhoto(str(ph.id), ph.sha256, ph.mime, ph.size, ph.taken_at)
                  for ph in it.photos or ()]
        note = (it.note or "").strip()
        if it.registry is not None:
            # the agent overrules what the registry knew only with a reason
            if it.registry.overruled != (it.result != "fail"):
                e.add(f"items[{i}].registry.overruled",
                      "discordar do cadastro é responder conforme ou não se aplica")
            elif it.registry.overruled and not note:
                e.add(f"items[{i}].note", "explique por que discorda do cadastro")
        if it.bulk and it.result != "ok":
            e.add(f"items[{i}].bulk", "só um item conforme é marcado com “os demais conformes”")
        out.append(ParsedItem(it.item_id, RESULTS[it.result], note, photos=photos,
                              grant=it.grant))
        if it.grant is not None and it.result != "fail":
            e.add(f"items[{i}].grant", "só um item não conforme recebe prazo concedido")
        if it.grant is not None and len(it.grant.reason.strip()) < schemas.MIN_GRANT_REASON:
            e.add(f"items[{i}].grant.reason", "escreva o motivo da concessão do prazo")
    if sum(len(i.photos) for i in out) > MAX_PHOTOS:
        e.add("items", f"fotos demais (máximo {MAX_PHOTOS} por vistoria)")
    return out


def _against_checklist(items: list[ParsedItem], town: Municipality, vehicle: Vehicle,
                       day: date, e: _Errors, kind: str = "street",
                       told: schemas.VistoriaTold | None = None) -> None:
    """Every item must be in the checklist in force that day; failures need their photos; a
    vistoria answers exactly the items its kind checks (docs/vistoria.md)."""
    service = vehicle.service.value
    try:
        found = laws.checklist(town, service, day)
    except laws.NoLawInForce:
        e.add("started_at", f"nenhuma lei de {town.name} rege o serviço de {service} "
                            f"em {day.strftime('%d/%m/%Y')}")
        return
    if found is None:  # rules engine not installed: accept as recorded
        return
    items_by_id = {r["id"]: r for r in found["items"]}
    for i, item in enumerate(items):
        rule = items_by_id.get(item.item_id)
        if rule is None:
            e.add(f"items[{i}].item_id", f"o item {item.item_id} não faz parte do checklist "
                                         f"em vigor em {day.strftime('%d/%m/%Y')}")
            continue
        item.label, item.citation = rule.get("label"), rule.get("citation")
        if (item.result == ItemResult.FAIL and rule.get("photo_required_on_failure")
                and not item.photos):
            e.add(f"items[{i}].photos", "este item não conforme exige foto")
        if item.grant is not None:
            _grant_allowed(item.grant, rule.get("grant"), found["law"], f"items[{i}].grant", e)
    if kind != "street":
        _vistoria_items(items, town, service, kind, day, told, e)


def vistoria_plan(town: Municipality, service: str, kind: str, day: date):
    """The law's plan for this kind of vistoria that day (rules.VistoriaPlan), or None."""
    from inspector import rules

    return rules.vistoria_plan(town.slug, service, kind, day, town.population_seat,
                               laws.decrees_in_force(town, day))


def _vistoria_items(items: list[ParsedItem], town: Municipality, service: str, kind: str,
                    day: date, told: schemas.VistoriaTold | None, e: _Errors) -> None:
    """A vistoria of a kind the law sets, answering every item it checks and nothing else; a
    shortened validity only where the law allows it (rules.VistoriaPlan)."""
    from inspector import rules

    plan = vistoria_plan(town, service, kind, day)
    if plan is None:
        e.add("kind", rules.why_none(town.slug, service, kind, day))
        return
    wanted = [i.id for i in plan.items]
    for i, item in enumerate(items):
        if item.item_id not in wanted and item.label is not None:
            e.add(f"items[{i}].item_id", f"o item {item.item_id} não é verificado na "
                                         f"{plan.label.lower()}")
    given = {it.item_id for it in items}
    missing = [iid for iid in wanted if iid not in given]
    if missing:
        e.add("items", f"a {plan.label.lower()} verifica todos os seus itens: faltam "
                       f"{', '.join(missing)}")
    if told is not None and any(it.result == ItemResult.FAIL for it in items):
        e.add("vistoria.shorten_until", "só uma vistoria aprovada (nenhum item não conforme) "
                                        "tem validade a reduzir")
    elif told is not None:
        problem = plan.shortening_problem(day, told.shorten_until)
        if problem:
            e.add("vistoria.shorten_until", problem)


def _grant_allowed(grant: schemas.RepairGrant, option: dict | None, law: str, name: str,
                   e: _Errors) -> None:
    """The law must allow this grant for this item (Tapurah Art. 19, rules.grant_option)."""
    if option is None:
        e.add(name, f"a {law} não prevê prazo concedido a critério do agente")
    elif not option["eligible"]:
        e.add(name, f"prazo do {option['citation']['article']} não pode ser concedido: "
                    f"{option['refusal']}")
    elif grant.days > option["max_days"]:
        e.add(f"{name}.days", f"o prazo concedido vai de 1 a {option['max_days']} dias "
                              f"({option['citation']['article']})")


def _first_taken(ids: list[str]) -> str | None:
    """One of these photo UUIDs already registered (None: none is)."""
    return db.session.scalar(_PHOTO_TAKEN, {"ids": ids}) if ids else None


def _photos_unused(items: list[ParsedItem], taken: str | None, e: _Errors) -> None:
    """A photo UUID belongs to one inspection only, once (`taken`: one already registered)."""
    ids = [ph.uuid for it in items for ph in it.photos]
    if len(ids) != len(set(ids)):
        e.add("items", "a mesma foto aparece duas vezes")
    if taken is not None:
        e.add("items", f"foto já registrada em outra vistoria: {taken}")
