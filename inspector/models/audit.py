"""The append-only, hash-chained audit log."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from inspector.extensions import db


class AuditEntry(db.Model):
    """One change: who, when, what, before and after, chained to the previous entry."""

    __tablename__ = "audit_entries"
    # a town's newest entry (its version) in one seek; its entries after a version as a range;
    # one record's entries (a registry page's history, a synced inspection's registry changes)
    # as a range of their own instead of a walk over the town's log (migration 0016)
    __table_args__ = (Index("ix_audit_entries_municipality_id_seq", "municipality_id", "seq"),
                      Index("ix_audit_entries_entity_entity_id_seq", "entity", "entity_id", "seq"))

    id: Mapped[int] = mapped_column(primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    actor: Mapped[str] = mapped_column(String(120))
    municipality_id: Mapped[int | None] = mapped_column(ForeignKey("municipalities.id"))
    action: Mapped[str] = mapped_column(String(60))
    entity: Mapped[str] = mapped_column(String(40))
    entity_id: Mapped[str] = mapped_column(String(40))
    # canonical JSON text, kept as text (not JSON/JSONB): the hash covers these exact bytes,
    # and JSONB would re-encode them (key order, number spelling); read with audit.values()
    before: Mapped[str | None] = mapped_column(Text)
    after: Mapped[str | None] = mapped_column(Text)
    prev_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hash: Mapped[str] = mapped_column(String(64), unique=True)
