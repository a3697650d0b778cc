"""Vistorias: the result of a prior or periodic vistoria made with the field app, decided from
its checklist (docs/vistoria.md), its certificate, and each town's vistoria settings."""
from __future__ import annotations

import enum
from datetime import date, datetime

from sqlalchemy import (
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy import text as sql_text
from sqlalchemy.orm import Mapped, deferred, mapped_column, relationship

from inspector.extensions import db
from inspector.models.registry import JSON_VALUE, TownScoped, Vehicle, _enum


class InspectionKind(str, enum.Enum):
    """What an inspection is: the street check, or one of the law's vistorias."""

    STREET = "street"      # fiscalização
    PRIOR = "prior"        # vistoria prévia (before a first licence or a vehicle change)
    PERIODIC = "periodic"  # vistoria periódica

    @property
    def label(self) -> str:
        return {"street": "Fiscalização", "prior": "Vistoria prévia",
                "periodic": "Vistoria periódica"}[self.value]


class VistoriaResult(str, enum.Enum):
    APPROVED = "approved"
    REJECTED = "rejected"

    @property
    def label(self) -> str:
        return {"approved": "Aprovada", "rejected": "Reprovada"}[self.value]


class Vistoria(TownScoped, db.Model):
    """The decided result of one vistoria inspection, and its certificate when approved.

    `valid_until` is the certificate's last valid day (shortened where the law allows, with
    `shortened_reason`); `return_on` the day a rejected vehicle comes back; `to_fix` the
    failed items as JSON [{item_id, label, law, article, note}]."""

    __tablename__ = "vistorias"
    __table_args__ = (UniqueConstraint("municipality_id", "certificate_number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    inspection_id: Mapped[int] = mapped_column(ForeignKey("inspections.id"), unique=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    kind: Mapped[InspectionKind] = mapped_column(_enum(InspectionKind))
    performed_on: Mapped[date] = mapped_column(Date)
    result: Mapped[VistoriaResult] = mapped_column(_enum(VistoriaResult))
    law: Mapped[str] = mapped_column(String(60))
    article: Mapped[str] = mapped_column(String(120))          # the kind's article
    period_article: Mapped[str | None] = mapped_column(String(120))  # where its period comes from
    normal_until: Mapped[date | None] = mapped_column(Date)
    valid_until: Mapped[date | None] = mapped_column(Date)
    shortened_reason: Mapped[str | None] = mapped_column(Text)
    return_on: Mapped[date | None] = mapped_column(Date)
    to_fix: Mapped[list] = mapped_column(JSON_VALUE, default=list)
    decided_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    certificate_number: Mapped[str | None] = mapped_column(String(30))
    token: Mapped[str | None] = mapped_column(String(200))
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    pdf: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))
    pdf_sha256: Mapped[str | None] = mapped_column(String(64))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_reason: Mapped[str | None] = mapped_column(Text)

    vehicle: Mapped[Vehicle] = relationship()
    agent = relationship("User")
    inspection = relationship("Inspection")


class VistoriaSettings(db.Model):
    """A town's vistoria settings (docs/vistoria.md, "Return date")."""

    __tablename__ = "vistoria_settings"

    municipality_id: Mapped[int] = mapped_column(ForeignKey("municipalities.id"), primary_key=True)
    return_days: Mapped[int] = mapped_column(Integer, default=15)
    reminder_days: Mapped[str] = mapped_column(String(20), default="30,7")  # days before due


class VistoriaPlace(TownScoped, db.Model):
    """Where and when a town holds vistorias: weekdays (0 = Monday), opening hours in the
    town's time, and how many vehicles an hour (the agenda's slots)."""

    __tablename__ = "vistoria_places"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    address: Mapped[str] = mapped_column(String(200), default="")
    weekdays: Mapped[str] = mapped_column(String(20), default="0,1,2,3,4")
    start_hour: Mapped[int] = mapped_column(Integer, default=8)
    end_hour: Mapped[int] = mapped_column(Integer, default=12)
    slots_per_hour: Mapped[int] = mapped_column(Integer, default=2)
    active: Mapped[bool] = mapped_column(default=True)


class AppointmentStatus(str, enum.Enum):
    BOOKED = "booked"
    DONE = "done"
    NO_SHOW = "no_show"
    CANCELLED = "cancelled"

    @property
    def label(self) -> str:
        return {"booked": "Agendada", "done": "Realizada", "no_show": "Não compareceu",
                "cancelled": "Cancelada"}[self.value]


class VistoriaAppointment(TownScoped, db.Model):
    """A vehicle booked for a vistoria at a place and time (the slot's start, UTC)."""

    __tablename__ = "vistoria_appointments"
    # one vehicle a slot: of two people booking its last place at once, the database keeps one
    __table_args__ = (Index("uq_vistoria_appointments_booked_slot", "place_id", "starts_at",
                            unique=True, sqlite_where=sql_text("status = 'booked'"),
                            postgresql_where=sql_text("status = 'booked'")),)

    id: Mapped[int] = mapped_column(primary_key=True)
    place_id: Mapped[int] = mapped_column(ForeignKey("vistoria_places.id"), index=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    kind: Mapped[InspectionKind] = mapped_column(_enum(InspectionKind))
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    status: Mapped[AppointmentStatus] = mapped_column(_enum(AppointmentStatus),
                                                      default=AppointmentStatus.BOOKED)
    booked_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    booked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    place: Mapped[VistoriaPlace] = relationship()
    vehicle: Mapped[Vehicle] = relationship()


class VistoriaReminder(TownScoped, db.Model):
    """A reminder sent to a vehicle's holder before its vistoria falls due: once per due day,
    lead (days before) and channel (push, email)."""

    __tablename__ = "vistoria_reminders"
    __table_args__ = (UniqueConstraint("vehicle_id", "due_on", "lead_days", "channel"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    holder_id: Mapped[int] = mapped_column(ForeignKey("holders.id"))
    due_on: Mapped[date] = mapped_column(Date)        # the vistoria's last valid day
    lead_days: Mapped[int] = mapped_column(Integer)
    channel: Mapped[str] = mapped_column(String(10))  # push | email
    address: Mapped[str] = mapped_column(String(200), default="")  # the e-mail it went to
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
