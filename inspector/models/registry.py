"""The regulated fleet of a town: holders, drivers, vehicles, permits, licences, stands."""
from __future__ import annotations

import enum
import unicodedata
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Enum,
    ForeignKey,
    Index,
    LargeBinary,
    Numeric,
    String,
    Table,
    Text,
    UniqueConstraint,
    event,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, deferred, mapped_column, relationship

from inspector.extensions import db

FOLDED_LEN = 300  # NFKD and casefold can lengthen a 200-character name a little


def fold_name(value: str | None) -> str:
    """A name as the search compares it: NFKD, combining marks dropped, casefolded, single
    spaces: 'JOÃO  da Conceição' -> 'joao da conceicao'. Migration 0012 copies this."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", value or "")
                    if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())[:FOLDED_LEN]


def _folded_default(context) -> str:
    """Core INSERTs that bypass the ORM (bulk loads) still get the folded name."""
    return fold_name(context.get_current_parameters().get("name"))


def _enum(cls: type[enum.Enum]) -> Enum:
    """A portable enum column stored as its value (no native PG type to migrate)."""
    return Enum(cls, native_enum=False, length=30, values_callable=lambda e: [m.value for m in e],
                validate_strings=True)


# A JSON document (a citation, an event's data): JSONB on PostgreSQL, JSON text on SQLite;
# Python None is SQL NULL. Values are stored as given: callers pass plain JSON values
# (audit.jsonable). Migration 0031 turned the Text columns that held JSON into this.
JSON_VALUE = JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


class Service(str, enum.Enum):
    TAXI = "taxi"
    MOTOTAXI = "mototaxi"


class HolderKind(str, enum.Enum):
    PERSON = "person"
    COMPANY = "company"


class DriverCategory(str, enum.Enum):
    AUTONOMO = "autonomo"      # owner-driver of a taxi
    AUXILIAR = "auxiliar"      # auxiliary taxi driver, registered to one holder
    MOTOTAXISTA = "mototaxista"  # moto-taxi rider


class VehicleKind(str, enum.Enum):
    CAR = "car"
    MOTORCYCLE = "motorcycle"


class PermitKind(str, enum.Enum):
    PERMISSAO = "permissao"      # Termo de Permissão (taxi)
    AUTORIZACAO = "autorizacao"  # autorização (moto-taxi company)


class LicenceKind(str, enum.Enum):
    ALVARA_LICENCA = "alvara_licenca"
    ALVARA_ESTACIONAMENTO = "alvara_estacionamento"
    ALVARA_MOTOTAXI = "alvara_mototaxi"


class Status(str, enum.Enum):
    ACTIVE = "active"
    SUSPENDED = "suspended"
    REVOKED = "revoked"


class Municipality(db.Model):
    """A town that licenses taxis or moto-taxis under its own laws."""

    __tablename__ = "municipalities"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    ibge_code: Mapped[str] = mapped_column(String(7), unique=True)
    population_seat: Mapped[int]
    population_interior: Mapped[int]
    population_source: Mapped[str] = mapped_column(Text, default="")
    fiscal_unit_name: Mapped[str] = mapped_column(String(10), default="UFM")
    # IANA name of the town's clock; its days are the days the law counts.
    timezone: Mapped[str] = mapped_column(
        String(40), default="America/Cuiaba", server_default="America/Cuiaba")
    # The size the field app keeps a photo at (longest side in px; None: the camera's own
    # bytes) and its JPEG quality (the default's measurement: docs/figures.md, "Photo size").
    photo_max_side: Mapped[int | None] = mapped_column(default=1600, server_default="1600")
    photo_quality: Mapped[int] = mapped_column(default=85, server_default="85")

    dated_values: Mapped[list[DatedValue]] = relationship(
        back_populates="municipality", order_by="DatedValue.valid_from",
        cascade="all, delete-orphan",
    )

    @property
    def population(self) -> int:
        return self.population_seat + self.population_interior

    def value_on(self, kind: str, day: date) -> Decimal | None:
        """The BRL value of a dated quantity ('fiscal_unit', 'minimum_wage') on a day."""
        current = None
        for v in self.dated_values:
            if v.kind == kind and v.valid_from <= day:
                current = v.value_brl
        return current


class DatedValue(db.Model):
    """A BRL amount that holds from a date until the next one of the same kind."""

    __tablename__ = "dated_values"
    __table_args__ = (UniqueConstraint("municipality_id", "kind", "valid_from"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    municipality_id: Mapped[int] = mapped_column(ForeignKey("municipalities.id"))
    kind: Mapped[str] = mapped_column(String(20))  # fiscal_unit | minimum_wage
    valid_from: Mapped[date] = mapped_column(Date)
    value_brl: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    source: Mapped[str] = mapped_column(Text, default="")

    municipality: Mapped[Municipality] = relationship(back_populates="dated_values")


class DecreeValue(db.Model):
    """A value a law leaves to a decree (a fine amount, say), set per town, never invented.

    `key` names the rule-pack parameter it fills; it holds from `valid_from` until the
    next value of the same key. Until one is set the UI shows "não definido".
    """

    __tablename__ = "decree_values"
    __table_args__ = (UniqueConstraint("municipality_id", "key", "valid_from"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    municipality_id: Mapped[int] = mapped_column(ForeignKey("municipalities.id"), index=True)
    key: Mapped[str] = mapped_column(String(120))
    valid_from: Mapped[date] = mapped_column(Date)
    amount: Mapped[Decimal] = mapped_column(Numeric(14, 2))
    unit: Mapped[str] = mapped_column(String(20))  # BRL | UFM | UFIM | minimum_wage
    source: Mapped[str] = mapped_column(Text)      # the decree: number, date
    set_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    set_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TownScoped:
    """Mixin: a row that belongs to exactly one town."""

    municipality_id: Mapped[int] = mapped_column(ForeignKey("municipalities.id"), index=True)


class Stand(TownScoped, db.Model):
    """A taxi or moto-taxi stand (ponto) with its capacity."""

    __tablename__ = "stands"
    __table_args__ = (UniqueConstraint("municipality_id", "code"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(20))
    place: Mapped[str] = mapped_column(String(200))
    capacity: Mapped[int]
    service: Mapped[Service] = mapped_column(_enum(Service), default=Service.TAXI)
    legal_basis: Mapped[str] = mapped_column(String(120), default="")

    vehicles: Mapped[list[Vehicle]] = relationship(back_populates="stand")


class Holder(TownScoped, db.Model):
    """A permit holder: a self-employed driver (CPF) or a company (CNPJ)."""

    __tablename__ = "holders"
    __table_args__ = (UniqueConstraint("municipality_id", "tax_id"),
                      Index("ix_holders_town_name_folded", "municipality_id", "name_folded"))

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[HolderKind] = mapped_column(_enum(HolderKind))
    name: Mapped[str] = mapped_column(String(200))
    # fold_name(name), kept in step by the listener below: accent-free search on any engine
    name_folded: Mapped[str] = mapped_column(String(FOLDED_LEN), default=_folded_default,
                                             server_default="")
    tax_id: Mapped[str] = mapped_column(String(14))  # CPF (11) or CNPJ (14) digits
    address: Mapped[str] = mapped_column(String(300), default="")
    phone: Mapped[str] = mapped_column(String(30), default="")
    email: Mapped[str] = mapped_column(String(200), default="")

    vehicles: Mapped[list[Vehicle]] = relationship(back_populates="holder")
    drivers: Mapped[list[Driver]] = relationship(back_populates="holder")
    permits: Mapped[list[Permit]] = relationship(back_populates="holder")


vehicle_drivers = Table(
    "vehicle_drivers",
    db.metadata,
    Column("vehicle_id", ForeignKey("vehicles.id"), primary_key=True),
    Column("driver_id", ForeignKey("drivers.id"), primary_key=True),
    # a driver's vehicles (the snapshot's links, a rider's badge): migration 0026
    Index("ix_vehicle_drivers_driver_id", "driver_id", "vehicle_id"),
)


class Driver(TownScoped, db.Model):
    """A registered driver (condutor): owner-driver, auxiliary or moto-taxi rider."""

    __tablename__ = "drivers"
    __table_args__ = (UniqueConstraint("municipality_id", "registration_number"),
                      UniqueConstraint("municipality_id", "cpf"),
                      Index("ix_drivers_town_name_folded", "municipality_id", "name_folded"))

    id: Mapped[int] = mapped_column(primary_key=True)
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("holders.id"), index=True)
    category: Mapped[DriverCategory] = mapped_column(_enum(DriverCategory))
    name: Mapped[str] = mapped_column(String(200))
    # fold_name(name), kept in step by the listener below: accent-free search on any engine
    name_folded: Mapped[str] = mapped_column(String(FOLDED_LEN), default=_folded_default,
                                             server_default="")
    cpf: Mapped[str] = mapped_column(String(11))
    # identity card (RG) and its issuing body, printed on the taxi driver's ID card
    # (Nortelândia Lei 127/2009 Art. 10 III); personal data: never on public pages
    rg_number: Mapped[str] = mapped_column(String(20), default="", server_default="")
    rg_issuer: Mapped[str] = mapped_column(String(20), default="", server_default="")
    cnh_number: Mapped[str] = mapped_column(String(11))
    cnh_category: Mapped[str] = mapped_column(String(3))
    cnh_expiry: Mapped[date] = mapped_column(Date)
    registration_number: Mapped[str] = mapped_column(String(20))
    registration_expiry: Mapped[date] = mapped_column(Date)
    status: Mapped[Status] = mapped_column(_enum(Status), default=Status.ACTIVE)
    suspended_until: Mapped[date | None] = mapped_column(Date)  # last day of a suspension period
    photo: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))
    photo_mime: Mapped[str | None] = mapped_column(String(30))
    # 96x128 JPEG made from `photo` when it is set: what the field snapshot ships
    photo_thumb: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))

    holder: Mapped[Holder | None] = relationship(back_populates="drivers")
    vehicles: Mapped[list[Vehicle]] = relationship(secondary=vehicle_drivers,
                                                   back_populates="drivers")


@event.listens_for(Holder.name, "set")
@event.listens_for(Driver.name, "set")
def _keep_name_folded(target, value, _old, _initiator) -> None:
    """Every name set through the ORM refolds `name_folded` (a Core UPDATE must set both)."""
    target.name_folded = fold_name(value)


class Vehicle(TownScoped, db.Model):
    """A licensed car (taxi) or motorcycle (moto-taxi)."""

    __tablename__ = "vehicles"
    __table_args__ = (UniqueConstraint("municipality_id", "plate"),
                      Index("ix_vehicles_town_prefix", "municipality_id", "prefix"),
                      CheckConstraint("vistoria_valid_until IS NULL OR (last_vistoria_on IS NOT "
                                      "NULL AND vistoria_valid_until > last_vistoria_on)",
                                      name="vistoria_valid_until_after_vistoria"))

    id: Mapped[int] = mapped_column(primary_key=True)
    holder_id: Mapped[int] = mapped_column(ForeignKey("holders.id"), index=True)
    stand_id: Mapped[int | None] = mapped_column(ForeignKey("stands.id"))
    service: Mapped[Service] = mapped_column(_enum(Service))
    kind: Mapped[VehicleKind] = mapped_column(_enum(VehicleKind))
    plate: Mapped[str] = mapped_column(String(7))  # ABC1234 or ABC1D23, no dash
    make_model: Mapped[str] = mapped_column(String(120))
    year_of_manufacture: Mapped[int]
    # the exact days, when the admin knows them (CRLV): ages "completarem N anos de
    # fabricação" count from the manufacture date, "anos de uso" from the first licensing
    manufactured_on: Mapped[date | None] = mapped_column(Date)
    first_licensed_on: Mapped[date | None] = mapped_column(Date)
    engine_cc: Mapped[int | None]
    colour: Mapped[str] = mapped_column(String(40))
    doors: Mapped[int | None]
    prefix: Mapped[str] = mapped_column(String(10), default="")
    is_trail: Mapped[bool] = mapped_column(default=False)
    last_vistoria_on: Mapped[date | None] = mapped_column(Date)
    # a validity shortened by the inspector where the law allows it (Nova Santa Helena
    # Lei 535/2013 Art. 32 § 3º; rule pack `periodicity.vistoria_may_be_shortened`)
    vistoria_valid_until: Mapped[date | None] = mapped_column(Date)

    holder: Mapped[Holder] = relationship(back_populates="vehicles")
    stand: Mapped[Stand | None] = relationship(back_populates="vehicles")
    drivers: Mapped[list[Driver]] = relationship(secondary=vehicle_drivers,
                                                 back_populates="vehicles")
    licences: Mapped[list[Licence]] = relationship(back_populates="vehicle",
                                                   order_by="Licence.valid_from.desc()")
    insurance_policies: Mapped[list[InsurancePolicy]] = relationship(
        back_populates="vehicle", order_by="InsurancePolicy.valid_until.desc()")

    @property
    def current_licence(self) -> Licence | None:
        """The newest licence, whatever its status."""
        return self.licences[0] if self.licences else None


class Permit(TownScoped, db.Model):
    """A Termo de Permissão (taxi) or autorização (moto-taxi company)."""

    __tablename__ = "permits"
    __table_args__ = (UniqueConstraint("municipality_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    holder_id: Mapped[int] = mapped_column(ForeignKey("holders.id"), index=True)
    kind: Mapped[PermitKind] = mapped_column(_enum(PermitKind))
    service: Mapped[Service] = mapped_column(_enum(Service))
    number: Mapped[str] = mapped_column(String(30))
    valid_from: Mapped[date] = mapped_column(Date)
    valid_until: Mapped[date | None] = mapped_column(Date)
    status: Mapped[Status] = mapped_column(_enum(Status), default=Status.ACTIVE)
    suspended_until: Mapped[date | None] = mapped_column(Date)  # last day of a suspension period

    holder: Mapped[Holder] = relationship(back_populates="permits")
    licences: Mapped[list[Licence]] = relationship(back_populates="permit")


class Licence(TownScoped, db.Model):
    """An alvará for one vehicle, under a permit, with its validity."""

    __tablename__ = "licences"
    __table_args__ = (UniqueConstraint("municipality_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    permit_id: Mapped[int | None] = mapped_column(ForeignKey("permits.id"))
    kind: Mapped[LicenceKind] = mapped_column(_enum(LicenceKind))
    number: Mapped[str] = mapped_column(String(30))
    valid_from: Mapped[date] = mapped_column(Date)
    valid_until: Mapped[date] = mapped_column(Date)
    status: Mapped[Status] = mapped_column(_enum(Status), default=Status.ACTIVE)
    suspended_until: Mapped[date | None] = mapped_column(Date)  # last day of a suspension period

    vehicle: Mapped[Vehicle] = relationship(back_populates="licences")
    permit: Mapped[Permit | None] = relationship(back_populates="licences")


class InsurancePolicy(TownScoped, db.Model):
    """Moto-taxi passenger/life insurance (Tapurah Arts. 16-17, Nortelândia 030 Art. 11)."""

    __tablename__ = "insurance_policies"

    id: Mapped[int] = mapped_column(primary_key=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    insurer: Mapped[str] = mapped_column(String(120))
    policy_number: Mapped[str] = mapped_column(String(40))
    valid_from: Mapped[date] = mapped_column(Date)
    valid_until: Mapped[date] = mapped_column(Date)

    vehicle: Mapped[Vehicle] = relationship(back_populates="insurance_policies")


class StatusChange(TownScoped, db.Model):
    """One change of status of a permit, licence or driver registration: who, when, why."""

    __tablename__ = "status_changes"
    __table_args__ = (Index("ix_status_changes_subject", "subject_type", "subject_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    subject_type: Mapped[str] = mapped_column(String(20))  # permit | licence | driver
    subject_id: Mapped[int]
    from_status: Mapped[Status | None] = mapped_column(_enum(Status))
    to_status: Mapped[Status] = mapped_column(_enum(Status))
    reason: Mapped[str] = mapped_column(Text)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    # the legal act that made this change (its effect, or its undoing); null: by hand or import
    sanction_id: Mapped[int | None]
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    user = relationship("User")
