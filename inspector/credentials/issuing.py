"""Issue, reissue, revoke and look up QR credentials; every change is in the audit log."""
from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta

from flask import current_app
from sqlalchemy import and_, false, func, lambda_stmt, or_, select, update
from sqlalchemy.orm import joinedload

from inspector import audit, clock
from inspector.config import DEFAULT_PUBLIC_BASE_URL
from inspector.credentials import keys
from inspector.credentials.tokens import (
    Claims,
    TokenRejected,
    burn_verification,
    encode,
    parse,
    verify_parsed,
)
from inspector.errors import Conflict, ValidationFailed
from inspector.extensions import db
from inspector.models import (
    Credential,
    CredentialKind,
    Driver,
    DriverCategory,
    Holder,
    Licence,
    Municipality,
    Service,
    Vehicle,
    fold_name,
    vehicle_drivers,
)

DEFAULT_BASE_URL = DEFAULT_PUBLIC_BASE_URL
DEFAULT_VALIDITY_DAYS = 730
MAX_TOKEN_CHARS = 200
MIN_REASON = 5
# Which drivers get which printed credential (sheet kinds of `credentials sheet --kind`).
RIDER_CATEGORIES = (DriverCategory.MOTOTAXISTA,)
TAXI_DRIVER_CATEGORIES = (DriverCategory.AUTONOMO, DriverCategory.AUXILIAR)
# The service whose law asks for each sheet (vehicle stickers: every service), and its name.
SHEET_SERVICE = {"vehicle": None, "rider": Service.MOTOTAXI, "card": Service.TAXI}
SHEET_NAMES = {"vehicle": "adesivos de veículos", "rider": "crachás de colete de moto-táxi",
               "card": "carteiras de motorista de táxi"}


def token_hash(token: str) -> str:
    """SHA-256 (hex) of a token: the only form the database is searched by."""
    return hashlib.sha256(token[:MAX_TOKEN_CHARS].encode("utf-8", "replace")).hexdigest()


def public_url(token: str) -> str:
    """The absolute URL a QR code encodes: PUBLIC_BASE_URL + /v/<token>."""
    base = current_app.config.get("PUBLIC_BASE_URL") or DEFAULT_BASE_URL
    return f"{base.rstrip('/')}/v/{token}"


def validity_days() -> int:
    """How long a new credential is valid (config CREDENTIAL_VALIDITY_DAYS, default 2 years)."""
    return int(current_app.config.get("CREDENTIAL_VALIDITY_DAYS", DEFAULT_VALIDITY_DAYS))


def _snapshot(c: Credential) -> dict:
    return audit.snapshot(c, exclude=("token",))


def subject_of(c: Credential) -> Vehicle | Driver:
    """The vehicle or driver a credential names."""
    return c.vehicle if c.kind == CredentialKind.VEHICLE else c.driver


def active_for(subject: Vehicle | Driver) -> Credential | None:
    """The subject's credential that is not revoked (there is at most one)."""
    column = Credential.vehicle_id if isinstance(subject, Vehicle) else Credential.driver_id
    return db.session.scalar(select(Credential).where(column == subject.id,
                                                      Credential.revoked_at.is_(None))
                             .order_by(Credential.id.desc()).limit(1))


def issue(subject: Vehicle | Driver, actor=None, *, replaces: Credential | None = None,
          today: date | None = None) -> Credential:
    """Sign and record a new credential for a vehicle or a driver (from today on the clock of
    its town, unless `today` is given)."""
    today = today or clock.today(db.session.get(Municipality, subject.municipality_id))
    current = active_for(subject)
    if current is not None and current is not replaces:
        raise ValidationFailed({"credencial": "já existe uma credencial ativa; use reemitir"})
    town = db.session.get(Municipality, subject.municipality_id)
    kind = CredentialKind.VEHICLE if isinstance(subject, Vehicle) else CredentialKind.DRIVER
    key = keys.ensure_active_key(actor)
    expires = today + timedelta(days=validity_days())
    token = encode(keys.private_key(key), key.kid, kind.value, town.ibge_code,
                   subject.id, expires)
    cred = Credential(municipality_id=town.id, kind=kind,
                      vehicle_id=subject.id if kind == CredentialKind.VEHICLE else None,
                      driver_id=subject.id if kind == CredentialKind.DRIVER else None,
                      token=token, token_hash=token_hash(token), kid=key.kid,
                      issued_at=clock.now(), expires_on=expires,
                      issued_by_id=getattr(actor, "id", None),
                      replaces_id=replaces.id if replaces else None)
    db.session.add(cred)
    db.session.flush()
    audit.record("credential_reissued" if replaces else "credential_issued", "credential",
                 cred.id, after=_snapshot(cred), actor=actor, municipality_id=town.id)
    return cred


def sign(kind: str, town: Municipality, subject_id: int, expires_on: date, actor=None) -> str:
    """A token of another kind signed with the credentials' active key (a vistoria
    certificate: inspector/vistorias), the same format and verification as a credential's."""
    key = keys.ensure_active_key(actor)
    return encode(keys.private_key(key), key.kid, kind, town.ibge_code, subject_id,
                  expires_on)


def revoke(cred: Credential, reason: str, actor=None) -> Credential:
    """Cancel a credential at once: its QR answers CREDENCIAL CANCELADA from now on."""
    reason = (reason or "").strip()
    if len(reason) < MIN_REASON:
        raise ValidationFailed({"motivo": f"diga o motivo (pelo menos {MIN_REASON} letras)"})
    if cred.revoked_at is not None:
        raise Conflict({"credencial": "esta credencial já está cancelada"})
    before = _snapshot(cred)
    # one winner: of two cancellations (or reissues) at once, one finds it still valid
    done = db.session.execute(
        update(Credential).where(Credential.id == cred.id, Credential.revoked_at.is_(None))
        .values(revoked_at=clock.now(), revoked_reason=reason[:500],
                revoked_by_id=getattr(actor, "id", None))
        .execution_options(synchronize_session=False))
    if done.rowcount != 1:
        raise Conflict({"credencial": "esta credencial acabou de ser cancelada por outra pessoa"})
    db.session.refresh(cred)
    audit.record("credential_revoked", "credential", cred.id, before=before,
                 after=_snapshot(cred), actor=actor, municipality_id=cred.municipality_id)
    return cred


def reissue(cred: Credential, reason: str, actor=None) -> Credential:
    """Replace a credential (lost vest, damaged sticker): the old QR is cancelled."""
    revoke(cred, reason, actor)
    return issue(subject_of(cred), actor, replaces=cred)


def eligible_subjects(town_id: int, sheet: str) -> list[Vehicle | Driver]:
    """Vehicles ('vehicle'), moto-taxi riders ('rider') or taxi drivers ('card') of a town."""
    if sheet == "vehicle":
        return list(db.session.scalars(select(Vehicle).where(Vehicle.municipality_id == town_id)
                                       .order_by(Vehicle.service, Vehicle.prefix, Vehicle.plate)))
    cats = RIDER_CATEGORIES if sheet == "rider" else TAXI_DRIVER_CATEGORIES
    return list(db.session.scalars(select(Driver).where(Driver.municipality_id == town_id,
                                                        Driver.category.in_(cats))
                                   .order_by(Driver.name)))


def missing_subjects(town_id: int, sheet: str) -> list[Vehicle | Driver]:
    """Subjects of a sheet's kind that have no credential in force (none, or only revoked)."""
    rows = db.session.execute(select(Credential.vehicle_id, Credential.driver_id).where(
        Credential.municipality_id == town_id, Credential.revoked_at.is_(None))).all()
    vehicles = {r.vehicle_id for r in rows if r.vehicle_id}
    drivers = {r.driver_id for r in rows if r.driver_id}
    return [s for s in eligible_subjects(town_id, sheet)
            if s.id not in (vehicles if isinstance(s, Vehicle) else drivers)]


def offered_sheets(town_id: int) -> tuple[str, ...]:
    """The sheets a town prints: a moto-taxi rider's vest badge only where the town's laws
    cover moto-taxis, a taxi driver's card only where they cover taxis."""
    from inspector import rules

    town = db.session.get(Municipality, town_id)
    services = {p.service for p in rules.packs_for_town(town.slug)} if town else set()
    return tuple(s for s, service in SHEET_SERVICE.items()
                 if not services or service is None or service.value in services)


def check_sheet(town_id: int, sheet: str) -> None:
    """Refuse (ValidationFailed on `folha`) a sheet unknown or not offered by the town."""
    if sheet not in SHEET_SERVICE:
        raise ValidationFailed({"folha": f"folha desconhecida: {sheet!r} (use "
                                         f"{', '.join(SHEET_SERVICE)})"})
    if sheet not in offered_sheets(town_id):
        town = db.session.get(Municipality, town_id)
        name = "moto-táxi" if SHEET_SERVICE[sheet] == Service.MOTOTAXI else "táxi"
        raise ValidationFailed({"folha": f"{town.name} não emite {SHEET_NAMES[sheet]}: não há "
                                         f"lei municipal de {name} em {town.name}"})


def issue_missing(town_id: int, sheet: str, actor=None) -> list[Credential]:
    """Issue a credential to every subject of the sheet's kind that has none in force;
    refused (nothing issued) for a sheet the town does not offer (`check_sheet`)."""
    check_sheet(town_id, sheet)
    return [issue(s, actor) for s in missing_subjects(town_id, sheet)]


def for_town(town_id: int, sheet: str | None = None, include_revoked: bool = True
             ) -> list[Credential]:
    """A town's credentials, newest first, optionally of one sheet kind."""
    q = select(Credential).where(Credential.municipality_id == town_id)
    if not include_revoked:
        q = q.where(Credential.revoked_at.is_(None))
    rows = list(db.session.scalars(q.order_by(Credential.id.desc())))
    if sheet is None:
        return rows
    return [c for c in rows if sheet_of(c) == sheet]


MAX_QUERY = 100


def search(town_id: int, q: str, sheet: str | None = None, *, limit: int = 50,
           offset: int = 0) -> list[Credential]:
    """A town's credentials (newest first) whose vehicle's plate starts with the query or
    prefix contains it, whose driver's name (accents ignored) or registration number
    contains it, whose rider drives such a vehicle (a lost vest is found by the moto's
    plate), whose number is the query ("12", "nº 12") or whose QR address or token it is.
    Another town's credentials are never looked at."""
    q = re.sub(r"\s+", " ", q or "").strip()[:MAX_QUERY]
    query = (select(Credential).where(Credential.municipality_id == town_id)
             .outerjoin(Vehicle, Credential.vehicle_id == Vehicle.id)
             .outerjoin(Driver, Credential.driver_id == Driver.id)
             .options(joinedload(Credential.vehicle),
                      joinedload(Credential.driver).selectinload(Driver.vehicles)))
    if sheet == "vehicle":
        query = query.where(Credential.kind == CredentialKind.VEHICLE)
    elif sheet in ("rider", "card"):
        cats = RIDER_CATEGORIES if sheet == "rider" else TAXI_DRIVER_CATEGORIES
        query = query.where(Credential.kind == CredentialKind.DRIVER, Driver.category.in_(cats))
    if q:
        query = query.where(_matches_query(town_id, q))
    rows = db.session.scalars(query.order_by(Credential.id.desc())
                              .limit(max(0, limit)).offset(max(0, offset)))
    return list(rows.unique())


def _matches_query(town_id: int, q: str):
    plain = unicodedata.normalize("NFKD", q).encode("ascii", "ignore").decode()
    key = re.sub(r"[^A-Z0-9]", "", plain.upper())      # "qba-1d23" -> "QBA1D23"
    folded = fold_name(q)
    vehicle_cond = [func.upper(Vehicle.prefix).contains(q.upper(), autoescape=True)]
    if key:
        vehicle_cond.append(Vehicle.plate.startswith(key, autoescape=True))
    cond = [or_(*vehicle_cond),
            Driver.name_folded.contains(folded, autoescape=True),
            func.upper(Driver.registration_number).contains(q.upper(), autoescape=True)]
    # A rider's badge by the plate or prefix of the motorcycle they ride.
    driven = (select(vehicle_drivers.c.driver_id)
              .join(Vehicle, Vehicle.id == vehicle_drivers.c.vehicle_id)
              .where(Vehicle.municipality_id == town_id, or_(*vehicle_cond)))
    cond.append(and_(Credential.driver_id.is_not(None), Credential.driver_id.in_(driven)))
    number = re.fullmatch(r"(?:n[º°o]?\.?\s*|#\s*)?(\d{1,9})", q, re.IGNORECASE)
    if number:
        cond.append(Credential.id == int(number.group(1)))
    token = q.rsplit("/v/", 1)[-1].strip()
    cond.append(Credential.token_hash == token_hash(token) if len(token) > 20 else false())
    return or_(*cond)


def sheet_of(c: Credential) -> str:
    """Which printed sheet a credential goes on: 'vehicle', 'rider' or 'card'."""
    if c.kind == CredentialKind.VEHICLE:
        return "vehicle"
    return "rider" if c.driver.category in RIDER_CATEGORIES else "card"


def service_of(c: Credential) -> Service:
    """Taxi or moto-taxi, from the vehicle or the driver's category."""
    if c.kind == CredentialKind.VEHICLE:
        return c.vehicle.service
    return Service.MOTOTAXI if c.driver.category in RIDER_CATEGORIES else Service.TAXI


@dataclass(frozen=True)
class Lookup:
    """What a scanned token turned out to be."""

    outcome: str                 # active | revoked | expired | unknown
    credential: Credential | None
    claims: Claims | None
    reason: str | None           # why a token was refused, for logs (never shown raw)


def check_signature(token: str, today: date) -> tuple[Claims | None, str | None]:
    """The token's claims if its signature holds and it has not expired, else why not
    ('expired' tokens still come back with reason 'expired' and no claims). Always costs
    one Ed25519 verification, whatever the input."""
    try:
        parsed = parse(token)
        return verify_parsed(parsed, keys.refresh_if_unknown(parsed[0].kid),
                             today), None
    except TokenRejected as e:
        if e.reason in ("malformed", "unknown_key"):
            burn_verification()
        return None, e.reason


def decide_token(row, digest: str, claims: Claims | None, reason: str | None,
           today: date) -> tuple[str, str | None]:
    """Outcome of a token given its signature check and the row found by its hash (or None):
    active | revoked | expired | unknown, and why. `row` is an ORM Credential or a Core row."""
    found = row is not None and hmac.compare_digest(row.token_hash, digest)
    expired = reason == "expired"
    if not found or (claims is None and not expired):
        return "unknown", reason or "not_found"
    if claims is not None and not _matches(row, claims):
        return "unknown", "mismatch"
    if row.revoked_at is not None:
        return "revoked", "revoked"
    if expired or today > row.expires_on:
        return "expired", "expired"
    return "active", None


def lookup(token: str, today: date) -> Lookup:
    """Check a token's signature and find its credential on `today` (the day of the town the
    token claims), doing the same work for any input: one signature check and one indexed
    query by hash, compared in constant time."""
    digest = token_hash(token)
    claims, reason = check_signature(token, today)
    row = db.session.scalars(_lookup_statement(digest)).unique().first()
    outcome, why = decide_token(row, digest, claims, reason, today)
    if outcome == "unknown":
        return Lookup("unknown", None, None, why)
    return Lookup(outcome, row, claims, why)


def load_for_page(credential_id: int) -> Credential:
    """A credential with everything its passenger page reads, in one query."""
    return db.session.scalars(select(Credential).options(*_PAGE_LOAD)
                              .where(Credential.id == credential_id)).unique().one()


def _vehicle_rows(path):
    """Everything the passenger page and the standing read from a vehicle."""
    return (path.joinedload(Vehicle.licences).joinedload(Licence.permit),
            path.joinedload(Vehicle.holder).joinedload(Holder.permits),
            path.joinedload(Vehicle.insurance_policies),
            # a second query by the vehicles' ids: joined in, SQLite materialises every
            # vehicle-driver link of every town first (bench/many_towns.py)
            path.selectinload(Vehicle.drivers))


# One query answers the page for a vehicle credential, one more its drivers (drivers'
# credentials load their vehicles in another); unknown tokens run the same query and find
# nothing.
_PAGE_LOAD = (joinedload(Credential.municipality),
              *_vehicle_rows(joinedload(Credential.vehicle)),
              *_vehicle_rows(joinedload(Credential.driver).selectinload(Driver.vehicles)))


def _lookup_statement(digest: str):
    """The page's one query, as a lambda statement: its cache key is its code location, so
    SQLAlchemy skips rebuilding a ten-join key on every request."""
    return lambda_stmt(lambda: select(Credential).options(*_PAGE_LOAD)
                       .where(Credential.token_hash == digest))


def _matches(row, claims: Claims) -> bool:
    kind = getattr(row.kind, "value", row.kind)
    subject = row.vehicle_id if kind == CredentialKind.VEHICLE.value else row.driver_id
    return (claims.kind == kind and claims.subject_id == subject
            and claims.expires_on == row.expires_on and claims.kid == row.kid)
