"""The one clock of the product: Mato Grosso's time zone and its calendar day.

Every town served so far is in Mato Grosso (America/Cuiaba, UTC-4 all year, no daylight
saving since 2019). Moments are stored in UTC; days that the law counts are the town's
days: a town's own zone (`municipalities.timezone`) is read by `town_day`.
"""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache

DEFAULT_ZONE = "America/Cuiaba"

try:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

    LOCAL_TZ = ZoneInfo(DEFAULT_ZONE)
except Exception:  # pragma: no cover - tzdata missing: the same offset, fixed
    LOCAL_TZ = timezone(timedelta(hours=-4))


@lru_cache(maxsize=64)
def zone(name: str | None) -> tzinfo:
    """The time zone of an IANA name (Mato Grosso's for None or ""). ValueError for a name
    that is not one: "Local", a path, a file outside the zone database are refused."""
    name = (name or "").strip()
    if not name or name == DEFAULT_ZONE:
        return LOCAL_TZ
    # available_timezones() is the tz database's own list: ZoneInfo alone would also open
    # names such as "posixrules" or "Factory", which no town lives in
    if len(name) > 40 or name not in _known_zones():
        raise ValueError(f"fuso horário desconhecido: {name!r}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:  # pragma: no cover - listed but absent
        raise ValueError(f"fuso horário desconhecido: {name!r}") from e


@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones()) - {"Factory", "posixrules", "localtime"}


def town_day(town, moment: datetime | None = None) -> date:
    """The calendar day at a moment (now by default) on the clock of `town` (anything with a
    `timezone` attribute, e.g. a Municipality; None: Mato Grosso's)."""
    moment = utc(moment or datetime.now(UTC))
    return moment.astimezone(zone(getattr(town, "timezone", None))).date()


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
