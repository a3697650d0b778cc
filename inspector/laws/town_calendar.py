"""A town's own calendar: the days its town hall does not open by its own law or decree, and
the years it has entered in full. The legal calendar (`inspector.rules.calendar`) adds
weekends, national and Mato Grosso holidays; these rows are what only the town knows
(../shared/DOMAIN.md, "Days without office": "data per town, each with its act and number,
entered by the town's admin; a year with no town data shows that the calendar is incomplete
instead of guessing").

Every change writes one audit entry in the caller's transaction (the view commits). Moving
the deadlines a new closure reaches is the enforcement area's (`enforcement.deadlines`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from sqlalchemy import bindparam, select

from inspector import audit
from inspector.clock import town_day
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import CLOSURE_KINDS, Municipality, TownCalendarYear, TownClosure
from inspector.rules import Closure, TownCalendar, official_holidays

FIRST_YEAR, LAST_YEAR = 1990, 2100   # the laws here are from 1998 on; nothing sane beyond


# read for every act proposed or delivered: built once, the town a bound parameter
_CLOSURES = (select(TownClosure).where(TownClosure.municipality_id == bindparam("town"))
             .order_by(TownClosure.day))
_ENTERED = select(TownCalendarYear.year).where(TownCalendarYear.municipality_id == bindparam("town"))


def calendar_for(town_id: int) -> TownCalendar:
    """The town's closures and entered years, as the legal calendar reads them."""
    rows = db.session.scalars(_CLOSURES, {"town": town_id}).all()
    years = db.session.scalars(_ENTERED, {"town": town_id}).all()
    return TownCalendar(tuple(closure_of(r) for r in rows), frozenset(years))


def closure_of(row: TownClosure) -> Closure:
    """A stored closure as the legal calendar's `Closure` (its act with number and date)."""
    return Closure(row.day, row.reason, act_text(row), row.kind)


def act_text(row: TownClosure) -> str:
    """"Decreto nº 45/2026, de 10/01/2026": the act as deadlines cite it."""
    return f"{row.act}, de {row.act_date:%d/%m/%Y}"


@dataclass(frozen=True)
class YearView:
    """One year of a town's calendar as the admin page lists it."""

    year: int
    entered: bool
    closures: tuple[TownClosure, ...]
    official: tuple[tuple[date, str], ...]   # national / state holidays on weekdays or not


def year_view(town_id: int, year: int) -> YearView:
    """A year's own closures, whether the town entered it, and the official holidays."""
    rows = db.session.scalars(select(TownClosure).where(
        TownClosure.municipality_id == town_id, TownClosure.day >= date(year, 1, 1),
        TownClosure.day <= date(year, 12, 31)).order_by(TownClosure.day)).all()
    entered = db.session.scalar(select(TownCalendarYear.id).where(
        TownCalendarYear.municipality_id == town_id, TownCalendarYear.year == year)) is not None
    official = tuple((d, " e ".join(labels)) for d, labels in official_holidays(year).items())
    return YearView(year, entered, tuple(rows), official)


def entered_years(town_id: int) -> list[int]:
    """The years the town has entered in full, oldest first."""
    return sorted(db.session.scalars(select(TownCalendarYear.year).where(
        TownCalendarYear.municipality_id == town_id)).all())


def _day(raw: str | None, field: str, errors: dict, what: str) -> date | None:
    raw = (raw or "").strip()
    if not raw:
        errors[field] = f"Informe {what}."
        return None
    try:
        value = date.fromisoformat(raw)
    except ValueError:
        errors[field] = f"Data inválida: {raw!r} (use AAAA-MM-DD)."
        return None
    if not FIRST_YEAR <= value.year <= LAST_YEAR:
        errors[field] = f"Ano fora do intervalo aceito ({FIRST_YEAR} a {LAST_YEAR})."
        return None
    return value


def _text(raw: str | None, field: str, errors: dict, what: str, maximum: int = 200) -> str:
    value = " ".join((raw or "").split())
    if len(value) < 3:
        errors[field] = f"Informe {what}."
    elif len(value) > maximum:
        errors[field] = f"Texto longo demais (máximo {maximum} caracteres)."
    return value


def add_closure(town: Municipality, data: Mapping[str, str], actor) -> TownClosure:
    """Record a day without office set by the town's own act (law or decree, number, date).
    ValidationFailed naming each field that will not do; nothing written then."""
    errors: dict[str, str] = {}
    day = _day(data.get("day"), "day", errors, "o dia sem expediente")
    reason = _text(data.get("reason"), "reason", errors,
                   "o motivo (por exemplo, “Aniversário do município”)")
    act = _text(data.get("act"), "act", errors,
                "o ato que fixa o dia (lei ou decreto e seu número, por exemplo "
                "“Decreto nº 45/2026”)")
    act_date = _day(data.get("act_date"), "act_date", errors, "a data do ato")
    kind = (data.get("kind") or "").strip()
    if kind not in CLOSURE_KINDS:
        errors["kind"] = "Escolha o tipo: feriado municipal (lei) ou ponto facultativo (decreto)."
    if act_date is not None and act_date > town_day(town):   # the town's own today
        errors["act_date"] = "A data do ato não pode ser futura: registre o ato depois de publicado."
    if day is not None and "day" not in errors:
        same = db.session.scalar(select(TownClosure).where(
            TownClosure.municipality_id == town.id, TownClosure.day == day))
        if same is not None:
            errors["day"] = (f"{day:%d/%m/%Y} já está registrado ({same.reason}, "
                             f"{act_text(same)}): remova-o antes para corrigir.")
    if errors:
        raise ValidationFailed(errors)
    row = TownClosure(municipality_id=town.id, day=day, reason=reason, act=act,
                      act_date=act_date, kind=kind, created_by_id=getattr(actor, "id", None))
    db.session.add(row)
    db.session.flush()
    audit.record("town_closure_added", "town_closure", row.id, actor=actor,
                 municipality_id=town.id, after=audit.snapshot(row, exclude=("created_at",)))
    return row


def remove_closure(row: TownClosure, actor) -> None:
    """Remove a closure entered by mistake. Deadlines already issued keep their dates."""
    audit.record("town_closure_removed", "town_closure", row.id, actor=actor,
                 municipality_id=row.municipality_id,
                 before=audit.snapshot(row, exclude=("created_at",)))
    db.session.delete(row)
    db.session.flush()


def _year(raw, errors: dict) -> int | None:
    text = str(raw or "").strip()
    if not (text.isascii() and text.isdigit()) or not FIRST_YEAR <= int(text) <= LAST_YEAR:
        errors["year"] = f"Ano inválido: informe um ano entre {FIRST_YEAR} e {LAST_YEAR}."
        return None
    return int(text)


def set_year_entered(town: Municipality, raw_year, entered: bool, actor) -> int:
    """Say the town's own closures of a year are all entered (or no longer are); returns the
    year. Idempotent: saying it twice writes nothing the second time."""
    errors: dict[str, str] = {}
    year = _year(raw_year, errors)
    if errors:
        raise ValidationFailed(errors)
    row = db.session.scalar(select(TownCalendarYear).where(
        TownCalendarYear.municipality_id == town.id, TownCalendarYear.year == year))
    if entered and row is None:
        row = TownCalendarYear(municipality_id=town.id, year=year,
                               entered_by_id=getattr(actor, "id", None))
        db.session.add(row)
        db.session.flush()
        audit.record("town_calendar_year_entered", "town_calendar_year", row.id, actor=actor,
                     municipality_id=town.id, after={"year": year})
    elif not entered and row is not None:
        audit.record("town_calendar_year_reopened", "town_calendar_year", row.id, actor=actor,
                     municipality_id=town.id, before={"year": year})
        db.session.delete(row)
        db.session.flush()
    return year


__all__ = ["YearView", "act_text", "add_closure", "calendar_for", "closure_of",
           "entered_years", "remove_closure", "set_year_entered", "year_view"]
