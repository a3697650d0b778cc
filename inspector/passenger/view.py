"""What the passenger's verification page shows: a live banner and only what a passenger
needs to match the ride in front of them (photo, name, plate, model, colour, prefix,
company, licence validity). Nothing else leaves the server: see docs/passenger-page.md."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from inspector import laws, registry, vistorias
from inspector.credentials import Lookup, service_of
from inspector.identifiers import format_plate
from inspector.laws import Reason
from inspector.models import CredentialKind, Driver, HolderKind, Service, Vehicle, VistoriaResult
from inspector.rules import fmt_date

TITLES = {
    "regular": "REGULAR",
    "irregular": "IRREGULAR",
    "suspended": "SUSPENSO",
    "revoked": "CREDENCIAL CANCELADA",
    "expired": "CREDENCIAL VENCIDA",   # red like "revoked", no ride details, its own state
    "unknown": "NÃO RECONHECIDA",
}
SUMMARIES = {
    "regular": "Este transporte está licenciado pela prefeitura hoje. Confira se a foto, o "
               "nome e a placa abaixo são os de quem está com você.",
    "irregular": "Este transporte não está em dia com a lei municipal hoje.",
    "suspended": "A licença deste transporte está suspensa pela prefeitura. Ele não pode "
                 "levar passageiros agora.",
    # a driver's badge whose own registration is the problem (the vehicle is in order)
    "irregular_driver": "Este condutor não está em dia com a lei municipal hoje.",
    "suspended_driver": "O registro deste condutor está suspenso pela prefeitura. Ele não pode "
                        "levar passageiros agora.",
    "revoked": "Este código foi cancelado pela prefeitura e não vale mais. Não embarque; se o "
               "condutor insiste, denuncie.",
    # an expired code cannot say whether the ride is licensed today: the passenger is told
    # not to board, as on the other red pages
    "expired": "Este código venceu e não vale mais. Não embarque: ele não confirma que este "
               "transporte está licenciado hoje. O condutor deve pedir um novo à prefeitura.",
    "unknown": "Este código não foi emitido pela prefeitura ou foi alterado. Não confie nele.",
}


@dataclass(frozen=True)
class Person:
    """A driver as the passenger sees them: name and whether there is a photo."""

    id: int
    name: str
    has_photo: bool


@dataclass(frozen=True)
class Car:
    """A vehicle as the passenger sees it."""

    plate: str
    model: str
    colour: str
    prefix: str
    service: str
    licence_text: str = "sem alvará"   # what is true of the Alvará today: "válido até …"
    vistoria_text: str = ""            # "Vistoria válida até …" where the law sets a period
    permit_text: str = ""              # the permit's, where the law requires one


@dataclass
class View:
    """The page's content, nothing more."""

    state: str
    title: str
    summary: str
    reasons: list[Reason] = field(default_factory=list)
    town: str = ""
    drivers: list[Person] = field(default_factory=list)
    vehicles: list[Car] = field(default_factory=list)
    company: str = ""
    registration_text: str = ""   # what is true of a rider's registration today
    can_report: bool = False
    no_driver: str = ""           # a vehicle nobody registered may drive today: what to do
    instruction: str = ""         # red states: "a permissão deste moto-táxi foi cassada", in
    # the banner after "NÃO EMBARQUE" (the first thing a passenger reads)


def licence_text(lic, on: date) -> str:
    """The Alvará's line as true on `on`: "válido até …" only while it is valid, otherwise
    "vencido em …", "suspenso até …" / "suspenso", "cassado" or "válido a partir de …"."""
    if lic is None:
        return "sem alvará"
    status = str(getattr(lic.status, "value", lic.status))
    if status == "revoked":
        return "cassado"
    if status == "suspended":
        return f"suspenso até {fmt_date(lic.suspended_until)}" if lic.suspended_until else "suspenso"
    if lic.valid_until < on:
        return f"vencido em {fmt_date(lic.valid_until)}"
    if lic.valid_from > on:
        return f"válido a partir de {fmt_date(lic.valid_from)}"
    return f"válido até {fmt_date(lic.valid_until)}"


def registration_text(d: Driver, reasons: list[Reason], on: date) -> str:
    """A driver's registration line as true on `on` (the engine's findings decide whether an
    expired registration is already cancelled, where the law cancels it after a grace)."""
    status = str(getattr(d.status, "value", d.status))
    if status == "revoked":
        # the act behind it, when there is one: "Registro cancelado em … (…)" (laws.standing)
        doc = next((x for x in laws.driver_documents_of(d, on) if x.kind == "registration"), None)
        return f"Registro {doc.words}" if doc is not None else "Registro cassado"
    if status == "suspended":
        end = d.suspended_until
        return f"Registro suspenso até {fmt_date(end)}" if end else "Registro suspenso"
    expiry = d.registration_expiry
    if expiry is None:
        return ""
    if expiry >= on:
        return f"Registro válido até {fmt_date(expiry)}"
    cancelled = next((r for r in reasons if r.rule_id == "driver.registration.cancelled"), None)
    if cancelled is not None:
        # the day it is cancelled: the day after the last day to revalidate (the engine's)
        return f"Registro cancelado em {fmt_date(cancelled.day + timedelta(days=1))}" \
            if cancelled.day else "Registro cancelado"
    return f"Registro vencido em {fmt_date(expiry)}"


def _car(v: Vehicle, on: date) -> Car:
    """The vehicle's lines, each document's effective standing (laws.standing_of): an Alvará
    under a permit that does not hold reads "sem efeito: permissão cassada (…, Art. 17)"."""
    standing = laws.standing_of(v, on, drivers=False)
    lic, permit = standing.document("licence"), standing.document("permit")
    return Car(plate=format_plate(v.plate), model=v.make_model, colour=v.colour,
               prefix=v.prefix, service="Moto-táxi" if v.service == Service.MOTOTAXI else "Táxi",
               licence_text=lic.text if lic is not None else licence_text(v.current_licence, on),
               permit_text=permit.text if permit is not None and permit.state != "none" else "",
               vistoria_text=vistoria_text(v, on))


def vistoria_text(v: Vehicle, on: date) -> str:
    """One line on the vistoria's last valid day ("Vistoria válida até 10/09/2026", or
    "vencida em" once past); empty where the law sets no period or none is recorded."""
    validity = registry.vistoria_valid_until(v, on)
    latest = vistorias.latest_for_vehicle(v.id)
    # a rejected vistoria after the last approved one: the day the vehicle must come back
    back = (f"; reprovada na vistoria de {fmt_date(latest.performed_on)}, retorno até "
            f"{fmt_date(latest.return_on)}"
            if latest is not None and latest.result == VistoriaResult.REJECTED
            and latest.return_on is not None
            and (v.last_vistoria_on is None or latest.performed_on >= v.last_vistoria_on) else "")
    if validity is None:
        return f"Vistoria {back[2:]}" if back else ""
    if on > validity.until:
        return f"Vistoria vencida em {fmt_date(validity.until)}{back}"
    return f"Vistoria válida até {fmt_date(validity.until)}{back}"


INSTRUCTIONS = {
    "revoked": "este código foi cancelado pela prefeitura",
    "expired": "este código venceu e não confirma que o transporte está licenciado hoje",
    "unknown": "este código não foi emitido pela prefeitura ou foi alterado",
}


def _noun(vehicles: list[Vehicle]) -> str:
    return "moto-táxi" if vehicles and vehicles[0].service == Service.MOTOTAXI else "táxi"


def _person(d: Driver) -> Person:
    return Person(id=d.id, name=d.name, has_photo=bool(d.photo_mime))


def _company(vehicles: list[Vehicle]) -> str:
    for v in vehicles:
        if v.service == Service.MOTOTAXI and v.holder.kind == HolderKind.COMPANY:
            return v.holder.name
    return ""


def closed(outcome: str, town: str) -> View:
    """The page of a revoked or expired credential: no ride details, only the warning. Each
    keeps its own state ("revoked" / "expired"), which a report from it stores as what the
    passenger saw (VENCIDA is not CANCELADA on the supervisors' page)."""
    return View(outcome, TITLES[outcome], SUMMARIES[outcome], town=town, can_report=True,
                instruction=INSTRUCTIONS[outcome])


def unavailable(town: str) -> View:
    """The page of a valid code whose town's law the server cannot read now (its rule pack
    is missing): no verdict either way, nothing of the ride; the operator is alerted."""
    return View("unavailable", "Verificação indisponível",
                "Não é possível verificar este código agora. Tente de novo em alguns minutos; "
                "se precisar embarcar já, peça ao condutor o documento do veículo.", town=town)


def unknown(claimed_town: str = "") -> View:
    """The page of a code we did not issue (forged, altered, truncated, made up). It names
    the town the code claims, when that is one of ours, so the passenger can report the code
    there; it shows nothing of any vehicle or driver (the code proves nothing)."""
    if not claimed_town:
        return View("unknown", TITLES["unknown"], SUMMARIES["unknown"],
                    instruction=INSTRUCTIONS["unknown"])
    summary = (f"Este código diz ser da Prefeitura de {claimed_town}, mas não foi emitido por ela "
               "ou foi alterado. Não confie nele.")
    return View("unknown", TITLES["unknown"], summary, town=claimed_town, can_report=True,
                instruction=INSTRUCTIONS["unknown"])


# A sticker cannot tell who is driving, so drivers never change the vehicle's banner; but when
# none of the vehicle's registered drivers may drive today (or it has none), whoever is at the
# wheel is not one the town allowed, and the passenger is told so under the banner.
NO_DRIVER = {
    True: "Nenhum dos condutores cadastrados neste veículo pode dirigir hoje: quem está "
          "dirigindo não foi autorizado pela prefeitura. Não embarque e, se puder, denuncie.",
    False: "Nenhum condutor está cadastrado neste veículo: só quem a prefeitura autorizou pode "
           "dirigi-lo. Peça o crachá do condutor; se não houver, não embarque.",
}


def build(found: Lookup, on: date) -> View:
    """The page for a looked-up token, status computed now."""
    if found.outcome == "unknown":
        return View("unknown", TITLES["unknown"], SUMMARIES["unknown"],
                    instruction=INSTRUCTIONS["unknown"])
    cred = found.credential
    if found.outcome in ("revoked", "expired"):
        return closed(found.outcome, _town_name(cred))
    if cred.kind == CredentialKind.VEHICLE:
        vehicles = [cred.vehicle]
        # Only drivers allowed to drive today are shown: a suspended or lapsed auxiliary
        # must not find his face on a REGULAR page.
        drivers = [d for d in cred.vehicle.drivers if laws.verdict_of(d, on).state == "regular"]
        parts = [laws.verdict_of(cred.vehicle, on)]
        registration = ""
        no_driver = "" if drivers else NO_DRIVER[bool(cred.vehicle.drivers)]
    else:
        drivers, no_driver = [cred.driver], ""
        vehicles = list(cred.driver.vehicles)
        parts = [laws.verdict_of(cred.driver, on)] + [laws.verdict_of(v, on) for v in vehicles]
        registration = registration_text(cred.driver, parts[0].reasons, on)
    judged = laws.combine_verdicts(parts)
    state, reasons = judged.state, judged.reasons
    title, summary = TITLES[state], SUMMARIES[state]
    if state in ("suspended", "irregular") and cred.kind == CredentialKind.DRIVER \
            and all(p.state == "regular" for p in parts[1:]):
        summary = SUMMARIES[f"{state}_driver"]      # the driver is, not the vehicle
    if state == "suspended" and reasons and all(r.until for r in reasons):
        last = max(r.until for r in reasons).strftime("%d/%m/%Y")   # every suspension ends
        title = f"{title} até {last}"
        summary = summary.replace("pela prefeitura.", f"pela prefeitura até {last}.", 1)
    noun = _noun(vehicles)
    first = laws.first_reason(reasons)
    instruction = laws.plain_reason(first, noun) if first is not None and state != "regular" \
        else ""
    # reasons in a passenger's words, each with its article (the registry keeps the engine's)
    plain = []
    for r in reasons:
        said = replace(r, message=_sentence(laws.plain_reason(r, noun)))
        if all(p.message != said.message for p in plain):
            plain.append(said)
    reasons = plain
    return View(state, title, summary, reasons=reasons, town=_town_name(cred),
                instruction=instruction,
                drivers=[_person(d) for d in drivers], vehicles=[_car(v, on) for v in vehicles],
                company=_company(vehicles) if service_of(cred) == Service.MOTOTAXI else "",
                registration_text=registration,
                can_report=True, no_driver=no_driver if state != "suspended" else "")


def _sentence(text: str) -> str:
    return f"{text[:1].upper()}{text[1:]}."


def _town_name(cred) -> str:
    return cred.municipality.name
