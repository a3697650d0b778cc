"""The plumbing under the registry services: reading rows back as form values, the
shared field checks, and writing a row with its audit entry (now, or at `settle()` in
a batch). The public interface is `inspector.registry.records`."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from sqlalchemy import inspect as sa_inspect

from inspector import audit, rules
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.identifiers import (
    format_phone,
    is_plate,
    normalise_phone,
    normalise_plate,
    phone_problem,
)
from inspector.models import (
    Driver,
    Holder,
    InsurancePolicy,
    Licence,
    Municipality,
    Permit,
    Service,
    Status,
    Vehicle,
)
from inspector.registry.lookup import Lookup
from inspector.registry.values import REQUIRED, Fields, label, text_of

NOT_FOUND = "não encontrado neste município"
STATUS_CHANGE_NEEDS = "para mudar a situação use “Mudar situação” e informe o motivo"
_CODE = re.compile(r"^[A-Z0-9][A-Z0-9./\- ]*$")


# ---------------------------------------------------------------- reading rows back
def as_data(row: Any) -> dict[str, str]:
    """A row as the text values a form shows (and `save_*` accepts back unchanged)."""
    mapper = sa_inspect(row).mapper
    out = {a.key: text_of(getattr(row, a.key)) for a in mapper.column_attrs
           if a.key not in ("id", "photo", "photo_mime", "photo_thumb", "name_folded")
           and not a.columns[0].foreign_keys}
    if isinstance(row, Holder):
        out["phone"] = format_phone(row.phone)  # stored as digits; accepted back as shown
    if isinstance(row, (Vehicle, Driver, Permit)):
        out["holder_tax_id"] = row.holder.tax_id if row.holder else ""
    if isinstance(row, Vehicle):
        out.pop("kind")  # follows the service
        out["stand_code"] = row.stand.code if row.stand else ""
    if isinstance(row, (Licence, InsurancePolicy)):
        out["vehicle_plate"] = row.vehicle.plate
    if isinstance(row, Licence):
        out["permit_number"] = row.permit.number if row.permit else ""
    if isinstance(row, Driver):
        out["vehicle_plate"] = ""  # links are added, never replaced, through this field
    return out


def _merged(row: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """The values to validate: the row's current ones overlaid with what was given."""
    base = as_data(row) if row is not None else {}
    base.update(data)
    return base


def _snap(row: Any, extra: Callable[[Any], dict] | None = None) -> dict:
    """An audit snapshot with every column loaded (an expired row is refreshed first)."""
    for attr in sa_inspect(row).mapper.column_attrs:
        if attr.key not in ("photo", "photo_thumb", "name_folded"):
            getattr(row, attr.key)
    out = audit.snapshot(row)
    if extra:
        out.update(extra(row))
    return out


def _write(entity: str, model: type, row: Any, values: dict, *, town_id: int, actor,
           lookup: Lookup, extra: Callable[[Any], dict] | None = None,
           apply: Callable[[Any], None] | None = None) -> Any:
    """Create or update a row, flush, and audit it when anything changed.

    In a batch (`lookup.pending` is a dict: the CSV import) the flush and the audit
    entry wait for `settle()`, which writes one entry per record with its net change.
    """
    creating = row is None
    before = None if creating else _snap(row, extra)
    old_keys = {} if creating else lookup.keys_of(row)
    if creating:
        row = model(municipality_id=town_id, **values)
        db.session.add(row)
    else:
        for key, value in values.items():
            if getattr(row, key) != value:
                setattr(row, key, value)
    if apply:
        apply(row)
    lookup.moved(row, old_keys)
    if lookup.pending is not None:
        lookup.pending.setdefault(id(row), (entity, row, before, extra, town_id, actor))
        return row
    db.session.flush()
    _audit(entity, row, before, extra, town_id, actor)
    return row


def _audit(entity: str, row: Any, before: dict | None, extra, town_id: int, actor) -> bool:
    after = _snap(row, extra)
    if before == after:
        return False
    audit.record(f"{entity}_{'created' if before is None else 'updated'}", entity, row.id,
                 before=before, after=after, actor=actor, municipality_id=town_id)
    return True


def settle(lookup: Lookup) -> int:
    """End a batch: flush its rows, write one audit entry per record that changed."""
    pending, lookup.pending = lookup.pending or {}, None
    db.session.flush()
    return sum(_audit(entity, row, before, extra, town_id, actor)
               for entity, row, before, extra, town_id, actor in pending.values())


def _check(f: Fields) -> None:
    if f.errors:
        raise ValidationFailed(dict(f.errors))


def _code(f: Fields, name: str, max_len: int) -> str:
    """An identifier people type (stand code, permit number): upper case, trimmed."""
    value = f.text(name, max_len=max_len).upper()
    if value and not _CODE.match(value):
        f.fail(name, "use letras, algarismos, ponto, barra ou hífen")
    return value


def _status_on_create(f: Fields, row: Any) -> Status | None:
    """Status is set when a row is created; afterwards only `change_status` changes it."""
    status = f.choice("status", Status, default=Status.ACTIVE)
    if row is not None and status is not None and status != row.status:
        f.fail("status", STATUS_CHANGE_NEEDS)
    return status


def town_services(town_id: int) -> set[str]:
    """The services ('taxi', 'mototaxi') the town's laws regulate: those it has a rule pack for."""
    town = db.session.get(Municipality, town_id)
    return {p.service for p in rules.packs_for_town(town.slug)} if town else set()


def _covered(f: Fields, town_id: int, name: str, service: Service | None,
             current: Service | None = None) -> None:
    """Refuse a service the town's laws do not regulate (no rule pack for it: a moto-taxi in
    Sapezal), when a record is given it; a record that already has it keeps it."""
    if service is None or service == current or name in f.errors:
        return
    if service.value not in town_services(town_id):
        town = db.session.get(Municipality, town_id)
        f.fail(name, f"{town.name} não regulamenta {label(service).lower()}: não há lei "
                     "municipal para esse serviço")


def _ref(f: Fields, lookup: Lookup, name: str, model: type, attr: str, key: str,
         *, required: bool, what: str) -> Any:
    """A row of the town referenced by its natural key, or an error on `name`."""
    if not key:
        if required and not f.raw(name):
            f.fail(name, REQUIRED)
        return None
    found = lookup.get(model, attr, key)
    if found is None:
        f.fail(name, f"{what} {f.raw(name)!r} {NOT_FOUND}")
    return found


def _unique(f: Fields, lookup: Lookup, name: str, model: type, attr: str, key: str,
            row: Any, taken: str) -> None:
    if key and name not in f.errors:
        other = lookup.get(model, attr, key)
        if other is not None and other is not row:
            f.fail(name, f"{taken} neste município")


def _period(f: Fields, start: date | None, end: date | None, end_name: str) -> None:
    if start and end and end <= start:
        f.fail(end_name, "deve ser depois do início da validade")


def _plate(f: Fields, name: str, *, required: bool = True) -> str:
    plate = normalise_plate(f.raw(name))
    if not plate:
        if required:
            f.fail(name, REQUIRED)
    elif not is_plate(plate):
        f.fail(name, f"placa inválida: {f.raw(name)!r} (use ABC1234 ou ABC1D23)")
    return plate


def _phone(f: Fields, name: str) -> str:
    """An optional Brazilian telephone number, stored as its digits (DDD + number)."""
    raw = f.raw(name)
    if not raw:
        return ""
    why = phone_problem(raw)
    if why:
        f.fail(name, why)
        return raw
    return normalise_phone(raw) or ""


def _past_date(f: Fields, name: str, done: str, today: date) -> date | None:
    """An optional date of something that already happened: `today` (the town's) at most.
    `done` says what happened on it, for the message ("a vistoria foi feita")."""
    day = f.date(name, required=False)
    if day is not None and day > today:
        f.fail(name, f"a data não pode ser futura: informe o dia em que {done} "
                     f"(hoje é {today.strftime('%d/%m/%Y')})")
    return day
