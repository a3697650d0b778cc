"""The append-only, hash-chained audit log: one chain per town, one for the deployment."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from inspector.extensions import db


class AuditEntry(db.Model):
    """One change: who, when, what, before and after, chained to the previous entry of its
    town (`municipality_id`; NULL: the deployment's own chain)."""

    __tablename__ = "audit_entries"
    # a town's newest entry (its version) in one seek; its entries after a version as a range;
    # one record's entries (a registry page's history, a synced inspection's registry changes)
    # as a range of their own instead of a walk over the town's log (migration 0016); a
    # chain's head and its positions, one per town (migration 0032)
    __table_args__ = (Index("ix_audit_entries_municipality_id_seq", "municipality_id", "seq"),
                      Index("ix_audit_entries_entity_entity_id_seq", "entity", "entity_id", "seq"),
                      UniqueConstraint("municipality_id", "chain_seq",
                                       name="uq_audit_entries_municipality_id_chain_seq"))

    id: Mapped[int] = mapped_column(primary_key=True)
    # the entry's number, unique in the deployment (printed on documents); increasing within
    # a chain, with gaps between a chain's entries where other towns wrote
    seq: Mapped[int] = mapped_column(Integer, unique=True)
    # the entry's position in its town's chain (1, 2, ...); NULL: an entry of the single
    # chain the log was before migration 0032 (the legacy chain, kept as it was)
    chain_seq: Mapped[int | None] = mapped_column(Integer)
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


class AuditDigest(db.Model):
    """One day's digest of every chain's head, published at /transparencia/registro/resumos:
    a copy kept elsewhere shows a rewrite of any town's chain, or of them all. Each digest
    covers the previous day's, so the digests form a chain of their own."""

    __tablename__ = "audit_digests"

    id: Mapped[int] = mapped_column(primary_key=True)
    day: Mapped[date] = mapped_column(Date, unique=True)
    taken_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    heads: Mapped[str] = mapped_column(Text)  # canonical JSON: [{town, position, seq, sha256}]
    prev_digest: Mapped[str | None] = mapped_column(String(64))
    digest: Mapped[str] = mapped_column(String(64), unique=True)
