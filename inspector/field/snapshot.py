"""The town on the phone: a full snapshot of a town's registry, or what changed since a version.

The version is the newest audit-log sequence number of the town. A delta holds the rows
named by audit entries after the phone's version (entity/entity_id), rows no longer
found are listed in `deleted`. Only what an agent needs on the street is sent: no CPF,
no address, no phone, no CNH number. See docs/sync.md.
"""
from __future__ import annotations

import base64
from collections import defaultdict
from collections.abc import Iterable
from datetime import date, datetime

from sqlalchemy import func, select

from inspector import audit, clock, credentials, laws, registry, vistorias
from inspector.extensions import db
from inspector.field.notices import open_notices
from inspector.field.standing import affected_vehicles, town_standing
from inspector.models import (
    AuditEntry,
    Credential,
    Driver,
    Holder,
    HolderKind,
    Inspection,
    InsurancePolicy,
    Licence,
    Municipality,
    Permit,
    Stand,
    Vehicle,
    Vistoria,
    VistoriaResult,
    vehicle_drivers,
)

CHUNK = 500

# audit entity name -> (snapshot key, model)
ENTITIES = {
    "vehicle": ("vehicles", Vehicle), "driver": ("drivers", Driver),
    "holder": ("holders", Holder), "licence": ("licences", Licence),
    "permit": ("permits", Permit), "insurance": ("insurance", InsurancePolicy),
    "stand": ("stands", Stand), "credential": ("credentials", Credential),
}


town_version = audit.town_version  # the snapshot's version

# The shape of the rows the phone stores. Bump it whenever a row gains (or changes) a field
# the app reads, and set the same number as SNAPSHOT_FORMAT in static/js/field/sync.js: a
# phone holding an older format fetches a full snapshot instead of a delta, so rows stored
# before the field existed are refreshed (a delta only carries rows changed on the server).
#   1 (no `format` in the answer): the first shape.
#   2: `suspended_until` on drivers, licences, permits and standing.
#   (2, unchanged: `vistoria_valid_until` on vehicles. A row stored without it reads as null,
#   "not shortened", which every vehicle was before the field existed; setting or clearing it
#   writes the vehicle's audit entry, so the next delta carries the row.)
#   3: `vistoria` on vehicles (the newest vistoria's result; a rejected one's return day and
#   what to fix). A decided vistoria writes its own audit entry, which names its vehicle in
#   the next delta.
FORMAT = 3


def _d(value: date | datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _chunks(ids: Iterable[int]) -> Iterable[list[int]]:
    ids = sorted(set(ids))
    for i in range(0, len(ids), CHUNK):
        yield ids[i:i + CHUNK]


# Columns sent to the phone: nothing else is ever read (no CPF, address, phone, CNH number).
COLUMNS = {
    Vehicle: ("id", "plate", "prefix", "service", "kind", "make_model", "year_of_manufacture",
              "manufactured_on", "first_licensed_on", "engine_cc", "colour", "doors", "is_trail",
              "holder_id", "stand_id", "last_vistoria_on", "vistoria_valid_until"),
    Driver: ("id", "name", "category", "holder_id", "cnh_category", "cnh_expiry",
             "registration_number", "registration_expiry", "status", "suspended_until"),
    Holder: ("id", "name", "kind"),
    Licence: ("id", "vehicle_id", "permit_id", "kind", "number", "valid_from", "valid_until",
              "status", "suspended_until"),
    Permit: ("id", "holder_id", "kind", "service", "number", "valid_from", "valid_until",
             "status", "suspended_until"),
    InsurancePolicy: ("id", "vehicle_id", "insurer", "policy_number", "valid_from",
                      "valid_until"),
    Stand: ("id", "code", "place", "capacity", "service"),
    Credential: ("id", "kind", "vehicle_id", "driver_id", "token_hash", "kid", "issued_at",
                 "expires_on", "revoked_at"),
}


def _rows(model, town_id: int, ids: set[int] | None) -> list:
    """A town's rows of a model (all, or those ids) as plain rows, ordered by id."""
    cols = [getattr(model, c) for c in COLUMNS[model]]
    base = select(*cols).where(model.municipality_id == town_id)
    if ids is None:
        return list(db.session.execute(base.order_by(model.id)))
    out = []
    for part in _chunks(ids):
        out += db.session.execute(base.where(model.id.in_(part)))
    return sorted(out, key=lambda r: r.id)


# ------------------------------------------------------------------ row shapes
def vehicle_json(v: Vehicle, vistoria: dict | None = None) -> dict:
    return {"id": v.id, "plate": v.plate, "prefix": v.prefix, "service": v.service.value,
            "kind": v.kind.value, "make_model": v.make_model,
            "year_of_manufacture": v.year_of_manufacture, "engine_cc": v.engine_cc,
            "colour": v.colour, "doors": v.doors, "is_trail": v.is_trail,
            "holder_id": v.holder_id, "stand_id": v.stand_id,
            "last_vistoria_on": _d(v.last_vistoria_on),
            # shortened by the inspector (Nova Santa Helena Lei 535/2013 Art. 32 § 3º), else null
            "vistoria_valid_until": _d(v.vistoria_valid_until),
            # the newest vistoria (newest_vistorias), null when none is on record
            "vistoria": vistoria}


def driver_json(d: Driver, vehicle_ids: list[int], photo: str | None, cause=None) -> dict:
    return {"id": d.id, "name": d.name, "category": d.category.value, "holder_id": d.holder_id,
            "cnh_category": d.cnh_category, "cnh_expiry": _d(d.cnh_expiry),
            "registration_number": d.registration_number,
            "registration_expiry": _d(d.registration_expiry), "status": d.status.value,
            "suspended_until": _d(d.suspended_until), "vehicle_ids": vehicle_ids, "photo": photo,
            "cause": cause_json(cause)}


def holder_json(h: Holder) -> dict:
    return {"id": h.id, "name": h.name, "kind": h.kind.value}


def cause_json(cause) -> dict | None:
    """The act behind a row's suspension or revocation (laws.causes), as the phone words it
    (static/js/field/situation.js): its day, its cause in words and its article."""
    if cause is None:
        return None
    return {"words": cause.words, "on": _d(cause.on), "cancelled": cause.cancelled,
            "citation": cause.citation.as_dict() if cause.citation is not None else None}


def licence_json(x: Licence, cause=None) -> dict:
    return {"id": x.id, "vehicle_id": x.vehicle_id, "permit_id": x.permit_id,
            "kind": x.kind.value, "number": x.number, "valid_from": _d(x.valid_from),
            "valid_until": _d(x.valid_until), "status": x.status.value,
            "suspended_until": _d(x.suspended_until), "cause": cause_json(cause)}


def permit_json(x: Permit, cause=None, company: str = "") -> dict:
    # `company`: the holder's name when a company (its permit covers all its vehicles: the
    # phone says so, as the server does)
    return {"id": x.id, "holder_id": x.holder_id, "kind": x.kind.value,
            "service": x.service.value, "number": x.number, "valid_from": _d(x.valid_from),
            "valid_until": _d(x.valid_until), "status": x.status.value,
            "suspended_until": _d(x.suspended_until), "cause": cause_json(cause),
            "company": company}


def insurance_json(x: InsurancePolicy) -> dict:
    return {"id": x.id, "vehicle_id": x.vehicle_id, "insurer": x.insurer,
            "policy_number": x.policy_number, "valid_from": _d(x.valid_from),
            "valid_until": _d(x.valid_until)}


def stand_json(x: Stand) -> dict:
    return {"id": x.id, "code": x.code, "place": x.place, "capacity": x.capacity,
            "service": x.service.value}


def credential_json(c, today: date) -> dict:
    status = ("revoked" if c.revoked_at is not None
              else "expired" if today > c.expires_on else "active")  # Credential.status_on
    return {"id": c.id, "kind": c.kind.value, "vehicle_id": c.vehicle_id,
            "driver_id": c.driver_id, "token_hash": c.token_hash, "kid": c.kid,
            "issued_at": _d(c.issued_at), "expires_on": _d(c.expires_on),
            "revoked_at": _d(c.revoked_at), "status": status}


# ------------------------------------------------------------------ pieces
def _links(town_id: int, driver_ids: set[int] | None) -> dict[int, list[int]]:
    """driver id -> the ids of the vehicles it drives."""
    q = (select(vehicle_drivers.c.driver_id, vehicle_drivers.c.vehicle_id)
         .join(Driver, Driver.id == vehicle_drivers.c.driver_id)
         .where(Driver.municipality_id == town_id))
    rows = []
    if driver_ids is None:
        rows = db.session.execute(q).all()
    else:
        for part in _chunks(driver_ids):
            rows += db.session.execute(q.where(vehicle_drivers.c.driver_id.in_(part))).all()
    out: dict[int, list[int]] = defaultdict(list)
    for d, v in sorted(rows):
        out[d].append(v)
    return out


def driver_photos(town_id: int, driver_ids: list[int]) -> dict[int, str]:
    """driver id -> data: URI of the thumbnail stored with the photo (registry/photos.py);
    made here only for a photo written around the ORM (a bulk load) that has none."""
    out = {}
    for part in _chunks(driver_ids):
        for did, thumb, has_photo in db.session.execute(
                select(Driver.id, Driver.photo_thumb, Driver.photo.is_not(None))
                .where(Driver.id.in_(part), Driver.municipality_id == town_id)):
            if thumb is None and has_photo:
                thumb = registry.photo_thumbnail(db.session.scalar(select(Driver.photo)
                                                           .where(Driver.id == did)))
            if thumb:
                out[did] = "data:image/jpeg;base64," + base64.b64encode(thumb).decode("ascii")
    return out


def last_inspections(town_id: int, vehicle_ids: set[int] | None) -> list[dict]:
    """The newest inspection of each vehicle: when, outcome, review status."""
    rn = func.row_number().over(partition_by=Inspection.vehicle_id,
                                order_by=(Inspection.finished_at.desc(), Inspection.id.desc()))
    inner = select(Inspection.vehicle_id, Inspection.uuid, Inspection.finished_at,
                   Inspection.status, Inspection.failed_items, rn.label("rn")).where(
        Inspection.municipality_id == town_id)
    if vehicle_ids is not None:
        if not vehicle_ids:
            return []
        inner = inner.where(Inspection.vehicle_id.in_(sorted(vehicle_ids)))
    sub = inner.subquery()
    rows = db.session.execute(select(sub).where(sub.c.rn == 1).order_by(sub.c.vehicle_id))
    return [{"vehicle_id": r.vehicle_id, "id": r.uuid, "finished_at": _d(r.finished_at),
             "status": r.status.value if hasattr(r.status, "value") else r.status,
             "failed_items": r.failed_items} for r in rows]


def newest_vistorias(town_id: int, vehicle_ids: Iterable[int]) -> dict[int, dict]:
    """vehicle id -> its newest vistoria (by day, then id, as vistorias.latest_for_vehicle):
    {"result", "on"}, plus, when rejected, "return_on" and "to_fix" (the labels only: the
    card names what to fix, the holder page and the vistoria's own page give the articles)."""
    rn = func.row_number().over(partition_by=Vistoria.vehicle_id,
                                order_by=(Vistoria.performed_on.desc(), Vistoria.id.desc()))
    out: dict[int, dict] = {}
    for part in _chunks(vehicle_ids):
        sub = (select(Vistoria.vehicle_id, Vistoria.result, Vistoria.performed_on,
                      Vistoria.return_on, Vistoria.to_fix, rn.label("rn"))
               .where(Vistoria.municipality_id == town_id, Vistoria.vehicle_id.in_(part))
               .subquery())
        for r in db.session.execute(select(sub).where(sub.c.rn == 1)):
            result = VistoriaResult(getattr(r.result, "value", r.result))
            row = {"result": result.value, "on": _d(r.performed_on)}
            if result == VistoriaResult.REJECTED:
                fixes = r.to_fix if isinstance(r.to_fix, list) else []
                row["return_on"] = _d(r.return_on)
                row["to_fix"] = [str(f.get("label", "")) for f in fixes
                                 if isinstance(f, dict) and f.get("label")]
            out[r.vehicle_id] = row
    return out


def _keys(today: date) -> list[dict]:
    """The public keys that verify credentials offline (contract names plus JWK fields)."""
    try:
        from inspector.credentials import public_key_set
    except ImportError:  # pragma: no cover
        return []
    out = []
    for k in public_key_set(today):
        out.append({**k, "public_key": k["x"], "valid_until": k.get("verify_until")})
    return out


# ------------------------------------------------------------------ the snapshot
def build_snapshot(town: Municipality, since: int | None = None, now: datetime | None = None) -> dict:
    """The full snapshot (since=None), or the delta since a version the phone holds."""
    now = now or clock.now()
    today = clock.town_day(town, now)
    version = town_version(town.id)
    if since is not None and since > version:
        since = None  # the phone is ahead of this server (restored backup): start over
    named = None if since is None else _named_since(town.id, since, version)
    standing_all = since is None or _day_of_seq(since, town) < today

    def ids(entity: str) -> set[int] | None:
        return None if named is None else named.get(entity, set())

    out: dict = {"version": version, "format": FORMAT, "full": since is None,
                 "generated_at": now.isoformat(timespec="seconds"), "standing_on": _d(today),
                 "town": {"slug": town.slug, "name": town.name, "ibge": town.ibge_code,
                          "fiscal_unit": town.fiscal_unit_name,
                          # the address printed in every QR (PUBLIC_BASE_URL): a genuine token
                          # behind another address is a swapped sticker (docs/field-app.md)
                          "public_base_url": credentials.public_url("").removesuffix("/v/"),
                          # the size the app keeps a photo at, hashed after
                          "photo": {"max_side": town.photo_max_side,
                                    "quality": town.photo_quality}}}
    deleted: dict[str, list[int]] = {}
    found: dict[str, list] = {}
    for entity, (key, model) in ENTITIES.items():
        wanted = ids(entity)
        rows = [] if wanted is not None and not wanted else _rows(model, town.id, wanted)
        found[key] = rows
        if wanted:
            gone = sorted(wanted - {r.id for r in rows})
            if gone:
                deleted[key] = gone
    newest = newest_vistorias(town.id, [v.id for v in found["vehicles"]])
    out["vehicles"] = [vehicle_json(v, newest.get(v.id)) for v in found["vehicles"]]
    drivers = found["drivers"]
    links = _links(town.id, None if named is None else {d.id for d in drivers})
    photos = driver_photos(town.id, [d.id for d in drivers])
    why = {kind: laws.status_causes(kind, found[key]) for kind, key in
           (("driver", "drivers"), ("licence", "licences"), ("permit", "permits"))}
    out["drivers"] = [driver_json(d, links.get(d.id, []), photos.get(d.id), why["driver"].get(d.id))
                      for d in drivers]
    out["holders"] = [holder_json(h) for h in found["holders"]]
    out["licences"] = [licence_json(x, why["licence"].get(x.id)) for x in found["licences"]]
    companies = dict(db.session.execute(select(Holder.id, Holder.name).where(
        Holder.municipality_id == town.id, Holder.kind == HolderKind.COMPANY)).all()) \
        if found["permits"] else {}
    out["permits"] = [permit_json(x, why["permit"].get(x.id), companies.get(x.holder_id, ""))
                      for x in found["permits"]]
    out["insurance"] = [insurance_json(x) for x in found["insurance"]]
    out["stands"] = [stand_json(x) for x in found["stands"]]
    out["credentials"] = [credential_json(c, today) for c in found["credentials"]]
    standing = town_standing(town.id, today, version)
    chosen = (sorted(standing) if standing_all
              else sorted(affected_vehicles(town.id, since, version)))
    out["standing"] = [standing[v] for v in chosen if v in standing]
    inspected = None if named is None else _inspected_vehicles(named.get("inspection", set()))
    out["last_inspections"] = last_inspections(town.id, inspected)
    acts = None if named is None else named.get("sanction", set())
    out["notices"], gone = open_notices(town.id, acts) if acts is None or acts \
        else ([], [])
    if gone:
        deleted["notices"] = gone  # decided otherwise, complied with or closed since
    out["checklists"] = with_requirements(town, laws.checklists_in_force(town, today), today)
    out["keys"] = _keys(today)
    # the day's vistorias booked in the agenda (docs/vistoria.md), replaced by every delta
    out["appointments"] = vistorias.appointments_for_phone(town.id, today)
    out["deleted"] = deleted
    return out


def _named_since(town_id: int, since: int, version: int) -> dict[str, set]:
    """entity -> ids named by the town's audit entries in (since, version]."""
    named: dict[str, set] = defaultdict(set)
    decided: set[int] = set()
    rows = db.session.execute(
        select(AuditEntry.entity, AuditEntry.entity_id).distinct()
        .where(AuditEntry.municipality_id == town_id, AuditEntry.seq > since,
               AuditEntry.seq <= version))
    for entity, entity_id in rows:
        if entity == "inspection":
            named[entity].add(entity_id)
        elif entity == "sanction" and entity_id.isdigit():
            named[entity].add(int(entity_id))  # an act: the open notices on the card
        elif entity in ENTITIES and entity_id.isdigit():
            named[entity].add(int(entity_id))
        elif entity == "vistoria" and entity_id.isdigit():
            decided.add(int(entity_id))
    for part in _chunks(decided):  # a vistoria decided: its vehicle's row carries it
        named["vehicle"].update(db.session.scalars(select(Vistoria.vehicle_id).where(
            Vistoria.municipality_id == town_id, Vistoria.id.in_(part))))
    return named


def _day_of_seq(seq: int, town: Municipality) -> date:
    """The town's day of an audit entry (the day the phone's data was last current)."""
    at = db.session.scalar(select(AuditEntry.at).where(AuditEntry.seq == seq))
    return clock.town_day(town, at) if at is not None else date.min


def _inspected_vehicles(uuids: set[str]) -> set[int]:
    if not uuids:
        return set()
    return set(db.session.scalars(select(Inspection.vehicle_id)
                                  .where(Inspection.uuid.in_(sorted(uuids)))))


# ------------------------------------------------------------------ what the law requires
# `checklists[].requirements`: what the law in force asks of a vehicle and its drivers, each
# with its article, so the phone judges the rows' dates on its own day (static/js/field/
# situation.js, one rule per requirement). `checklists` is replaced by every delta (db.js
# `replace: true`): phones get it on their next sync without a snapshot format change.
_CITED = {"licence": "requirements.licence", "permit": "requirements.permit",
          "insurance": "requirements.insurance", "cnh": "requirements.cnh",
          "driver_registration": "requirements.driver_registration"}


def _cite(r, path: str) -> dict:
    c = r.cite(path)
    return c.as_dict() if c else {}


def requirements_of(r) -> dict:
    """What the rules of one day (`rules.Rules`) require, each with its citation (None when
    the law does not ask it): documents, vistoria period, vehicle age limit, CNH category,
    the days an expired driver registration has before it is cancelled."""
    out: dict = {name: ({"citation": _cite(r, path)} if r.value(path) else None)
                 for name, path in _CITED.items()}
    if out["licence"]:  # the engine's: an expired Alvará cites its validity, a suspended or
        # revoked one the article that provides the sanction (vehicle_document_violations)
        out["licence"]["validity_citation"] = _cite(r, "periodicity.licence_months") or None
        out["licence"]["sanction_citation"] = (r.pack.suspension.citation.as_dict()
                                               if r.pack.suspension is not None else None)
    if out["permit"]:  # a suspended or revoked permit: the sanction's article where the law
        # names one for the permit (`sanctions.suspension.permit_citation`), else the requiring
        s = r.pack.suspension
        out["permit"]["sanction_citation"] = (s.permit_citation.as_dict()
                                              if s is not None and s.permit_citation else None)
    months = r.value("periodicity.vistoria_months")
    # a law that licenses only after a vistoria (its prior kind): none on record is a
    # violation citing that kind's article (engine vehicle_document_violations)
    prior = r.pack.vistoria.kind("prior")
    out["vistoria"] = None if not months and prior is None else {
        "months": months or None, "citation": _cite(r, "periodicity.vistoria_months"),
        "prior_citation": prior.citation.as_dict() if prior is not None else None,
        "shortened_citation": (_cite(r, "periodicity.vistoria_may_be_shortened")
                               if r.value("periodicity.vistoria_may_be_shortened") else None)}
    # the engine's vehicle.age (rules.age_limit): with only the year of manufacture, out from
    # 1 January of year + N + 1, once it has certainly completed N years; with the exact day
    # (manufactured_on, or first_licensed_on where the law counts "anos de uso"), the day
    # after it completes N years. The phone judges both from these.
    ages = []
    for path in ("limits.vehicle.max_age_years", "limits.vehicle.replace_at_age_years"):
        limit = r.value(path)
        if limit is not None:
            ages.append((limit + 1, limit, path))
    if ages:
        at, limit, path = min(ages)
        out["vehicle_age"] = {"irregular_at_age": at, "limit_years": limit,
                              "counts_use": bool(r.value("limits.vehicle.age_counts_use")),
                              "citation": _cite(r, path)}
    else:
        out["vehicle_age"] = None
    # the article an expired or due registration cites where the law revalidates it yearly
    # (engine's _registration: `periodicity.registration_months`)
    out["registration_validity"] = ({"citation": _cite(r, "periodicity.registration_months")}
                                    if r.value("periodicity.registration_months") else None)
    grace = r.value("periodicity.registration_grace_days")  # the engine's _registration
    out["registration_grace"] = None if grace is None else {
        "days": grace, "citation": _cite(r, "periodicity.registration_grace_days")}
    need = r.value("limits.driver.cnh_category")
    out["cnh_category"] = None if not need else {
        "category": str(need), "citation": _cite(r, "limits.driver.cnh_category")}
    return out


def with_requirements(town: Municipality, checklists: list[dict], day: date) -> list[dict]:
    """The checklists in force, each with `requirements` (requirements_of) of its law that day."""
    from inspector import rules

    for found in checklists:
        try:
            pack = rules.find_pack(town.slug, found["service"], day)
        except rules.RulesError:
            found["requirements"] = None
            continue
        found["requirements"] = requirements_of(rules.rules_on(pack, day))
    return checklists
