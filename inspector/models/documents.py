"""The PDF of a notice as it was issued, with its SHA-256, for the authenticity page.

One row per version: version 1 is made when the act is decided and its notice issued;
a new version is made only when the holder's access code is reset for a reprint (the old
code stops working, so the old paper is superseded). The bytes are never regenerated:
what was handed to the offender is what is kept. See docs/documents.md.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, deferred, mapped_column, relationship

from inspector.extensions import db
from inspector.models.registry import TownScoped


class NoticeDocument(TownScoped, db.Model):
    """One issued version of a notice's PDF: its bytes, size, SHA-256 and why it was made."""

    __tablename__ = "notice_documents"
    __table_args__ = (UniqueConstraint("notice_id", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("notices.id"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    size: Mapped[int] = mapped_column(Integer)
    pdf: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    reason: Mapped[str] = mapped_column(String(200))  # "emissão", "reemissão: novo código"

    notice = relationship("Notice")
