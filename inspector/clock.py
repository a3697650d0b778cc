"""The one clock of the product: Mato Grosso's time zone and its calendar day.

Every town served is in Mato Grosso (America/Cuiaba, UTC-4 all year, no daylight saving
since 2019). Moments are stored in UTC; days that the law counts are the town's days.
"""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

try:
    from zoneinfo import ZoneInfo

    LOCAL_TZ = ZoneInfo("America/Cuiaba")
except Exception:  # pragma: no cover - tzdata missing: the same offset, fixed
    LOCAL_TZ = timezone(timedelta(hours=-4))


def now() -> datetime:
    """This moment, in UTC."""
    return datetime.now(UTC)


def local_now() -> datetime:
    """This moment on Mato Grosso's clock."""
    return datetime.now(LOCAL_TZ)


def utc(moment: datetime) -> datetime:
    """The moment in UTC; a naive datetime is taken as UTC (SQLite gives them back naive)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def aware(moment: datetime | None) -> datetime | None:
    """`utc()` that lets None through."""
    return None if moment is None else utc(moment)


def local_day(moment: datetime | None = None) -> date:
    """The calendar day in Mato Grosso at a moment (now by default)."""
    moment = moment or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(LOCAL_TZ).date()


def local_text(moment: datetime) -> str:
    """dd/mm/aaaa hh:mm on Mato Grosso's clock."""
    return utc(moment).astimezone(LOCAL_TZ).strftime("%d/%m/%Y %H:%M")
