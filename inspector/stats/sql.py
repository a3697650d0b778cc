"""SQL the dashboard shares: a moment's local day, and a period as bounds of a moment column."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import Date

from inspector.enforcement import end_of_local_day
from inspector.stats.period import Period


class local_date(FunctionElement):  # noqa: N801 (an SQL function's name)
    """The local day (Mato Grosso) of a stored UTC moment, computed by the database."""

    type = Date()
    inherit_cache = True
    name = "local_date"


@compiles(local_date, "sqlite")
def _local_date_sqlite(element, compiler, **kw) -> str:
    # UTC-4 all year since 2019 (inspector/clock.py); SQLite has no time zone database
    return f"date({compiler.process(element.clauses, **kw)}, '-4 hours')"


@compiles(local_date, "postgresql")
def _local_date_postgresql(element, compiler, **kw) -> str:
    return f"date(timezone('America/Cuiaba', {compiler.process(element.clauses, **kw)}))"


def within(column, period: Period) -> list:
    """`column` (a UTC moment) falls on a local day of the period: the same bounds the review
    queue's `de` / `ate` filter uses, so a count equals the list it links to."""
    return [column > end_of_local_day(period.first - timedelta(days=1)),
            column <= end_of_local_day(period.last)]
