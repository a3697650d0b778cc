"""The period a dashboard, an export or a list is asked for: local days, both included."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from inspector.errors import ValidationFailed

MAX_DAYS = 3 * 366 + 1   # three years: more than any question the town asks at once
WEEKLY_UP_TO = 62 * 7    # longer periods are shown by month


@dataclass(frozen=True)
class Bucket:
    """A week (or a month) of the period, cut to the period: first and last day, label."""

    first: date
    last: date
    label: str


@dataclass(frozen=True)
class Period:
    """From `first` to `last` (local days, both included)."""

    first: date
    last: date

    @property
    def days(self) -> int:
        """How many days the period holds."""
        return (self.last - self.first).days + 1

    @property
    def weekly(self) -> bool:
        """Whether its buckets are weeks (else months)."""
        return self.days <= WEEKLY_UP_TO

    def args(self) -> dict[str, str]:
        """The period as the lists' query arguments (`de`, `ate`)."""
        return {"de": self.first.isoformat(), "ate": self.last.isoformat()}

    def text(self) -> str:
        """dd/mm/aaaa a dd/mm/aaaa."""
        return f"{self.first:%d/%m/%Y} a {self.last:%d/%m/%Y}"

    def buckets(self) -> list[Bucket]:
        """The weeks (Monday to Sunday) or months that meet the period, cut to it."""
        out = []
        if self.weekly:
            start = self.first - timedelta(days=self.first.weekday())
            while start <= self.last:
                end = start + timedelta(days=6)
                first, last = max(start, self.first), min(end, self.last)
                out.append(Bucket(first, last, f"{first:%d/%m}"))
                start = end + timedelta(days=1)
            return out
        start = self.first.replace(day=1)
        while start <= self.last:
            following = (start + timedelta(days=32)).replace(day=1)
            first, last = max(start, self.first), min(following - timedelta(days=1), self.last)
            out.append(Bucket(first, last, f"{MONTHS[start.month - 1]}/{start:%y}"))
            start = following
        return out

    def bucket_of(self, day: date) -> int:
        """The index of the bucket a day of the period falls in."""
        if self.weekly:
            start = self.first - timedelta(days=self.first.weekday())
            return (day - start).days // 7
        return (day.year - self.first.year) * 12 + day.month - self.first.month


MONTHS = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")
PERIOD_PRESETS = {"30d": "Últimos 30 dias", "12s": "Últimas 12 semanas", "12m": "Últimos 12 meses",
           "ano": "Este ano"}


def preset_period(name: str, today: date) -> Period:
    """A named period ending `today` (the town's): 30 days, 12 weeks (from a Monday), 12
    months, this year."""
    if name == "30d":
        return Period(today - timedelta(days=29), today)
    if name == "12m":
        first = (today.replace(day=1) - timedelta(days=335)).replace(day=1)
        return Period(first, today)
    if name == "ano":
        return Period(today.replace(month=1, day=1), today)
    monday = today - timedelta(days=today.weekday())
    return Period(monday - timedelta(weeks=11), today)


def parse_day(raw: str, name: str) -> date | None:
    """dd/mm/aaaa or AAAA-MM-DD (None when blank); ValidationFailed naming the field."""
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        day = (datetime.strptime(raw, "%d/%m/%Y").date() if "/" in raw
               else date.fromisoformat(raw))
    except ValueError:
        raise ValidationFailed({name: f"Data inválida: “{raw[:20]}”. Use dd/mm/aaaa."}) from None
    if not 1900 <= day.year <= 2999:  # 9999-12-31 has no week after it to draw
        raise ValidationFailed({name: f"Data fora do alcance: “{raw[:20]}”."})
    return day


def period_from_args(args, today: date) -> Period:
    """The period of a query string: `de` and `ate` (either may be left out), or `periodo`
    (a preset), else the last 12 weeks. ValidationFailed for a date that is not one, an end
    before the start or more than three years at once. Presets end on `today`, the town's."""
    first, last = parse_day(args.get("de", ""), "de"), parse_day(args.get("ate", ""), "ate")
    if first is None and last is None:
        return preset_period(args.get("periodo", "12s"), today)
    if last is None:
        last = max(first, today)
    if first is None:
        first = last - timedelta(days=83)
    if last < first:
        raise ValidationFailed({"ate": "O fim do período vem antes do início."})
    if (last - first).days + 1 > MAX_DAYS:
        raise ValidationFailed({"de": "Período longo demais: no máximo três anos de uma vez."})
    return Period(first, last)
