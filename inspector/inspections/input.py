"""Check an inspection sent by the field app; name every field that can never be accepted.

Errors are collected as {"items[2].photos[0].sha256": "motivo"} and raised together
as ValidationFailed (HTTP 422): the phone shows them to the agent and stops retrying.
"""
from __future__ import annotations

import json
import re
import uuid as uuid_mod
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Row

from inspector import clock
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.inspections import evidence
from inspector.laws import in_force as field_rules
from inspector.models import Driver, Inspection, ItemResult, Municipality, Photo, Vehicle

MAX_ITEMS = 200
MAX_PHOTOS = 60
MAX_NOTE = 2000
MAX_NAME = 200
MAX_TOKEN = 200
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
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


# Built once: every inspection of every sync runs them.
_VEHICLES = Vehicle.__table__.c
_VEHICLE = select(_VEHICLES.id, _VEHICLES.municipality_id, _VEHICLES.holder_id,
                  _VEHICLES.service).where(_VEHICLES.id == bindparam("id"))
_PHOTOS_TAKEN = select(Photo.__table__.c.uuid).where(
    Photo.__table__.c.uuid.in_(bindparam("ids", expanding=True)))


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


class _Errors(dict):
    def add(self, name: str, reason: str) -> None:
        self.setdefault(name, reason)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else None


def _moment(value: Any, name: str, errors: _Errors, required: bool = True) -> datetime | None:
    """An ISO 8601 instant with its UTC offset (e.g. 2026-11-30T13:02:11.120Z)."""
    if value is None and not required:
        return None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = None
        if moment is not None and moment.tzinfo is not None and 2000 <= moment.year <= 2100:
            return moment
    errors.add(name, "data e hora inválidas (use ISO 8601 com fuso, ex. 2026-11-30T13:02:11Z)")
    return None


def _uuid(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        return str(uuid_mod.UUID(value))
    except ValueError:
        return None


def parse_inspection(payload: dict, town: Municipality) -> Parsed:
    """The inspection's values, checked; ValidationFailed naming every bad field."""
    e = _Errors()
    vehicle = None
    vid = _int(payload.get("vehicle_id"))
    if vid is None:
        e.add("vehicle_id", "informe o veículo")
    else:
        vehicle = db.session.execute(_VEHICLE, {"id": vid}).first()
        if vehicle is None or vehicle.municipality_id != town.id:
            vehicle = None
            e.add("vehicle_id", f"veículo não encontrado no cadastro de {town.name}")
    agent_id = payload.get("agent_id")
    if agent_id is not None and _int(agent_id) is None:
        e.add("agent_id", "identificação do agente inválida")
    token = payload.get("credential_token")
    if token is not None and (not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN):
        e.add("credential_token", "código de credencial inválido")
    started = _moment(payload.get("started_at"), "started_at", e)
    finished = _moment(payload.get("finished_at"), "finished_at", e)
    if started and finished and finished < started:
        e.add("finished_at", "o fim da vistoria é anterior ao início")
    version = payload.get("snapshot_version")
    if version is not None and (_int(version) is None or version < 0):
        e.add("snapshot_version", "versão do cadastro inválida")
    lat, lon, acc = _location(payload.get("location"), e)
    ack_name, ack_sig = _acknowledgement(payload.get("acknowledgement"), e)
    driver_id, driver_name = _driver(payload.get("driver"), e)
    host = payload.get("scanned_host")
    if host is not None and (not isinstance(host, str) or not _HOST.fullmatch(host)):
        e.add("scanned_host", "endereço do QR inválido")
    day = clock.local_day(started) if started else None
    items = _items(payload.get("items"), e)
    if vehicle is not None and day is not None and items:
        _against_checklist(items, town, vehicle, day, e)
    _photos_unused(items, e)
    if e:
        raise ValidationFailed(dict(e))
    return Parsed(vehicle=vehicle, agent_id=agent_id, credential_token=token, started_at=started,
                  finished_at=finished, rules_day=day, snapshot_version=version, lat=lat,
                  lon=lon, accuracy_m=acc, ack_name=ack_name, ack_signature=ack_sig,
                  items=items, driver_id=driver_id, driver_name=driver_name)


def _location(loc: Any, e: _Errors) -> tuple[float | None, float | None, float | None]:
    if loc is None:
        return None, None, None
    if not isinstance(loc, dict):
        e.add("location", "posição inválida")
        return None, None, None
    lat, lon = _number(loc.get("lat")), _number(loc.get("lon"))
    acc = loc.get("accuracy_m")
    if lat is None or not -90 <= lat <= 90:
        e.add("location.lat", "latitude inválida")
    if lon is None or not -180 <= lon <= 180:
        e.add("location.lon", "longitude inválida")
    if acc is not None and (_number(acc) is None or acc < 0):
        e.add("location.accuracy_m", "precisão inválida")
    return lat, lon, _number(acc) if acc is not None else None


def _acknowledgement(ack: Any, e: _Errors) -> tuple[str | None, bytes | None]:
    """The driver's "ciente": a name and an on-screen signature (both optional)."""
    if ack is None:
        return None, None
    if not isinstance(ack, dict):
        e.add("acknowledgement", "ciente inválido")
        return None, None
    name = ack.get("name")
    if name is not None and (not isinstance(name, str) or len(name.strip()) > MAX_NAME):
        e.add("acknowledgement.name", "nome inválido")
        name = None
    sig = None
    if ack.get("signature_png") is not None:
        try:
            sig = evidence.decode_signature(ack["signature_png"])
        except ValidationFailed as bad:
            for k, v in bad.errors.items():
                e.add(k, v)
    return (name.strip() or None) if isinstance(name, str) else None, sig


def _driver(raw: Any, e: _Errors) -> tuple[int | None, str | None]:
    """Who was driving (optional, docs/sync.md §2): {"id": 12 | null, "name": "..."}.

    An id is not checked against the registry here: a driver unlinked or removed after the
    phone's snapshot was still the one driving (§5); `driver_told` resolves it in the town."""
    if raw is None:
        return None, None
    if not isinstance(raw, dict):
        e.add("driver", "condutor inválido")
        return None, None
    did, name = raw.get("id"), raw.get("name")
    if did is not None and (_int(did) is None or did <= 0):
        e.add("driver.id", "identificação do condutor inválida")
        did = None
    if name is not None and (not isinstance(name, str) or len(name.strip()) > MAX_NAME):
        e.add("driver.name", "nome do condutor inválido")
        name = None
    name = name.strip() or None if isinstance(name, str) else None
    if did is None and name is None and "driver.id" not in e:
        e.add("driver.name", "informe o nome de quem conduzia")
    return did, name


@dataclass
class DriverTold:
    """Who was driving, as the agent recorded it in the inspection."""
    driver: Driver | None  # the registered driver (None: not registered / not found)
    name: str | None       # the name the phone showed or the agent typed


def driver_told(insp: Inspection) -> DriverTold | None:
    """The inspection's `driver` as sent (None: the phone did not say, older app)."""
    try:
        raw = json.loads(insp.body).get("driver")
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


def _items(raw: Any, e: _Errors) -> list[ParsedItem]:
    if not isinstance(raw, list) or not raw:
        e.add("items", "a vistoria não tem itens")
        return []
    if len(raw) > MAX_ITEMS:
        e.add("items", f"itens demais (máximo {MAX_ITEMS})")
        return []
    out, seen = [], set()
    for i, it in enumerate(raw):
        p = f"items[{i}]"
        if not isinstance(it, dict):
            e.add(p, "item inválido")
            continue
        item_id = it.get("item_id")
        if not isinstance(item_id, str) or not 0 < len(item_id) <= 120:
            e.add(f"{p}.item_id", "item sem identificação")
            continue
        if item_id in seen:
            e.add(f"{p}.item_id", f"o item {item_id} aparece duas vezes")
        seen.add(item_id)
        result = RESULTS.get(it.get("result"))
        if result is None:
            e.add(f"{p}.result", "resultado deve ser ok, fail ou na")
            continue
        note = it.get("note") or ""
        if not isinstance(note, str) or len(note) > MAX_NOTE:
            e.add(f"{p}.note", f"observação inválida (até {MAX_NOTE} caracteres)")
            note = ""
        out.append(ParsedItem(item_id, result, note.strip(), photos=_item_photos(it, p, e)))
    if sum(len(i.photos) for i in out) > MAX_PHOTOS:
        e.add("items", f"fotos demais (máximo {MAX_PHOTOS} por vistoria)")
    return out


def _item_photos(it: dict, p: str, e: _Errors) -> list[ParsedPhoto]:
    raw = it.get("photos") or []
    if not isinstance(raw, list):
        e.add(f"{p}.photos", "lista de fotos inválida")
        return []
    out = []
    for j, ph in enumerate(raw):
        q = f"{p}.photos[{j}]"
        if not isinstance(ph, dict):
            e.add(q, "foto inválida")
            continue
        pid, sha = _uuid(ph.get("id")), ph.get("sha256")
        mime, size = ph.get("mime"), _int(ph.get("size"))
        if pid is None:
            e.add(f"{q}.id", "identificador da foto inválido (UUID)")
        if not isinstance(sha, str) or not _HEX64.match(sha):
            e.add(f"{q}.sha256", "SHA-256 inválido (64 algarismos hexadecimais minúsculos)")
        if mime not in evidence.MIME_FORMATS:
            e.add(f"{q}.mime", "tipo de imagem não aceito (JPEG, PNG, WebP ou HEIC)")
        if size is None or not 0 < size <= evidence.MAX_PHOTO_BYTES:
            e.add(f"{q}.size", "tamanho inválido (até 15 MB)")
        taken = _moment(ph.get("taken_at"), f"{q}.taken_at", e, required=False)
        if pid and isinstance(sha, str) and mime in evidence.MIME_FORMATS and size:
            out.append(ParsedPhoto(pid, sha, mime, size, taken))
    return out


def _against_checklist(items: list[ParsedItem], town: Municipality, vehicle: Vehicle,
                       day: date, e: _Errors) -> None:
    """Every item must be in the checklist in force that day; failures need their photos."""
    service = vehicle.service.value
    try:
        found = field_rules.checklist(town, service, day)
    except field_rules.NoLawInForce:
        e.add("started_at", f"nenhuma lei de {town.name} rege o serviço de {service} "
                            f"em {day.strftime('%d/%m/%Y')}")
        return
    if found is None:  # rules engine not installed: accept as recorded
        return
    rules = {r["id"]: r for r in found["items"]}
    for i, item in enumerate(items):
        rule = rules.get(item.item_id)
        if rule is None:
            e.add(f"items[{i}].item_id", f"o item {item.item_id} não faz parte do checklist "
                                         f"em vigor em {day.strftime('%d/%m/%Y')}")
            continue
        item.label, item.citation = rule.get("label"), rule.get("citation")
        if (item.result == ItemResult.FAIL and rule.get("photo_required_on_failure")
                and not item.photos):
            e.add(f"items[{i}].photos", "este item não conforme exige foto")


def _photos_unused(items: list[ParsedItem], e: _Errors) -> None:
    """A photo UUID belongs to one inspection only, once."""
    ids = [ph.uuid for it in items for ph in it.photos]
    if len(ids) != len(set(ids)):
        e.add("items", "a mesma foto aparece duas vezes")
    if ids:
        taken = db.session.scalars(_PHOTOS_TAKEN, {"ids": ids}).all()
        if taken:
            e.add("items", f"foto já registrada em outra vistoria: {taken[0]}")
