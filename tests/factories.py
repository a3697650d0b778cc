"""Test data builders: one function per model, sensible defaults, override anything."""
from __future__ import annotations

import itertools
from datetime import date, timedelta

from inspector.extensions import db
from inspector.identifiers import make_cnpj, make_cpf
from inspector.models import (
    DatedValue,
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
    Role,
    Service,
    Stand,
    Status,
    User,
    Vehicle,
    VehicleKind,
)
from inspector.security import hash_password

PASSWORD = "senha-de-teste-123"
_seq = itertools.count(1)
_HASH = None

TOWNS = {
    "tapurah": ("Tapurah", "5108006", "UFIM"),
    "nortelandia": ("Nortelândia", "5106000", "UFM"),
    "sapezal": ("Sapezal", "5107875", "UFM"),
    "nova-santa-helena": ("Nova Santa Helena", "5106190", "UFM"),
}


def n() -> int:
    return next(_seq)


def town(slug: str = "tapurah", **kw) -> Municipality:
    """A town by slug, created once. Its population (1,000,000 unless `seat`/`interior` say)
    lets the quotas per inhabitants (Tapurah 406 Art. 5, Nova Santa Helena 535 Art. 3 § 3º)
    hold any fleet a test registers; a test of a quota gives the figures it needs."""
    found = db.session.scalar(db.select(Municipality).filter_by(slug=slug))
    if found:
        return found
    name, ibge, unit = TOWNS.get(slug, (slug.title(), str(5100000 + n()), "UFM"))
    t = Municipality(slug=slug, name=name, ibge_code=ibge, population_seat=kw.pop("seat", 600_000),
                     population_interior=kw.pop("interior", 400_000), fiscal_unit_name=unit, **kw)
    db.session.add(t)
    db.session.flush()
    db.session.add(DatedValue(municipality_id=t.id, kind="minimum_wage",
                              valid_from=date(2026, 1, 1), value_brl=1621))
    db.session.flush()
    return t


def user(role: str = "admin", town_slug: str = "tapurah", username: str | None = None,
         **kw) -> User:
    """A user with the test password."""
    global _HASH
    _HASH = _HASH or hash_password(PASSWORD)
    t = town(town_slug)
    u = User(municipality_id=t.id, username=username or f"{role}.{town_slug}.{n()}",
             name=kw.pop("name", f"{role.title()} de Teste"), role=Role(role),
             password_hash=_HASH, **kw)
    db.session.add(u)
    db.session.flush()
    return u


def holder(town_slug: str = "tapurah", company: bool = False, **kw) -> Holder:
    t = town(town_slug)
    i = n()
    h = Holder(municipality_id=t.id, kind=HolderKind.COMPANY if company else HolderKind.PERSON,
               name=kw.pop("name", f"{'Empresa' if company else 'Titular'} {i}"),
               tax_id=kw.pop("tax_id", make_cnpj(f"{i:08d}0001") if company
                             else make_cpf(f"{i + 100000000:09d}")),
               address=kw.pop("address", f"Rua {i}, Centro"), **kw)
    db.session.add(h)
    db.session.flush()
    return h


def stand(town_slug: str = "tapurah", **kw) -> Stand:
    t = town(town_slug)
    s = Stand(municipality_id=t.id, code=kw.pop("code", f"P{n()}"),
              place=kw.pop("place", "Praça Central"), capacity=kw.pop("capacity", 4), **kw)
    db.session.add(s)
    db.session.flush()
    return s


def vehicle(town_slug: str = "tapurah", service: str = "mototaxi", **kw) -> Vehicle:
    t = town(town_slug)
    i = n()
    moto = service == "mototaxi"
    v = Vehicle(municipality_id=t.id, holder=kw.pop("holder", None) or holder(town_slug),
                service=Service(service), kind=VehicleKind.MOTORCYCLE if moto else VehicleKind.CAR,
                plate=kw.pop("plate", f"QB{chr(65 + i % 26)}{i % 10}{chr(65 + i // 10 % 26)}{i % 100:02d}"),
                make_model=kw.pop("make_model", "Honda CG 160" if moto else "Chevrolet Onix"),
                year_of_manufacture=kw.pop("year_of_manufacture", 2024),
                engine_cc=kw.pop("engine_cc", 160 if moto else 1000),
                colour=kw.pop("colour", "Vermelha" if moto else "Branca"),
                doors=kw.pop("doors", None if moto else 4), prefix=kw.pop("prefix", f"{i:04d}"),
                # vistoriado a month ago: where the law licenses only after a vistoria, a vehicle
                # with none is irregular (docs/vistoria.md); pass None to have none
                last_vistoria_on=kw.pop("last_vistoria_on", date.today() - timedelta(days=30)),
                **kw)
    db.session.add(v)
    db.session.flush()
    return v


def driver(town_slug: str = "tapurah", category: str = "mototaxista", **kw) -> Driver:
    t = town(town_slug)
    i = n()
    d = Driver(municipality_id=t.id, category=DriverCategory(category),
               name=kw.pop("name", f"Condutor {i}"), cpf=kw.pop("cpf", make_cpf(f"{i + 200000000:09d}")),
               cnh_number=kw.pop("cnh_number", f"{i:011d}"), cnh_category=kw.pop("cnh_category", "A"),
               cnh_expiry=kw.pop("cnh_expiry", date.today() + timedelta(days=700)),
               registration_number=kw.pop("registration_number", f"R-{i:05d}"),
               registration_expiry=kw.pop("registration_expiry", date.today() + timedelta(days=200)),
               **kw)
    db.session.add(d)
    db.session.flush()
    return d


def permit(h: Holder, service: str = "mototaxi", **kw) -> Permit:
    p = Permit(municipality_id=h.municipality_id, holder_id=h.id,
               kind=PermitKind.AUTORIZACAO if service == "mototaxi" else PermitKind.PERMISSAO,
               service=Service(service), number=kw.pop("number", f"TP-{n()}"),
               valid_from=kw.pop("valid_from", date(2018, 1, 1)), **kw)  # before every `instant`
    db.session.add(p)
    db.session.flush()
    return p


def licence(v: Vehicle, **kw) -> Licence:
    lic = Licence(municipality_id=v.municipality_id, vehicle_id=v.id,
                  kind=kw.pop("kind", LicenceKind.ALVARA_MOTOTAXI if v.service == Service.MOTOTAXI
                              else LicenceKind.ALVARA_ESTACIONAMENTO),
                  number=kw.pop("number", f"AL-{n()}"),
                  valid_from=kw.pop("valid_from", date.today() - timedelta(days=100)),
                  valid_until=kw.pop("valid_until", date.today() + timedelta(days=265)),
                  status=kw.pop("status", Status.ACTIVE), **kw)
    db.session.add(lic)
    db.session.flush()
    return lic


def insurance(v: Vehicle, **kw) -> InsurancePolicy:
    p = InsurancePolicy(municipality_id=v.municipality_id, vehicle_id=v.id,
                        insurer=kw.pop("insurer", "Seguradora Teste"),
                        policy_number=kw.pop("policy_number", f"AP-{n()}"),
                        valid_from=kw.pop("valid_from", date.today() - timedelta(days=30)),
                        valid_until=kw.pop("valid_until", date.today() + timedelta(days=335)), **kw)
    db.session.add(p)
    db.session.flush()
    return p
