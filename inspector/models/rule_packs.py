"""Which version (SHA-256 of the file) of each town's rule pack this database's acts are
judged under: what a start, a restore and `production check` compare the packs on disk with."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.orm import Mapped, mapped_column

from inspector.extensions import db


class RulePackVersion(db.Model):
    """One version of a pack recorded as the one in use; the newest row of a pack id is the
    one in force. Rows are only added: the history says when the law's data changed."""

    __tablename__ = "rule_pack_versions"

    id: Mapped[int] = mapped_column(primary_key=True)
    pack_id: Mapped[str] = mapped_column(String(60), index=True)
    sha256: Mapped[str] = mapped_column(String(64))
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # who recorded it: "start" (first seen by a production start), "towns create",
    # "rules accept" (an operator took a changed pack into use)
    recorded_by: Mapped[str] = mapped_column(String(40))
