"""Deadlines as legal cases (tests/rule_cases/deadlines/deadlines.yaml): each names its article.

The expected dates were worked out by hand on a calendar, never with the function under test.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from inspector.rules import calendar
from tests.support.legal_cases import case_params, cases

KEYS = {
    "name",
    "article",
    "rule",
    "from",
    "days",
    "hours",
    "closures",
    "town_years",
    "expect_first_day",
    "expect_last_day",
    "expect_skipped",
    "expect_incomplete",
    "expect_end",
    "expect_end_closed",
    "zone",
}
RAW = cases("deadlines")
CASES = case_params("deadlines")


def _day(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _town(case: dict, first_year: int) -> calendar.TownCalendar:
    closures = [
        calendar.Closure(_day(c["day"]), c["reason"], c["act"], c.get("kind", "feriado municipal"))
        for c in case.get("closures", [])
    ]
    years = case.get("town_years", range(first_year - 1, first_year + 3))
    return calendar.TownCalendar(tuple(closures), frozenset(years))


def test_there_are_enough_cases_of_every_kind():
    """At least 30 cases; continuous (Lei 9.784/1999 Art. 66), business (CPC Art. 219) and hours
    (Tapurah Lei 406/2001 Art. 29 § único) are all there, and every case cites an article."""
    assert len(RAW) >= 30
    assert {c["rule"] for c in RAW} == {"continuous", "business", "hours"}
    assert all(c["article"].strip() and c["name"].strip() for c in RAW)
    assert len({c["name"] for c in RAW}) == len(RAW), "case names are unique"
    articles = " ".join(c["article"] for c in RAW)
    for cited in (
        "Lei 9.784/1999 Art. 66",
        "CPC Art. 219",
        "CPC Art. 224",
        "Nortelândia Lei 030/1998 Art. 16 § 2º",
        "Tapurah Lei 406/2001 Art. 29",
        "Lei 14.759/2023",
        "Lei 6.802/1980",
        "Lei 662/1949",
    ):
        assert cited in articles, cited


@pytest.mark.parametrize("case", CASES)
def test_deadline_case(case):
    """Each case: the last day (or end minute), first day, days without office and the years
    flagged as without a town calendar are what the cited article gives."""
    assert set(case) <= KEYS, sorted(set(case) - KEYS)
    if case["rule"] == "hours":
        start = datetime.fromisoformat(case["from"])
        if "zone" in case:  # a wall time in the town's zone: the hours are elapsed time
            start = start.replace(tzinfo=ZoneInfo(case["zone"]))
        result = calendar.deadline_hours(start, case["hours"], _town(case, start.year))
        assert result.end.replace(tzinfo=None) == datetime.fromisoformat(case["expect_end"]), result.explain()
        if "zone" in case:
            elapsed = result.end.astimezone(UTC) - start.astimezone(UTC)
            assert elapsed == timedelta(hours=case["hours"]), result.explain()
            assert result.end.strftime("%d/%m/%Y %H:%M") in result.explain()
        assert result.end_closed == case.get("expect_end_closed")
        assert list(result.incomplete_years) == case.get("expect_incomplete", [])
        return
    start = _day(case["from"])
    result = calendar.deadline_days(start, case["days"], case["rule"], _town(case, start.year))
    assert result.last_day == _day(case["expect_last_day"]), result.explain()
    if "expect_first_day" in case:
        assert result.first_day == _day(case["expect_first_day"]), result.explain()
    if "expect_skipped" in case:
        expected = {_day(d): r for d, r in case["expect_skipped"].items()}
        assert dict(result.skipped) == expected, result.skipped
    assert list(result.incomplete_years) == case.get("expect_incomplete", [])
    assert calendar.is_office_day(result.last_day, _town(case, start.year))
