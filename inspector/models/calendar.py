"""A town's own days without office and the years whose calendar it has entered.

National and Mato Grosso holidays come from the legal calendar (`inspector.rules.calendar`);
these rows are the town's own: its holidays and closure days, each set by a law or decree of
the town (number and date), entered by the town's admin (../shared/DOMAIN.md, "Days without
office"). A year the town has not entered is shown as an incomplete calendar wherever a
deadline touches it, never guessed.
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, String, UniqueConstraint, func
from sqlalchemy.orm import Mapped, mapped_column

from inspector.extensions import db
from inspector.models.registry import TownScoped

CLOSURE_KINDS = {"feriado municipal": "Feriado municipal (lei)",
                 "ponto facultativo municipal": "Ponto facultativo / fechamento (decreto)"}


class TownClosure(TownScoped, db.Model):
    """One day the town hall does not open, with the act that says so."""

    __tablename__ = "town_closures"
    __table_args__ = (UniqueConstraint("municipality_id", "day"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    day: Mapped[date] = mapped_column(Date)
    reason: Mapped[str] = mapped_column(String(200))        # "Aniversário da cidade"
    act: Mapped[str] = mapped_column(String(200))           # "Lei nº 12/1990", "Decreto nº 45/2026"
    act_date: Mapped[date] = mapped_column(Date)            # the act's date
    kind: Mapped[str] = mapped_column(String(40))           # CLOSURE_KINDS key
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True),
                                                 server_default=func.now())


class TownCalendarYear(TownScoped, db.Model):
    """A year whose own closures the town has entered in full (none may be a full answer)."""

    __tablename__ = "town_calendar_years"
    __table_args__ = (UniqueConstraint("municipality_id", "year"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    year: Mapped[int] = mapped_column(Integer)
    entered_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    entered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True),
                                                 server_default=func.now())
