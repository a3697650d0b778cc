"""Changes to a town's registry: holders, stands, vehicles, drivers, permits, licences,
insurance policies, and status changes with a reason.

Each `save_*` takes the text values a form or a spreadsheet row gives (keys = model
attribute names, plus natural-key references such as `holder_tax_id`), checks all of
them and raises `ValidationFailed({field: reason})` naming every bad field. Otherwise it
creates the row (or updates the one passed in; keys missing from `data` keep their
current value), flushes in the caller's transaction and writes one audit entry; the
caller commits. A save that changes nothing writes nothing, so re-importing the same
spreadsheet is a no-op. The law's limits on the saved record are read afterwards with
`limits.limits_for` (warnings); the one refusal, a licence for a holder who owes a
fine where the law bars it, is a field error of `save_licence`. Everything is scoped to
one town: a reference to another town's row is "não encontrado".
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from inspector import audit, clock, statuses
from inspector.errors import Conflict, ValidationFailed
from inspector.extensions import db
from inspector.identifiers import digits, is_cnpj, is_cpf, is_plate, normalise_plate
from inspector.models import (
    Driver,
    DriverCategory,
    Holder,
    HolderKind,
    InsurancePolicy,
    Licence,
    LicenceKind,
    Municipality,
    Permit,
    PermitKind,
    Service,
    Stand,
    Status,
    StatusChange,
    Vehicle,
    VehicleKind,
)
from inspector.registry import document_validity, limits, rg, vistoria_validity
from inspector.registry.base import (
    NOT_FOUND,
    _check,
    _code,
    _covered,
    _merged,
    _past_date,
    _period,
    _phone,
    _plate,
    _ref,
    _snap,
    _status_on_create,
    _unique,
    _write,
    as_data,
    settle,
)
from inspector.registry.lookup import Lookup
from inspector.registry.search import (
    search_drivers,
    search_holders,
    search_licences,
    search_permits,
    search_stands,
    search_vehicles,
)
from inspector.registry.values import REQUIRED, Fields, label, text_of

__all__ = [
    "Lookup", "as_data", "change_status", "save_driver", "save_holder", "save_insurance",
    "save_licence", "save_permit", "save_stand", "save_vehicle", "search_drivers",
    "search_holders", "search_licences", "search_permits", "search_stands", "search_vehicles",
    "settle", "unlink_driver", "NOT_FOUND",
]

KIND_OF_SERVICE = {Service.TAXI: VehicleKind.CAR, Service.MOTOTAXI: VehicleKind.MOTORCYCLE}
SERVICE_OF_CATEGORY = {DriverCategory.AUTONOMO: Service.TAXI, DriverCategory.AUXILIAR: Service.TAXI,
                       DriverCategory.MOTOTAXISTA: Service.MOTOTAXI}
PERMIT_KIND_OF_SERVICE = {Service.TAXI: PermitKind.PERMISSAO,
                          Service.MOTOTAXI: PermitKind.AUTORIZACAO}
LICENCE_KIND_OF_SERVICE = {Service.TAXI: LicenceKind.ALVARA_ESTACIONAMENTO,
                           Service.MOTOTAXI: LicenceKind.ALVARA_MOTOTAXI}
CNH_CATEGORIES = ("A", "B", "C", "D", "E", "AB", "AC", "AD", "AE", "ACC")
CORRECTION_REASON = "vistoria_correction_reason"
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _tax_id_problem(tax_id: str) -> str | None:
    """Why a holder's CPF/CNPJ (digits only) cannot be anyone's, or None."""
    if len(tax_id) == 11:
        return None if is_cpf(tax_id) else "CPF inválido: confira os dígitos"
    if len(tax_id) == 14:
        return None if is_cnpj(tax_id) else "CNPJ inválido: confira os dígitos"
    return "CPF/CNPJ inválido: o CPF tem 11 dígitos e o CNPJ, 14"


def _holder_ref(f: Fields, lookup: Lookup, *, required: bool = True) -> Holder | None:
    """The holder named by `holder_tax_id`. A number that cannot be a CPF or CNPJ (its check
    digits) says so, rather than "não encontrado"; a holder already on record under such a
    number (older data) is still found."""
    tax_id = digits(f.raw("holder_tax_id"))
    problem = _tax_id_problem(tax_id) if f.raw("holder_tax_id").strip() else None
    if problem and lookup.get(Holder, "tax_id", tax_id) is None:
        f.fail("holder_tax_id", problem)
        return None
    return _ref(f, lookup, "holder_tax_id", Holder, "tax_id", tax_id,
                required=required, what="permissionário com CPF/CNPJ")


def _vehicle_ref(f: Fields, lookup: Lookup) -> Vehicle | None:
    plate = _plate(f, "vehicle_plate")
    if not f.ok("vehicle_plate"):
        return None
    return _ref(f, lookup, "vehicle_plate", Vehicle, "plate", plate, required=True,
                what="veículo de placa")


# ---------------------------------------------------------------------------- saves
def save_holder(town_id: int, data: Mapping[str, Any], *, actor, holder: Holder | None = None,
                lookup: Lookup | None = None) -> Holder:
    """Create or update a permit holder (person with CPF, company with CNPJ)."""
    lookup = lookup or Lookup(town_id)
    f = Fields(_merged(holder, data))
    tax_id = digits(f.raw("tax_id"))
    guess = {11: HolderKind.PERSON, 14: HolderKind.COMPANY}.get(len(tax_id))
    kind = f.choice("kind", HolderKind, default=guess)
    name = f.text("name")
    if not f.raw("tax_id"):
        f.fail("tax_id", REQUIRED)
    elif kind == HolderKind.COMPANY and not is_cnpj(tax_id):
        f.fail("tax_id", "CNPJ inválido: confira os 14 dígitos")
    elif kind != HolderKind.COMPANY and not is_cpf(tax_id):
        f.fail("tax_id", "CPF inválido: confira os 11 dígitos")
    _unique(f, lookup, "tax_id", Holder, "tax_id", tax_id, holder, "CPF/CNPJ já cadastrado")
    address = f.text("address", required=False, max_len=300)
    phone = _phone(f, "phone")
    email = f.text("email", required=False, max_len=200).lower()
    if email and not _EMAIL.match(email):
        f.fail("email", "e-mail inválido")
    _check(f)
    return _write("holder", Holder, holder, dict(kind=kind, name=name, tax_id=tax_id,
                                                 address=address, phone=phone, email=email),
                  town_id=town_id, actor=actor, lookup=lookup)


def save_stand(town_id: int, data: Mapping[str, Any], *, actor, stand: Stand | None = None,
               lookup: Lookup | None = None) -> Stand:
    """Create or update a stand (ponto): code, place, capacity, service."""
    lookup = lookup or Lookup(town_id)
    f = Fields(_merged(stand, data))
    code = _code(f, "code", 20)
    _unique(f, lookup, "code", Stand, "code", code, stand, "código de ponto já cadastrado")
    values = dict(code=code, place=f.text("place"),
                  capacity=f.integer("capacity", lo=1, hi=200, what="capacidade"),
                  service=f.choice("service", Service, default=Service.TAXI),
                  legal_basis=f.text("legal_basis", required=False, max_len=120))
    _covered(f, town_id, "service", values["service"], stand and stand.service)
    _check(f)
    return _write("stand", Stand, stand, values, town_id=town_id, actor=actor, lookup=lookup)


def save_vehicle(town_id: int, data: Mapping[str, Any], *, actor,
                 vehicle: Vehicle | None = None, lookup: Lookup | None = None) -> Vehicle:
    """Create or update a taxi (car) or moto-taxi (motorcycle)."""
    lookup = lookup or Lookup(town_id)
    f = Fields(_merged(vehicle, data))
    service = f.choice("service", Service)
    _covered(f, town_id, "service", service, vehicle and vehicle.service)
    kind = KIND_OF_SERVICE.get(service)
    given_kind = f.choice("kind", VehicleKind, required=False)
    if kind and given_kind and given_kind != kind:
        f.fail("kind", f"{label(service)} é {label(kind).lower()}, não {label(given_kind).lower()}")
    plate = _plate(f, "plate")
    _unique(f, lookup, "plate", Vehicle, "plate", plate, vehicle, "placa já cadastrada")
    moto = kind == VehicleKind.MOTORCYCLE
    today = clock.today(db.session.get(Municipality, town_id))   # the town's day
    year = f.integer("year_of_manufacture", lo=1950, hi=today.year + 1, what="ano")
    engine_cc = f.integer("engine_cc", required=moto, lo=50, hi=8000, what="cilindrada")
    doors = None
    if moto:
        if f.raw("doors") not in ("", "0"):
            f.fail("doors", "motocicleta não tem portas")
    else:
        doors = f.integer("doors", required=kind is not None, lo=2, hi=5, what="número de portas")
    is_trail = f.boolean("is_trail")
    if is_trail and kind == VehicleKind.CAR:
        f.fail("is_trail", "só motocicletas podem ser de trilha")
    prefix = f.text("prefix", required=False, max_len=10).upper()
    if prefix and not prefix.isalnum():
        f.fail("prefix", "use só letras e algarismos")
    holder = _holder_ref(f, lookup)
    stand = _ref(f, lookup, "stand_code", Stand, "code", f.raw("stand_code").upper(),
                 required=False, what="ponto")
    if stand is not None and service is not None and stand.service != service:
        f.fail("stand_code", f"o ponto {stand.code} é de {label(stand.service).lower()}")
    last_vistoria_on = _past_date(f, "last_vistoria_on", "a vistoria foi feita", today)
    made, used = _vehicle_days(f, year, today)
    values = dict(service=service, kind=kind, plate=plate, make_model=f.text("make_model", max_len=120),
                  year_of_manufacture=year, manufactured_on=made, first_licensed_on=used,
                  engine_cc=engine_cc, colour=f.text("colour", max_len=40),
                  doors=doors, prefix=prefix, is_trail=is_trail, last_vistoria_on=last_vistoria_on,
                  vistoria_valid_until=_vistoria_valid_until(f, town_id, service, last_vistoria_on,
                                                             vehicle, data))
    correction = _vistoria_correction(f, vehicle, values, batch=lookup.pending is not None)
    _check(f)
    values.update(holder=holder, stand=stand)
    saved = _write("vehicle", Vehicle, vehicle, values, town_id=town_id, actor=actor,
                   lookup=lookup)
    if correction:
        audit.record("vehicle_vistoria_corrected", "vehicle", saved.id,
                     after={"last_vistoria_on": text_of(saved.last_vistoria_on),
                            "vistoria_valid_until": text_of(saved.vistoria_valid_until),
                            "reason": correction}, actor=actor, municipality_id=town_id)
    return saved


def _vistoria_correction(f: Fields, vehicle: Vehicle | None, values: dict, *,
                         batch: bool) -> str | None:
    """A vehicle's vistoria dates come from its approved vistoria (inspector/vistorias, through
    vistoria_validity.record_vistoria); a form that changes them is an audited correction with a reason
    (`vistoria_correction_reason`). A spreadsheet import (a batch) loads the town's past records
    and is audited per record. Returns the reason when a correction is made."""
    current = ((vehicle.last_vistoria_on, vehicle.vistoria_valid_until) if vehicle is not None
               else (None, None))
    if batch or (values["last_vistoria_on"], values["vistoria_valid_until"]) == current:
        return None
    if not (f.ok("last_vistoria_on") and f.ok(vistoria_validity.FIELD)):
        return None  # the date's own error first
    reason = f.raw(CORRECTION_REASON).strip()
    if len(reason) < vistoria_validity.MIN_REASON:
        f.fail(CORRECTION_REASON, "a vistoria é registrada pela vistoria aprovada no aplicativo; "
                                  "para corrigir a data, escreva o motivo da correção (no "
                                  f"mínimo {vistoria_validity.MIN_REASON} caracteres)")
        return None
    return reason[:500]


def _vehicle_days(f: Fields, year: int | None, today: date) -> tuple[date | None, date | None]:
    """The manufacture and first-licensing days, when the admin knows them (the CRLV): ages
    count from them ("completarem N anos de fabricação", "anos de uso"; rules.age_limit)."""
    made = _past_date(f, "manufactured_on", "o veículo foi fabricado", today)
    used = _past_date(f, "first_licensed_on", "o veículo foi licenciado pela primeira vez", today)
    if made is not None and year is not None and made.year != year:
        f.fail("manufactured_on", f"a data de fabricação ({made:%d/%m/%Y}) não é do ano de "
                                  f"fabricação informado ({year})")
    if made is not None and used is not None and used < made:
        f.fail("first_licensed_on", "o primeiro licenciamento não pode ser anterior à "
                                    "fabricação")
    elif used is not None and year is not None and used.year < year:
        f.fail("first_licensed_on", f"o primeiro licenciamento não pode ser anterior ao ano "
                                    f"de fabricação ({year})")
    return made, used


def _vistoria_valid_until(f: Fields, town_id: int, service: Service | None, last: date | None,
                          vehicle: Vehicle | None, data: Mapping[str, Any]) -> date | None:
    """The shortened vistoria validity (vistoria_validity.check), where the law allows it. A
    new vistoria date given without one (a spreadsheet row) ends the earlier shortening."""
    if (vehicle is not None and vistoria_validity.FIELD not in data
            and last != vehicle.last_vistoria_on):
        return None
    if not f.raw(vistoria_validity.FIELD):
        return None
    until = f.date(vistoria_validity.FIELD, required=False)
    if until is not None and f.ok("last_vistoria_on"):
        why = vistoria_validity.check(town_id, service.value if service else None, last, until)
        if why:
            f.fail(vistoria_validity.FIELD, why)
    return until


def _cnh_fits(category: str, service: Service) -> bool:
    """A moto-taxi rider needs category A; a taxi driver B or higher."""
    if service == Service.MOTOTAXI:
        return "A" in category and category != "ACC"
    return any(c in category for c in "BCDE")


def _driver_plates(driver: Driver) -> dict:
    return {"vehicle_plates": sorted(v.plate for v in driver.vehicles)}


def _rg(f: Fields) -> tuple[str, str]:
    """The identity card's number and issuing body (both or neither; Nortelândia 127 Art. 10
    III prints them together)."""
    number, why = rg.clean_rg(f.raw("rg_number"))
    if why:
        f.fail("rg_number", why)
    issuer, why = rg.clean_issuer(f.raw("rg_issuer"))
    if why:
        f.fail("rg_issuer", why)
    if number and not issuer and not f.raw("rg_issuer"):
        f.fail("rg_issuer", "informe o órgão expedidor do RG, por exemplo SSP/MT")
    if issuer and not number and not f.raw("rg_number"):
        f.fail("rg_number", "informe o número do RG ou apague o órgão expedidor")
    return number, issuer


def save_driver(town_id: int, data: Mapping[str, Any], *, actor, driver: Driver | None = None,
                lookup: Lookup | None = None) -> Driver:
    """Create or update a driver; `vehicle_plate` (one or more plates) adds vehicle links."""
    lookup = lookup or Lookup(town_id)
    f = Fields(_merged(driver, data))
    category = f.choice("category", DriverCategory)
    service = SERVICE_OF_CATEGORY.get(category)
    _covered(f, town_id, "category", service, driver and SERVICE_OF_CATEGORY[driver.category])
    cpf = digits(f.raw("cpf"))
    if not f.raw("cpf"):
        f.fail("cpf", REQUIRED)
    elif not is_cpf(cpf):
        f.fail("cpf", "CPF inválido: confira os 11 dígitos")
    _unique(f, lookup, "cpf", Driver, "cpf", cpf, driver, "CPF de condutor já cadastrado")
    cnh_number = digits(f.raw("cnh_number"))
    if not f.raw("cnh_number"):
        f.fail("cnh_number", REQUIRED)
    elif len(cnh_number) != 11 or cnh_number != f.raw("cnh_number").replace(" ", ""):
        f.fail("cnh_number", "número da CNH inválido: são 11 algarismos")
    cnh_category = f.text("cnh_category", max_len=3).upper().replace(" ", "")
    if cnh_category and cnh_category not in CNH_CATEGORIES:
        f.fail("cnh_category", f"categoria de CNH desconhecida: {cnh_category!r}")
    elif cnh_category and service and not _cnh_fits(cnh_category, service):
        f.fail("cnh_category", "moto-táxi exige CNH categoria A" if service == Service.MOTOTAXI
               else "táxi exige CNH categoria B ou superior")
    registration = _code(f, "registration_number", 20)
    _unique(f, lookup, "registration_number", Driver, "registration_number", registration,
            driver, "número de registro já cadastrado")
    rg_number, rg_issuer = _rg(f)
    holder = _holder_ref(f, lookup, required=category == DriverCategory.AUXILIAR)
    vehicles = []
    for raw in [p for p in re.split(r"[,;]+", f.raw("vehicle_plate")) if p.strip()]:
        plate = normalise_plate(raw)
        v = lookup.get(Vehicle, "plate", plate) if is_plate(plate) else None
        if v is None:
            f.fail("vehicle_plate", f"veículo de placa {raw.strip()!r} {NOT_FOUND}")
        elif service and v.service != service:
            f.fail("vehicle_plate", f"{label(category)} não conduz {label(v.service).lower()} "
                                    f"({v.plate})")
        elif holder is not None and v.holder is not holder:  # objects: ids wait for a flush
            f.fail("vehicle_plate", f"o veículo {v.plate} é de outro permissionário")
        else:
            vehicles.append(v)
    expiry = f.date("registration_expiry")
    if driver is None or expiry != driver.registration_expiry:
        # revalidated yearly (Nortelândia 127 Art. 8): from the day it is registered, today
        why = document_validity.refusal(town_id, service, "registration",
                                        clock.today(db.session.get(Municipality, town_id)), expiry)
        if why:
            f.fail("registration_expiry", why)
    values = dict(category=category, name=f.text("name"), cpf=cpf, cnh_number=cnh_number,
                  cnh_category=cnh_category, cnh_expiry=f.date("cnh_expiry"),
                  registration_number=registration,
                  registration_expiry=expiry,
                  rg_number=rg_number, rg_issuer=rg_issuer,
                  status=_status_on_create(f, driver))
    _check(f)
    values["holder"] = holder
    if driver is not None:
        values.pop("status")

    def link(row: Driver) -> None:
        for v in vehicles:
            if v not in row.vehicles:
                row.vehicles.append(v)

    return _write("driver", Driver, driver, values, town_id=town_id, actor=actor, lookup=lookup,
                  extra=_driver_plates, apply=link)


def unlink_driver(driver: Driver, vehicle: Vehicle, *, actor) -> None:
    """Stop a driver being registered on a vehicle (audited)."""
    if vehicle not in driver.vehicles:
        raise ValidationFailed({"vehicle_plate": f"{driver.name} não está vinculado a "
                                                 f"{vehicle.plate}"})
    before = _snap(driver, _driver_plates)
    driver.vehicles.remove(vehicle)
    db.session.flush()
    audit.record("driver_updated", "driver", driver.id, before=before,
                 after=_snap(driver, _driver_plates), actor=actor,
                 municipality_id=driver.municipality_id)


def save_permit(town_id: int, data: Mapping[str, Any], *, actor, permit: Permit | None = None,
                lookup: Lookup | None = None) -> Permit:
    """Create or update a Termo de Permissão (taxi) or autorização (moto-taxi)."""
    lookup = lookup or Lookup(town_id)
    f = Fields(_merged(permit, data))
    service = f.choice("service", Service)
    _covered(f, town_id, "service", service, permit and permit.service)
    kind = f.choice("kind", PermitKind, default=PERMIT_KIND_OF_SERVICE.get(service))
    number = _code(f, "number", 30)
    _unique(f, lookup, "number", Permit, "number", number, permit, "número de permissão já cadastrado")
    holder = _holder_ref(f, lookup)
    valid_from = f.date("valid_from")
    valid_until = f.date("valid_until", required=False)
    _period(f, valid_from, valid_until, "valid_until")
    if permit is None or (valid_from, valid_until) != (permit.valid_from, permit.valid_until):
        why = document_validity.refusal(town_id, service, "permit", valid_from, valid_until)
        if why:
            f.fail("valid_until", why)
    values = dict(service=service, kind=kind, number=number, valid_from=valid_from,
                  valid_until=valid_until, status=_status_on_create(f, permit))
    _check(f)
    values["holder"] = holder
    if permit is not None:
        values.pop("status")
    return _write("permit", Permit, permit, values, town_id=town_id, actor=actor, lookup=lookup)


def save_licence(town_id: int, data: Mapping[str, Any], *, actor,
                 licence: Licence | None = None, lookup: Lookup | None = None) -> Licence:
    """Create or update a vehicle's alvará, optionally under a permit of the same holder.

    Refused (ValidationFailed on vehicle_plate, nothing written) when the alvará would be
    issued or moved to a vehicle whose holder owes a fine and the law bars it (Nortelândia
    127 Arts. 23 and 34; see `limits.py`). Other limits are warnings, not refusals.
    """
    lookup = lookup or Lookup(town_id)
    f = Fields(_merged(licence, data))
    vehicle = _vehicle_ref(f, lookup)
    permit = _ref(f, lookup, "permit_number", Permit, "number", f.raw("permit_number").upper(),
                  required=False, what="permissão")
    if vehicle is not None and permit is not None:
        if permit.holder is not vehicle.holder:  # objects: a new row's ids wait for a flush
            f.fail("permit_number", f"a permissão {permit.number} é de outro permissionário")
        elif permit.service != vehicle.service:
            f.fail("permit_number", f"a permissão {permit.number} é de "
                                    f"{label(permit.service).lower()}")
    default_kind = LICENCE_KIND_OF_SERVICE.get(vehicle.service) if vehicle else None
    kind = f.choice("kind", LicenceKind, required=vehicle is not None, default=default_kind)
    number = _code(f, "number", 30)
    _unique(f, lookup, "number", Licence, "number", number, licence, "número de alvará já cadastrado")
    valid_from = f.date("valid_from")
    valid_until = f.date("valid_until")
    _period(f, valid_from, valid_until, "valid_until")
    if vehicle is not None and (licence is None or (valid_from, valid_until)
                                != (licence.valid_from, licence.valid_until)):
        why = document_validity.refusal(town_id, vehicle.service, "licence", valid_from,
                                        valid_until)
        if why:
            f.fail("valid_until", why)
    values = dict(kind=kind, number=number, valid_from=valid_from, valid_until=valid_until,
                  status=_status_on_create(f, licence))
    if vehicle is not None and (licence is None or vehicle is not licence.vehicle):
        # issued or transferred: refused while the holder owes a fine, where the law says so
        cites, owed = limits.debt_bar(
            vehicle, clock.today(db.session.get(Municipality, vehicle.municipality_id)))
        if owed:
            f.fail("vehicle_plate", limits.debt_message(vehicle.holder.name, cites, owed))
    _check(f)
    values.update(vehicle=vehicle, permit=permit)
    if licence is not None:
        values.pop("status")
    return _write("licence", Licence, licence, values, town_id=town_id, actor=actor,
                  lookup=lookup)


def save_insurance(town_id: int, data: Mapping[str, Any], *, actor,
                   insurance: InsurancePolicy | None = None,
                   lookup: Lookup | None = None) -> InsurancePolicy:
    """Create or update a moto-taxi's insurance policy (one number per motorcycle)."""
    lookup = lookup or Lookup(town_id)
    f = Fields(_merged(insurance, data))
    vehicle = _vehicle_ref(f, lookup)
    if vehicle is not None and vehicle.kind != VehicleKind.MOTORCYCLE:
        f.fail("vehicle_plate", "seguro obrigatório só se registra para moto-táxi")
    number = f.text("policy_number", max_len=40).upper()
    if vehicle is not None and number and any(p.policy_number == number and p is not insurance
                                              for p in vehicle.insurance_policies):
        f.fail("policy_number", "apólice já cadastrada para este veículo")
    valid_from = f.date("valid_from")
    valid_until = f.date("valid_until")
    _period(f, valid_from, valid_until, "valid_until")
    values = dict(insurer=f.text("insurer", max_len=120), policy_number=number,
                  valid_from=valid_from, valid_until=valid_until)
    _check(f)
    values["vehicle"] = vehicle
    return _write("insurance", InsurancePolicy, insurance, values, town_id=town_id, actor=actor,
                  lookup=lookup)


# -------------------------------------------------------------------- status changes
_SUBJECTS = {Permit: "permit", Licence: "licence", Driver: "driver"}


def change_status(subject: Permit | Licence | Driver, to_status: Status | str, reason: str, *,
                  actor) -> StatusChange:
    """Suspend, revoke or reactivate a permit, licence or driver registration, with a reason
    (through the one writer of a status, inspector/statuses.py)."""
    errors = {}
    if type(subject) not in statuses.KINDS:
        raise TypeError(f"no status on {type(subject).__name__}")
    target = to_status if isinstance(to_status, Status) else Fields({"s": to_status}).choice(
        "s", Status, required=False)
    reason = re.sub(r"\s+", " ", reason or "").strip()
    if target is None:
        errors["status"] = "situação desconhecida"
    elif (why := statuses.refusal(subject, target)) is not None:
        errors["status"] = why
    if not reason:
        errors["reason"] = "informe o motivo"
    elif len(reason) < 5:
        errors["reason"] = "motivo curto demais: diga por que"
    elif len(reason) > 2000:
        errors["reason"] = "motivo longo demais (máximo 2000 caracteres)"
    if errors:   # already so, and nothing else wrong: someone changed it first (409)
        raise (Conflict if errors == {"status": f"a situação já é “{label(target)}”"}
               else ValidationFailed)(errors)
    # by hand a suspension has no known end (a period is the enforcement act's)
    return statuses.write(subject, target, reason, actor)
