"""The one clock of the product: the only source of "now" and "today".

Moments are stored and compared in UTC (`now()`). "Today" is always a town's calendar day in
its own IANA zone (`municipalities.timezone`): `today(town)`, `town_day(town, moment)`. A
test at 03:30 UTC is 23:30 of the previous day in Cuiabá, and the product says so.

Where no town exists at all (the deployment-wide audit digest and transparency register, the
signing keys every town shares, the demo before its towns) the day is Mato Grosso's
(America/Cuiaba: UTC-4, with daylight saving until 2019): `default_day`, `default_now`.
Each such use is listed, with its reason, in tests/pure/test_one_clock.py; any
other is a second clock.

Code outside this module never calls `datetime.now`, `date.today` or `datetime.utcnow`
(tests/pure/test_one_clock.py), so that a test moves one clock (time-machine, the `instant`
fixture) and the whole product follows.
"""
from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache

DEFAULT_ZONE = "America/Cuiaba"

try:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

    _DEFAULT_TZ = ZoneInfo(DEFAULT_ZONE)
except Exception:  # pragma: no cover - tzdata missing: the same offset, fixed
    _DEFAULT_TZ = timezone(timedelta(hours=-4))


def zone(name: str | None) -> tzinfo:
    """The time zone of an IANA name (Mato Grosso's for None or ""). ValueError for a name
    that is not one: "Local", a path, a file outside the zone database are refused."""
    name = (name or "").strip()
    if not name or name == DEFAULT_ZONE:
        return _DEFAULT_TZ
    # available_timezones() is the tz database's own list: ZoneInfo alone would also open
    # names such as "posixrules" or "Factory", which no town lives in
    if len(name) > 40 or name not in _known_zones():
        raise ValueError(f"fuso horário desconhecido: {name!r}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:  # pragma: no cover - listed but absent
        raise ValueError(f"fuso horário desconhecido: {name!r}") from e


# bench/caches.py: listing the zone database costs 69-81 ms a call
@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones()) - {"Factory", "posixrules", "localtime"}


def zone_of(town) -> tzinfo:
    """The zone of `town`: anything with a `timezone` attribute (a Municipality, a row), an
    IANA name, or None (Mato Grosso's)."""
    return zone(town if isinstance(town, str) or town is None else getattr(town, "timezone", None))


def town_day(town, moment: datetime | None = None) -> date:
    """The calendar day at a moment (now by default) on the clock of `town` (see `zone_of`)."""
    return town_moment(town, moment).date()


def today(town) -> date:
    """Today, on the clock of `town` (see `zone_of`): the day every "today" of the product is."""
    return town_moment(town).date()


def town_moment(town, moment: datetime | None = None) -> datetime:
    """A moment (now by default) on the wall clock of `town` (see `zone_of`)."""
    return utc(moment or now()).astimezone(zone_of(town))


def end_of_day(town, day: date) -> datetime:
    """The last instant of `day` on the clock of `town`, in UTC: a deadline "in N days"
    ends there (a day of 23 or 25 hours across a clock change ends at its own midnight)."""
    midnight = datetime.combine(day + timedelta(days=1), datetime.min.time(), zone_of(town))
    return utc(midnight) - timedelta(microseconds=1)


def at_time(town, day: date, at: time | None = None) -> datetime:
    """The moment, in UTC, the clock of `town` reads `at` (midnight by default) on `day`."""
    return utc(datetime.combine(day, at or time(0), zone_of(town)))


def zone_label(town, long: bool = False) -> str:
    """Which clock a time is read on, as a message names it: "horário de MT" ("horário de
    Mato Grosso" when `long`) for Mato Grosso's, else "horário de <the town's name>" (or of
    its zone's name)."""
    name = town if isinstance(town, str) or town is None else getattr(town, "timezone", None)
    if zone(name) is _DEFAULT_TZ:
        return "horário de Mato Grosso" if long else "horário de MT"
    return f"horário de {getattr(town, 'name', None) or name}"


def town_text(town, moment: datetime | None = None) -> str:
    """dd/mm/aaaa hh:mm on the clock of `town`, now by default."""
    return town_moment(town, moment).strftime("%d/%m/%Y %H:%M")


def now() -> datetime:
    """This moment, in UTC."""
    return datetime.now(UTC)


def default_now() -> datetime:
    """This moment on Mato Grosso's clock (for callers that have no town)."""
    return now().astimezone(_DEFAULT_TZ)


def utc(moment: datetime) -> datetime:
    """The moment in UTC; a naive datetime is taken as UTC (SQLite gives them back naive)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def aware(moment: datetime | None) -> datetime | None:
    """`utc()` that lets None through."""
    return None if moment is None else utc(moment)


def default_day(moment: datetime | None = None) -> date:
    """The calendar day in Mato Grosso at a moment (now by default), for callers that have no
    town: a town's day is `town_day`."""
    return utc(moment or now()).astimezone(_DEFAULT_TZ).date()
