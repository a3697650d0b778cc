"""Inspections (vistorias) made in the field, their checklist answers and photo evidence.

Each inspection and each photo carries the UUID the phone gave it, so a resend is
recognised (idempotency) and never stored twice. The inspection keeps the exact
canonical JSON it arrived as and its SHA-256; a photo's original bytes (never
re-encoded) are a record in a pack file (inspections/evidence_store.py).
"""
from __future__ import annotations

import enum
import json
from datetime import date, datetime

from sqlalchemy import (
    BigInteger,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, deferred, mapped_column, relationship

from inspector.extensions import db
from inspector.models.registry import JSON_VALUE, Service, TownScoped, Vehicle, _enum
from inspector.models.vistorias import InspectionKind


class InspectionStatus(str, enum.Enum):
    INCOMPLETE = "incomplete"            # photos declared but not all received yet
    AWAITING_REVIEW = "awaiting_review"  # everything arrived; a supervisor looks next
    REVIEWED = "reviewed"                # a supervisor has looked at it

    @property
    def label(self) -> str:
        return {"incomplete": "Aguardando fotos", "awaiting_review": "Aguardando revisão",
                "reviewed": "Revisada"}[self.value]


class ItemResult(str, enum.Enum):
    OK = "ok"      # conforme
    FAIL = "fail"  # não conforme
    NA = "na"      # não se aplica


class Inspection(TownScoped, db.Model):
    """One vistoria of one vehicle by one agent, exactly as the phone recorded it."""

    __tablename__ = "inspections"
    # The review queue (enforcement/queries.py), newest first, by town, by status,
    # by agent; its days are ranges of finished_at. Each index is in the queue's order after
    # its filter and carries the other filter's column, so a page reads index entries only
    # (never a whole town's rows) whichever index the database picks.
    __table_args__ = (
        Index("ix_inspections_town_finished", "municipality_id", "finished_at", "id"),
        Index("ix_inspections_town_status_finished", "municipality_id", "status", "finished_at",
              "id", "agent_id"),
        Index("ix_inspections_town_agent_finished", "municipality_id", "agent_id", "finished_at",
              "id", "status"),
        # enforcement/pending.py: a town's (or every town's) unproposed inspections
        Index("ix_inspections_pending", "proposed_at", "municipality_id", "completed_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)  # the phone's id, lower-case
    agent_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    service: Mapped[Service] = mapped_column(_enum(Service))
    credential_token: Mapped[str | None] = mapped_column(String(200))  # as scanned, or null
    credential_id: Mapped[int | None] = mapped_column(ForeignKey("credentials.id"))
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    rules_day: Mapped[date] = mapped_column(Date)  # local day whose checklist applied
    snapshot_version: Mapped[int | None] = mapped_column(Integer)
    lat: Mapped[float | None] = mapped_column(Float)
    lon: Mapped[float | None] = mapped_column(Float)
    accuracy_m: Mapped[float | None] = mapped_column(Float)
    body_sha256: Mapped[str] = mapped_column(String(64))
    # the canonical JSON text as received, kept as text (not JSON/JSONB): body_sha256 and the
    # documents that print it cover these exact bytes; read with Inspection.payload
    body: Mapped[str] = deferred(mapped_column(Text, nullable=False))
    ack_name: Mapped[str | None] = mapped_column(String(200))
    ack_signature: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))  # PNG bytes
    status: Mapped[InspectionStatus] = mapped_column(_enum(InspectionStatus), index=True)
    # street (fiscalização), prior or periodic vistoria (models/vistorias.py InspectionKind)
    kind: Mapped[InspectionKind] = mapped_column(_enum(InspectionKind), default=InspectionKind.STREET,
                                                 server_default="street")
    failed_items: Mapped[int] = mapped_column(Integer, default=0)
    registry_changed: Mapped[bool] = mapped_column(default=False)
    registry_changes: Mapped[list | None] = mapped_column(JSON_VALUE)  # audit entries
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # when enforcement made this inspection's proposals (null: complete, still to do)
    proposed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reviewed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    reviewed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    vehicle: Mapped[Vehicle] = relationship()
    agent = relationship("User", foreign_keys=[agent_id])
    items: Mapped[list[InspectionItem]] = relationship(
        back_populates="inspection", order_by="InspectionItem.position",
        cascade="all, delete-orphan")
    photos: Mapped[list[Photo]] = relationship(back_populates="inspection",
                                               order_by="Photo.position",
                                               cascade="all, delete-orphan")

    @property
    def payload(self) -> dict:
        """The body as the phone sent it, parsed (a stored body is always a JSON object)."""
        return json.loads(self.body)


class InspectionItem(db.Model):
    """One checklist answer, with the rule's text and citation as they were that day."""

    __tablename__ = "inspection_items"
    __table_args__ = (UniqueConstraint("inspection_id", "item_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    inspection_id: Mapped[int] = mapped_column(ForeignKey("inspections.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    item_id: Mapped[str] = mapped_column(String(120))
    result: Mapped[ItemResult] = mapped_column(_enum(ItemResult))
    note: Mapped[str] = mapped_column(Text, default="")
    label: Mapped[str | None] = mapped_column(Text)     # the checklist's wording, when known
    citation: Mapped[dict | None] = mapped_column(JSON_VALUE)  # {"law", "article"}, when known

    inspection: Mapped[Inspection] = relationship(back_populates="items")
    photos: Mapped[list[Photo]] = relationship(back_populates="item", order_by="Photo.position")


class Photo(db.Model):
    """A photo declared by an inspection; its bytes arrive later, one request each.

    `received_at` is null until the original bytes arrived and matched `sha256`; the bytes
    are then `size` bytes at `pack_offset` in the pack file `pack` (inspections/evidence_store.py),
    not a column. Photos received before packs (migration 0019) have no pack: their bytes
    are a loose file named by the hash.
    """

    __tablename__ = "inspection_photos"
    # the photos still on their way, few in any deployment: the review queue's "awaiting a
    # photo" test reads them, not every town's photos (migration 0026)
    __table_args__ = (Index("ix_inspection_photos_waiting", "inspection_id",
                            postgresql_where=text("received_at IS NULL AND refused_at IS NULL"),
                            sqlite_where=text("received_at IS NULL AND refused_at IS NULL")),)

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    inspection_id: Mapped[int] = mapped_column(ForeignKey("inspections.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("inspection_items.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))  # declared by the phone, checked on arrival
    mime: Mapped[str] = mapped_column(String(30))
    size: Mapped[int] = mapped_column(Integer)
    taken_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # phone clock
    received_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    width: Mapped[int | None] = mapped_column(Integer)
    height: Mapped[int | None] = mapped_column(Integer)
    exif_taken_at: Mapped[str | None] = mapped_column(String(40))  # DateTimeOriginal (+offset)
    exif_lat: Mapped[float | None] = mapped_column(Float)
    exif_lon: Mapped[float | None] = mapped_column(Float)
    pack: Mapped[str | None] = mapped_column(String(64))
    pack_offset: Mapped[int | None] = mapped_column(BigInteger)
    # The bytes arrived and will never be accepted (not a whole image): no longer awaited.
    refused_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    refused_reason: Mapped[str | None] = mapped_column(String(200))

    inspection: Mapped[Inspection] = relationship(back_populates="photos")
    item: Mapped[InspectionItem] = relationship(back_populates="photos")
