"""Instants at which date-sensitive tests run: the hours when Mato Grosso's day and UTC's
differ, the last minute of a local day, a Friday before a weekend, and a day in Cuiabá's last
daylight-saving change (4 November 2018, 00:00 local became 01:00). A test that takes the
`instant` fixture runs once at each, with the process clock moved there (time-machine), so
its verdict cannot depend on the hour or weekday `make test` happens to run."""
from __future__ import annotations

import os
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

# the clock of the test towns the factories make (municipalities.timezone's default)
CUIABA = ZoneInfo("America/Cuiaba")

INSTANTS = {
    "02h30-utc": datetime(2026, 12, 9, 2, 30, tzinfo=UTC),     # 22:30 of the 8th in Cuiabá
    "03h59-utc": datetime(2026, 12, 9, 3, 59, tzinfo=UTC),     # 23:59 of the 8th in Cuiabá
    "sexta-23h59-local": datetime(2026, 12, 12, 3, 59, tzinfo=UTC),  # Friday 11th, 23:59
    "meio-dia-local": datetime(2026, 12, 7, 16, 0, tzinfo=UTC),  # a Monday, office hours
    "horario-de-verao-2018": datetime(2018, 11, 3, 23, 30, tzinfo=UTC),  # 19:30 local, 3 Nov
}


@pytest.fixture(params=list(INSTANTS), ids=list(INSTANTS))
def instant(request) -> datetime:
    """The process clock, moved to one of INSTANTS for the whole test (time keeps running)."""
    moment = INSTANTS[request.param]
    with time_machine.travel(moment, tick=True):
        yield moment


SUITE_AT = "INSPECTOR_SUITE_AT"


def suite_travel(environ=os.environ) -> time_machine.travel | None:
    """The whole suite moved to the instant INSPECTOR_SUITE_AT names (ISO 8601, e.g.
    2026-12-05T03:30:00Z; without an offset, UTC), time running from there; None when unset.
    Started before collection, so that a module's "today" constant is that instant's too."""
    raw = environ.get(SUITE_AT, "").strip()
    if not raw:
        return None
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise pytest.UsageError(f"{SUITE_AT} inválido: {raw!r} (use ISO 8601, ex. "
                                "2026-12-05T03:30:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return time_machine.travel(moment, tick=True)
