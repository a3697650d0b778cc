"""Instants at which date-sensitive tests run: the hours when Mato Grosso's day and UTC's
differ, the last minute of a local day, a Friday before a weekend, and a day in Cuiabá's last
daylight-saving change (4 November 2018, 00:00 local became 01:00). A test that takes the
`instant` fixture runs once at each, with the process clock moved there (time-machine), so
its verdict cannot depend on the hour or weekday `make test` happens to run."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

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
