"""One clock: `inspector.clock` is the only place the product reads the time of day.

A test moves that one clock (time-machine, the `instant` fixture) and the whole product
follows; a module that asked the system itself (`datetime.now()`, `date.today()`,
`datetime.utcnow()`, `time.time()` read as a date) would keep its own "today", and a
deadline, a passenger's verdict or a dashboard period could disagree with the rest by a day
around midnight in the town (docs/enforcement.md, "Time: one clock per town").
"""
from __future__ import annotations

import ast
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from inspector import clock

PACKAGE = Path(__file__).resolve().parents[2] / "inspector"

# (module, call) read on purpose, each for its reason; anything else is a second clock
ALLOWED = {
    # the rate limiter's `reset_at` is a Unix timestamp of the `limits` library's own clock:
    # the seconds to wait are a difference of two such timestamps, never a date
    ("errors.py", "time.time"),
    # abandoned uploads are swept by their files' modification times, which the operating
    # system stamps on its clock: a difference of seconds, never a date
    ("blueprints/imports/routes.py", "time.time"),
}
# what asks the system for the time: <receiver>.<attribute>(…)
SYSTEM_CLOCK = {("datetime", "now"), ("datetime", "today"), ("datetime", "utcnow"), ("date", "today"),
                ("time", "time"), ("datetime", "utcfromtimestamp")}


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            # `datetime.now`, `date.today`, `time.time`, and `datetime.datetime.now`
            name = receiver.id if isinstance(receiver, ast.Name) else \
                receiver.attr if isinstance(receiver, ast.Attribute) else None
            if (name, node.func.attr) in SYSTEM_CLOCK:
                yield node.lineno, f"{name}.{node.func.attr}"


def second_clocks(package: Path = PACKAGE) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package).as_posix()
        if module == "clock.py":
            continue
        for line, call in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            if (module, call) not in ALLOWED:
                found.append(f"{module}, line {line}: {call}()")
    return found


def test_no_module_but_the_clock_asks_the_system_for_the_time():
    assert second_clocks() == [], "use inspector.clock (now(), today(town), town_day(town, moment))"


def test_the_check_finds_a_second_clock(tmp_path):
    """The check itself can fail: each way of asking the system is found, wherever it hides."""
    (tmp_path / "clock.py").write_text("from datetime import datetime\nNOW = datetime.now()\n")
    (tmp_path / "views.py").write_text(
        "import datetime, time\nfrom datetime import date\n"
        "def a():\n    return date.today()\n"
        "def b():\n    return datetime.datetime.now(datetime.UTC)\n"
        "def c():\n    return datetime.datetime.utcnow()\n"
        "def d():\n    return time.time() > 0\n"
        "def e():\n    return time.monotonic()\n")   # a timer, not a date: allowed
    assert second_clocks(tmp_path) == [
        "views.py, line 4: date.today()", "views.py, line 6: datetime.now()",
        "views.py, line 8: datetime.utcnow()", "views.py, line 10: time.time()"]


def test_every_allowed_call_is_still_there():
    """An allowance whose call was removed is taken out of the list, not kept as a blank cheque."""
    present = {(path.relative_to(PACKAGE).as_posix(), call)
               for path in PACKAGE.rglob("*.py")
               for _, call in _calls(ast.parse(path.read_text(encoding="utf-8")))}
    assert ALLOWED <= present, sorted(ALLOWED - present)


def test_today_is_the_towns_day_in_its_zone():
    """03:30 UTC is 23:30 of the previous day in Cuiabá and 01:30 of the same day on
    Fernando de Noronha's clock (UTC-2)."""
    moment = datetime(2026, 12, 9, 3, 30, tzinfo=UTC)
    assert clock.town_day("America/Cuiaba", moment) == date(2026, 12, 8)
    assert clock.town_day("America/Noronha", moment) == date(2026, 12, 9)
    assert clock.town_day(None, moment) == clock.default_day(moment) == date(2026, 12, 8)


def test_a_day_ends_at_the_towns_midnight_even_across_a_clock_change():
    """Cuiabá's 4 November 2018 began at 01:00 (00:00 did not exist): 3 November ended at
    04:00 UTC and the short 4th at 03:00 UTC of the 5th (23 hours later)."""
    third = clock.end_of_day("America/Cuiaba", date(2018, 11, 3))
    fourth = clock.end_of_day("America/Cuiaba", date(2018, 11, 4))
    assert third + timedelta(microseconds=1) == datetime(2018, 11, 4, 4, 0, tzinfo=UTC)
    assert fourth + timedelta(microseconds=1) == datetime(2018, 11, 5, 3, 0, tzinfo=UTC)
    assert clock.town_day("America/Cuiaba", fourth) == date(2018, 11, 4)


# Where the Mato Grosso default clock is read on purpose: (module, name) -> why no town's
# clock applies there. Anything else that names it holds a second "today" for a town.
DEFAULT_CLOCK = {"default_day", "default_now", "DEFAULT_ZONE", "_DEFAULT_TZ", "LOCAL_TZ",
                 "local_day", "local_now", "local_text", "America/Cuiaba"}
DEFAULT_ALLOWED = {
    ("audit.py", "default_day"): "the daily digest covers every town's chain: it is no town's",
    ("blueprints/transparency/routes.py", "default_day"): "the public register lists every "
                                                          "town's chain and digest",
    ("blueprints/transparency/routes.py", "default_now"): "the register's \"consultado em\" "
                                                          "belongs to no one town",
    ("credentials/keys.py", "default_day"): "one signing key set serves every town",
    ("demo/seed.py", "default_day"): "the demo's day is taken before its towns exist",
    ("vistorias/queries.py", "default_day"): "a token that names no certificate names no town",
    ("blueprints/laws/routes.py", "default_day"): "a law's public page is read by the law, "
                                                  "not by a town's records",
    ("blueprints/registry/kinds.py", "default_day"): "the form table is drawn once, before any "
                                                     "town; the server checks the town's year",
    ("stats/sql.py", "DEFAULT_ZONE"): "a figure across towns, or a town id with no row",
    ("towns/onboarding.py", "DEFAULT_ZONE"): "the zone a new town gets when none is given",
    ("cli/towns.py", "America/Cuiaba"): "`towns create --timezone`'s default, for a new town",
    ("models/registry.py", "America/Cuiaba"): "the column's default, for a town created "
                                              "without one (migration 0023)",
}


def _default_uses(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in DEFAULT_CLOCK:
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute) and node.attr in DEFAULT_CLOCK:
            yield node.lineno, node.attr
        elif isinstance(node, ast.alias) and node.name in DEFAULT_CLOCK:
            yield node.lineno, node.name
        elif isinstance(node, ast.Constant) and node.value == "America/Cuiaba":
            yield node.lineno, node.value


def default_clocks(package: Path = PACKAGE) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package).as_posix()
        if module == "clock.py" or module.startswith("migrations/"):
            continue
        for line, name in _default_uses(ast.parse(path.read_text(encoding="utf-8"))):
            if (module, name) not in DEFAULT_ALLOWED:
                found.append(f"{module}, line {line}: {name}")
    return found


def test_no_module_reads_the_default_clock_for_a_town():
    """A vehicle, an act, a booking, a document or a dashboard belongs to a town: its day is
    `clock.today(town)` / `clock.town_day(town, moment)`, never Mato Grosso's by default."""
    assert default_clocks() == [], "use the town's clock (clock.today, town_day, town_moment)"


def test_the_default_clock_check_finds_a_use(tmp_path):
    """The check itself can fail: each way of naming the default clock is found."""
    (tmp_path / "clock.py").write_text("DEFAULT_ZONE = 'America/Cuiaba'\n")
    (tmp_path / "views.py").write_text(
        "from inspector import clock\nfrom inspector.clock import default_day\n"
        "def a():\n    return default_day()\n"
        "def b():\n    return clock.default_now()\n"
        "def c():\n    return clock.zone('America/Cuiaba')\n"
        "def d():\n    return clock.today(None)\n")   # the town's clock, even when None
    assert default_clocks(tmp_path) == [
        "views.py, line 2: default_day", "views.py, line 4: default_day",
        "views.py, line 6: default_now", "views.py, line 8: America/Cuiaba"]


def test_every_default_allowance_is_still_used():
    """An allowance whose use was removed is taken out of the list."""
    present = {(path.relative_to(PACKAGE).as_posix(), name)
               for path in PACKAGE.rglob("*.py")
               for _, name in _default_uses(ast.parse(path.read_text(encoding="utf-8")))}
    assert set(DEFAULT_ALLOWED) <= present, sorted(set(DEFAULT_ALLOWED) - present)


def test_the_deprecated_aliases_are_gone():
    for name in ("local_day", "local_now", "local_text", "LOCAL_TZ"):
        assert not hasattr(clock, name), name


def test_a_time_names_the_clock_it_is_read_on():
    """Pushes and documents say which clock their times are on: Mato Grosso's for a town on
    it, else the town's own."""
    class Town:
        def __init__(self, name, timezone):
            self.name, self.timezone = name, timezone
    assert clock.zone_label(Town("Tapurah", "America/Cuiaba")) == "horário de MT"
    assert clock.zone_label(Town("Tapurah", "America/Cuiaba"), long=True) == \
        "horário de Mato Grosso"
    assert clock.zone_label(Town("Tapurah", "America/Noronha")) == "horário de Tapurah"
    assert clock.zone_label("America/Rio_Branco") == "horário de America/Rio_Branco"


def test_the_suite_can_run_at_another_instant():
    """INSPECTOR_SUITE_AT moves the whole run's clock (tests/conftest.py, docs/testing.md);
    unset, the run keeps the real clock; a value that is not a moment stops the run."""
    import pytest

    from tests.support.instants import suite_travel

    assert suite_travel({}) is None
    travel = suite_travel({"INSPECTOR_SUITE_AT": "2026-12-05T03:30:00Z"})
    travel.start()
    try:
        assert clock.today("America/Cuiaba") == date(2026, 12, 4)     # Friday, 23:30 there
        assert abs(clock.now() - datetime(2026, 12, 5, 3, 30, tzinfo=UTC)) < timedelta(minutes=1)
    finally:
        travel.stop()
    travel = suite_travel({"INSPECTOR_SUITE_AT": "2026-12-07T12:00"})   # no offset: UTC
    travel.start()
    try:
        assert abs(clock.now() - datetime(2026, 12, 7, 12, tzinfo=UTC)) < timedelta(minutes=1)
    finally:
        travel.stop()
    with pytest.raises(pytest.UsageError, match="INSPECTOR_SUITE_AT inválido"):
        suite_travel({"INSPECTOR_SUITE_AT": "sábado de manhã"})
