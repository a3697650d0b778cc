"""QR credentials (vehicle stickers, rider badges), their signing keys, passenger reports."""
from __future__ import annotations

import enum
from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, deferred, mapped_column, relationship

from inspector.extensions import db
from inspector.models.registry import Driver, Municipality, TownScoped, Vehicle, _enum


class CredentialKind(str, enum.Enum):
    """What a credential names."""

    VEHICLE = "vehicle"  # sticker on a taxi or motorcycle
    DRIVER = "driver"    # badge on a rider's vest, or a taxi driver's ID card


class ReportCategory(str, enum.Enum):
    """What a passenger reports."""

    UNLICENSED = "unlicensed"
    DRIVING = "driving"
    CONDUCT = "conduct"
    FARE = "fare"
    VEHICLE = "vehicle"
    OTHER = "other"
    FORGED = "forged"   # a code the town did not issue (the "NÃO RECONHECIDA" page)

    @property
    def label(self) -> str:
        """The category in Portuguese, as the form and the queue show it."""
        return {
            "unlicensed": "Veículo ou condutor diferente do cadastro / sem credencial",
            "driving": "Direção perigosa, excesso de passageiros, sem capacete",
            "conduct": "Conduta do condutor (desrespeito, assédio)",
            "fare": "Cobrança ou tarifa",
            "vehicle": "Estado do veículo (limpeza, conservação)",
            "other": "Outro",
            "forged": "Código falso (não reconhecido)",
        }[self.value]


class ReportStatus(str, enum.Enum):
    """Where a report is in the supervisors' queue."""

    NEW = "new"
    DONE = "done"


class SigningKey(db.Model):
    """An Ed25519 key that signs credentials; its private half is encrypted with the app secret.

    The newest key without `retired_at` signs new credentials. A retired key keeps
    verifying until `verify_until`, the last expiry of anything it may have signed.
    """

    __tablename__ = "signing_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    kid: Mapped[int] = mapped_column(Integer, unique=True)
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    private_key_enc: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    retired_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    verify_until: Mapped[date | None] = mapped_column(Date)


class Credential(TownScoped, db.Model):
    """One printed QR code: a signed token naming a vehicle or a driver of one town."""

    __tablename__ = "credentials"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[CredentialKind] = mapped_column(_enum(CredentialKind))
    vehicle_id: Mapped[int | None] = mapped_column(ForeignKey("vehicles.id"), index=True)
    driver_id: Mapped[int | None] = mapped_column(ForeignKey("drivers.id"), index=True)
    token: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # SHA-256 hex of the token
    kid: Mapped[int] = mapped_column(ForeignKey("signing_keys.kid"))
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_on: Mapped[date] = mapped_column(Date)
    issued_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    replaces_id: Mapped[int | None] = mapped_column(ForeignKey("credentials.id"))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_reason: Mapped[str | None] = mapped_column(Text)
    revoked_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))

    municipality: Mapped[Municipality] = relationship()
    vehicle: Mapped[Vehicle | None] = relationship()
    driver: Mapped[Driver | None] = relationship()

    def status_on(self, day: date) -> str:
        """'revoked', 'expired' or 'active' on a day."""
        if self.revoked_at is not None:
            return "revoked"
        if day > self.expires_on:
            return "expired"
        return "active"


class PassengerReport(TownScoped, db.Model):
    """A passenger's report ("denúncia") from a verification page, for the town's supervisors."""

    __tablename__ = "passenger_reports"

    id: Mapped[int] = mapped_column(primary_key=True)
    credential_id: Mapped[int | None] = mapped_column(ForeignKey("credentials.id"), index=True)
    vehicle_id: Mapped[int | None] = mapped_column(ForeignKey("vehicles.id"))
    driver_id: Mapped[int | None] = mapped_column(ForeignKey("drivers.id"))
    seen_status: Mapped[str] = mapped_column(String(30), default="")  # banner the passenger saw
    category: Mapped[ReportCategory] = mapped_column(_enum(ReportCategory))
    text: Mapped[str] = mapped_column(Text)
    contact: Mapped[str] = mapped_column(String(200), default="")
    photo: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))
    photo_mime: Mapped[str | None] = mapped_column(String(30))
    photo_sha256: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[ReportStatus] = mapped_column(_enum(ReportStatus), default=ReportStatus.NEW)
    handled_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    handled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    handling_note: Mapped[str] = mapped_column(Text, default="")

    credential: Mapped[Credential | None] = relationship()
    vehicle: Mapped[Vehicle | None] = relationship()
    driver: Mapped[Driver | None] = relationship()
