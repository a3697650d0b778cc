"""SQL the dashboard shares: a moment's day on a town's clock, and a period as bounds of a moment
column."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import Date

from inspector import clock
from inspector.extensions import db
from inspector.models import Municipality
from inspector.stats.period import Period


def _zone_name(town_id: int | None) -> str:
    town = db.session.get(Municipality, town_id) if town_id is not None else None
    # no town (a figure across towns, or an id with no row): the default clock, Mato Grosso's
    return (getattr(town, "timezone", None) or clock.DEFAULT_ZONE).strip()


class local_date(FunctionElement):  # noqa: N801 (an SQL function's name)
    """The day of a stored UTC moment on the clock of the town `town_id` (its IANA zone),
    computed by the database."""

    type = Date()
    inherit_cache = False   # the SQLite form depends on the zone's offset, not a bound value
    name = "local_date"

    def __init__(self, column, town_id: int | None):
        self.zone = _zone_name(town_id)
        clock.zone(self.zone)   # a name the zone database knows, or ValueError
        super().__init__(column, literal(self.zone))


@compiles(local_date, "sqlite")
def _local_date_sqlite(element, compiler, **kw) -> str:
    # SQLite has no time zone database: the zone's offset today (Mato Grosso: UTC-4 all year
    # since 2019); PostgreSQL below reads the zone at each moment
    offset = clock.now().astimezone(clock.zone(element.zone)).utcoffset() or timedelta()
    column = list(element.clauses)[0]
    return f"date({compiler.process(column, **kw)}, '{int(offset.total_seconds() // 60):+d} minutes')"


@compiles(local_date, "postgresql")
def _local_date_postgresql(element, compiler, **kw) -> str:
    column, zone = list(element.clauses)
    return f"date(timezone({compiler.process(zone, **kw)}, {compiler.process(column, **kw)}))"


def within(column, period: Period, town_id: int | None) -> list:
    """`column` (a UTC moment) falls on a day of the period on the clock of the town `town_id`:
    the same bounds the review queue's `de` / `ate` filter uses, so a count equals the list it
    links to."""
    town = db.session.get(Municipality, town_id) if town_id is not None else None
    return [column > clock.end_of_day(town, period.first - timedelta(days=1)),
            column <= clock.end_of_day(town, period.last)]
