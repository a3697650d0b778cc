"""One legal calendar: days without office in a Mato Grosso town and deadlines counted by law.

Pure: no Flask, no database. National and Mato Grosso holidays come from the pinned `holidays`
library (public category only: Carnival, Corpus Christi, 28/10, 24/12 and 31/12 are "ponto
facultativo" and count only when the town enters them as closures). The town's own holidays
and closure days are data the caller passes in (`TownCalendar`), with the years it entered.

Counting rules (docs: ../shared/DOMAIN.md, "Readings settled by the product owner"):
- `continuous` — Lei 9.784/1999 Art. 66: start day out, last day in, days run on; a last day
  without office moves to the next office day (§ 1º). Default for the five laws.
- `business` — CPC/2015 Arts. 219 and 224 (Nortelândia Lei 030/1998 Art. 16 § 2º): only office
  days count; a notice given on a day without office is taken as given on the next office day
  (Art. 224 § 1º), which is itself left out (Art. 224 caput), so counting starts the office day
  after that.
- hours (`deadline_hours`) — minute to minute, never moved (a deadline to repair, not to file).
  Hours are elapsed time, counted on UTC instants: a clock change inside them (Cuiabá, 4 Nov
  2018, 00:00 became 01:00) moves the end on the wall clock, never shortens the span.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache, cached_property

import holidays

CONTINUOUS = "continuous"
BUSINESS = "business"
RULES = (CONTINUOUS, BUSINESS)
MAX_DAYS = 3660  # ten years: no law here sets more than 30 days; stops a runaway count

# The act that creates each day the library lists for Brazil, by its pt-BR name.
# Lei 662/1949 Art. 1º as amended by Lei 10.607/2002 lists 1/1, 21/4, 1/5, 7/9, 2/11, 15/11, 25/12.
NATIONAL_ACTS = {
    "Confraternização Universal": "Lei 662/1949",
    "Tiradentes": "Lei 662/1949",
    "Dia do Trabalhador": "Lei 662/1949",
    "Independência do Brasil": "Lei 662/1949",
    "Finados": "Lei 662/1949",
    "Proclamação da República": "Lei 662/1949",
    "Natal": "Lei 662/1949",
    "Nossa Senhora Aparecida": "Lei 6.802/1980",
    "Dia Nacional de Zumbi e da Consciência Negra": "Lei 14.759/2023",
}
# Good Friday is listed by the library as national; federal law makes it a religious holiday
# "declarado em lei municipal" (Lei 9.093/1995 Art. 2º). Kept as a day without office (it only
# ever lengthens a deadline) and labelled with its real source.
RELIGIOUS_ACTS = {"Sexta-feira Santa": "Lei 9.093/1995, art. 2º"}
# Mato Grosso's own: 20 November from 2003 to 2023 (national from 2024).
STATE_ACTS = {"Consciência Negra": "Lei estadual nº 7.879/2002"}

_WEEKDAY = {5: "sábado", 6: "domingo"}


@dataclass(frozen=True)
class Closure:
    """A day the town hall does not open, set by the town's own act (law or decree)."""

    day: date
    reason: str  # "Aniversário da cidade", "Carnaval"
    act: str  # "Lei nº 12/1990", "Decreto nº 45/2026"
    kind: str = "feriado municipal"  # or "ponto facultativo municipal" for a decree's closure

    def __post_init__(self) -> None:
        if not isinstance(self.day, date) or isinstance(self.day, datetime):
            raise ValueError("dia de fechamento deve ser uma data")
        for name in ("reason", "act", "kind"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"fechamento de {self.day:%d/%m/%Y} sem {_FIELD_PT[name]}")

    @property
    def label(self) -> str:
        """pt-BR reason naming its source: 'feriado municipal: Aniversário (Lei nº 12/1990)'."""
        return f"{self.kind}: {self.reason} ({self.act})"


_FIELD_PT = {"reason": "motivo", "act": "ato (lei ou decreto)", "kind": "tipo"}


@dataclass(frozen=True)
class TownCalendar:
    """A town's closures plus the years for which it entered its calendar (others: unknown)."""

    closures: tuple[Closure, ...] = ()
    years: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "closures", tuple(self.closures))
        object.__setattr__(self, "years", frozenset(int(y) for y in self.years))
        for c in self.closures:
            if not isinstance(c, Closure):
                raise ValueError("fechamentos devem ser Closure(day, reason, act)")

    @cached_property
    def _by_day(self) -> dict[date, tuple[Closure, ...]]:
        out: dict[date, tuple[Closure, ...]] = {}
        for c in self.closures:
            out[c.day] = out.get(c.day, ()) + (c,)
        return out

    def closures_on(self, day: date) -> tuple[Closure, ...]:
        """The town's closures on that day (usually none or one)."""
        return self._by_day.get(day, ())


NO_TOWN = TownCalendar()


# bench/caches.py: a deadline of 30 business days counts in 0.13 ms with it, 250 ms without
@cache
def official_holidays(year: int) -> dict[date, tuple[str, ...]]:
    """National, religious (Good Friday) and Mato Grosso holidays of a year, labelled in pt-BR."""
    national = holidays.country_holidays("BR", years=year, language="pt_BR")
    with_mt = holidays.country_holidays("BR", subdiv="MT", years=year, language="pt_BR")
    out: dict[date, tuple[str, ...]] = {}
    for day in sorted(with_mt):
        labels = []
        for name in with_mt.get_list(day):
            labels.append(_official_label(name, state=name not in national.get_list(day)))
        out[day] = tuple(labels)
    return out


def _official_label(name: str, state: bool) -> str:
    if name in RELIGIOUS_ACTS:
        return f"feriado religioso: {name} ({RELIGIOUS_ACTS[name]})"
    if state:
        act = STATE_ACTS.get(name, "lei não identificada")
        return f"feriado estadual (MT): {name} ({act})"
    return f"feriado nacional: {name} ({NATIONAL_ACTS.get(name, 'lei não identificada')})"


def closed_reasons(day: date, calendar: TownCalendar | None = None) -> tuple[str, ...]:
    """Why the town hall is closed that day (weekend, holiday, town closure); () if it opens."""
    if isinstance(day, datetime):
        day = day.date()
    reasons: list[str] = []
    if day.weekday() in _WEEKDAY:
        reasons.append(_WEEKDAY[day.weekday()])
    reasons.extend(official_holidays(day.year).get(day, ()))
    reasons.extend(c.label for c in (calendar or NO_TOWN).closures_on(day))
    return tuple(reasons)


def why_no_office(day: date, calendar: TownCalendar | None = None) -> str | None:
    """One pt-BR line saying why there is no office that day, or None on an office day."""
    reasons = closed_reasons(day, calendar)
    return " e ".join(reasons) if reasons else None


def is_office_day(day: date, calendar: TownCalendar | None = None) -> bool:
    """True when the town hall opens that day."""
    return not closed_reasons(day, calendar)


def _br(day: date, year: bool = True) -> str:
    return day.strftime("%d/%m/%Y" if year else "%d/%m")


def _incomplete(first_year: int, last_year: int, calendar: TownCalendar | None) -> tuple[int, ...]:
    known = (calendar or NO_TOWN).years
    return tuple(y for y in range(first_year, last_year + 1) if y not in known)


def _incomplete_text(years: tuple[int, ...]) -> str:
    if not years:
        return ""
    if len(years) == 1:
        return f"; calendário municipal de {years[0]} não informado"
    listed = ", ".join(str(y) for y in years[:-1]) + f" e {years[-1]}"
    return f"; calendários municipais de {listed} não informados"


@dataclass(frozen=True)
class Deadline:
    """A deadline in days: where counting starts and ends, and every day without office in it."""

    rule: str  # continuous | business
    days: int
    start: date  # the day of the notice (ciência / intimação)
    first_day: date  # the first day counted
    last_day: date  # the last day to act (after any move)
    count_end: date  # where the count itself ended (continuous: before § 1º moved it)
    skipped: tuple[tuple[date, str], ...] = ()  # days without office after start, to last_day
    incomplete_years: tuple[int, ...] = ()  # years touched with no town calendar entered
    start_closed: str | None = None  # why the notice day had no office (None: it had)
    deemed_start: date | None = None  # business rule: the office day the notice is taken as given
    end_closed: str | None = None  # a deadline to repair that ends on a closed day: why (no move)

    @property
    def moved(self) -> bool:
        """True when the last day was moved past days without office (Art. 66 § 1º)."""
        return self.last_day != self.count_end

    @property
    def moved_over(self) -> tuple[tuple[date, str], ...]:
        """The days without office the end was pushed over (from the day the count ended)."""
        return tuple((d, r) for d, r in self.skipped if self.moved and d >= self.count_end)

    def explain(self) -> str:
        """One pt-BR line: rule and article, the span, the holidays skipped or the move, gaps."""
        n = self.days
        if self.rule == BUSINESS:
            text = (
                f"{n} {'dia útil' if n == 1 else 'dias úteis'} (CPC, art. 219): "
                f"{_br(self.first_day)} a {_br(self.last_day)}"
            )
            if self.deemed_start is not None:
                text += (
                    f"; notificação em {_br(self.start)} ({self.start_closed}) "
                    f"tida como feita em {_br(self.deemed_start)} (CPC, art. 224, § 1º)"
                )
            notable = [(d, r) for d, r in self.skipped if r not in _WEEKDAY.values()]
            if notable:
                text += "; " + ", ".join(f"{_br(d, False)} {r}" for d, r in notable)
        else:
            text = (
                f"{n} {'dia' if n == 1 else 'dias'} (Lei 9.784/1999, art. 66): "
                f"{_br(self.first_day)} a {_br(self.count_end)}"
            )
            if self.moved:
                text += f"; prorrogado para {_br(self.last_day)} (art. 66, § 1º): " + ", ".join(
                    f"{_br(d, False)} {r}" for d, r in self.moved_over
                )
        if self.end_closed:
            text += f"; termina em dia sem expediente ({self.end_closed}), sem prorrogação: " \
                    "prazo para reparar"
        return text + _incomplete_text(self.incomplete_years)

    def to_json(self) -> dict:
        """JSON-ready dict with ISO dates."""
        return {
            "rule": self.rule,
            "days": self.days,
            "start": self.start.isoformat(),
            "start_closed": self.start_closed,
            "deemed_start": self.deemed_start.isoformat() if self.deemed_start else None,
            "first_day": self.first_day.isoformat(),
            "count_end": self.count_end.isoformat(),
            "last_day": self.last_day.isoformat(),
            "moved": self.moved,
            "skipped": [{"day": d.isoformat(), "reason": r} for d, r in self.skipped],
            "incomplete_years": list(self.incomplete_years),
            "explain": self.explain(),
        }


def _check_days(days: object) -> int:
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise ValueError("prazo em dias deve ser um número inteiro maior que zero")
    if days > MAX_DAYS:
        raise ValueError(f"prazo de {days} dias excede o limite de {MAX_DAYS} dias")
    return days


def _as_day(value: object, what: str) -> date:
    if isinstance(value, datetime):
        return value.date()
    if not isinstance(value, date):
        raise ValueError(f"{what} deve ser uma data")
    return value


def deadline_days(
    start: date, days: int, rule: str = CONTINUOUS, calendar: TownCalendar | None = None,
    *, moves: bool = True,
) -> Deadline:
    """Count `days` after the notice day `start` by `rule` (Lei 9.784 Art. 66 / CPC 219, 224).

    `moves=False`: a deadline to repair (Tapurah Art. 19's granted days), which ends when its
    days end, closed day or not (only deadlines to file or appeal move: product owner,
    December 2026). Business days (CPC) always end on an office day: nothing to move."""
    start = _as_day(start, "data da notificação")
    days = _check_days(days)
    if rule not in RULES:
        raise ValueError(f"regra de contagem desconhecida: {rule!r} (use {' ou '.join(RULES)})")
    cal = calendar or NO_TOWN
    skipped: list[tuple[date, str]] = []
    deemed = None
    start_reason = why_no_office(start, cal)
    end_closed = None
    if rule == CONTINUOUS:
        first = start + timedelta(days=1)
        count_end = last = start + timedelta(days=days)
        if not moves:
            end_closed = why_no_office(last, cal) or None
        while moves and not is_office_day(last, cal):
            last += timedelta(days=1)
    else:
        begin = start
        if start_reason:  # Art. 224 § 1º: the notice day moves to the next office day
            begin = start + timedelta(days=1)
            while not is_office_day(begin, cal):
                begin += timedelta(days=1)
            deemed = begin
        day, counted, first = begin, 0, None
        while counted < days:
            day += timedelta(days=1)
            if is_office_day(day, cal):
                counted += 1
                first = first or day
        count_end = last = day
    day = start + timedelta(days=1)
    while day <= last:
        reason = why_no_office(day, cal)
        if reason:
            skipped.append((day, reason))
        day += timedelta(days=1)
    return Deadline(
        rule,
        days,
        start,
        first,
        last,
        count_end,
        tuple(skipped),
        _incomplete(start.year, last.year, calendar),
        start_reason,
        deemed,
        end_closed,
    )


@dataclass(frozen=True)
class HourDeadline:
    """A deadline in hours (Tapurah Lei 406/2001 Art. 29 § único): minute to minute, no move."""

    start: datetime
    hours: int
    end: datetime
    end_closed: str | None = None  # why the town hall is closed when it ends (said, not moved)
    incomplete_years: tuple[int, ...] = ()

    def explain(self) -> str:
        """One pt-BR line with the span; says when it ends on a day without office (no move)."""
        fmt = "%d/%m/%Y %H:%M"
        text = (
            f"{self.hours} {'hora' if self.hours == 1 else 'horas'}, contadas minuto a minuto: "
            f"{self.start.strftime(fmt)} a {self.end.strftime(fmt)}"
        )
        if self.end_closed:
            text += f"; termina em dia sem expediente ({self.end_closed}), sem prorrogação"
        return text + _incomplete_text(self.incomplete_years)

    def to_json(self) -> dict:
        """JSON-ready dict with ISO date-times."""
        return {
            "hours": self.hours,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "last_day": self.end.date().isoformat(),
            "end_closed": self.end_closed,
            "incomplete_years": list(self.incomplete_years),
            "explain": self.explain(),
        }


def deadline_hours(start: datetime, hours: int, calendar: TownCalendar | None = None) -> HourDeadline:
    """`hours` after `start`, minute to minute; the end never moves (a deadline to repair).
    An aware `start` (the town's zone) counts elapsed hours across a clock change and gives the
    end on the same zone's wall clock; a naive one is taken as a wall clock without changes."""
    if not isinstance(start, datetime):
        raise ValueError("início do prazo em horas deve ter data e hora")
    if isinstance(hours, bool) or not isinstance(hours, int) or hours < 1:
        raise ValueError("prazo em horas deve ser um número inteiro maior que zero")
    if hours > MAX_DAYS * 24:
        raise ValueError(f"prazo de {hours} horas excede o limite de {MAX_DAYS * 24} horas")
    # elapsed time: aware arithmetic in one zone is wall-clock arithmetic in Python, which a
    # clock change would shorten or stretch; count on the UTC instant, show the start's zone
    end = (start.astimezone(UTC) + timedelta(hours=hours)).astimezone(start.tzinfo) \
        if start.tzinfo is not None else start + timedelta(hours=hours)
    return HourDeadline(
        start, hours, end, why_no_office(end.date(), calendar), _incomplete(start.year, end.year, calendar)
    )
