"""The legal calendar (inspector/rules/calendar.py): holidays checked against the laws that
create them, days without office, and deadlines by Lei 9.784/1999 Art. 66 and CPC Arts. 219/224.

Pure: no database, no Flask. Dates were checked by hand on a calendar.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import holidays
import pytest

from inspector.rules import calendar

D = date
TOWN = calendar.TownCalendar(
    (calendar.Closure(D(2026, 12, 8), "Aniversário da cidade", "Lei nº 12/1990"),), {2026, 2027}
)

# National holidays by the law that creates each (Lei 662/1949 Art. 1º as amended by
# Lei 1.266/1950 and Lei 10.607/2002; Lei 6.802/1980; Lei 14.759/2023), dates on a calendar.
LAW_HOLIDAYS = {
    2025: {
        D(2025, 1, 1): "Lei 662/1949",
        D(2025, 4, 21): "Lei 662/1949",
        D(2025, 5, 1): "Lei 662/1949",
        D(2025, 9, 7): "Lei 662/1949",
        D(2025, 10, 12): "Lei 6.802/1980",
        D(2025, 11, 2): "Lei 662/1949",
        D(2025, 11, 15): "Lei 662/1949",
        D(2025, 11, 20): "Lei 14.759/2023",
        D(2025, 12, 25): "Lei 662/1949",
    },
    2026: {
        D(2026, 1, 1): "Lei 662/1949",
        D(2026, 4, 21): "Lei 662/1949",
        D(2026, 5, 1): "Lei 662/1949",
        D(2026, 9, 7): "Lei 662/1949",
        D(2026, 10, 12): "Lei 6.802/1980",
        D(2026, 11, 2): "Lei 662/1949",
        D(2026, 11, 15): "Lei 662/1949",
        D(2026, 11, 20): "Lei 14.759/2023",
        D(2026, 12, 25): "Lei 662/1949",
    },
    2027: {
        D(2027, 1, 1): "Lei 662/1949",
        D(2027, 4, 21): "Lei 662/1949",
        D(2027, 5, 1): "Lei 662/1949",
        D(2027, 9, 7): "Lei 662/1949",
        D(2027, 10, 12): "Lei 6.802/1980",
        D(2027, 11, 2): "Lei 662/1949",
        D(2027, 11, 15): "Lei 662/1949",
        D(2027, 11, 20): "Lei 14.759/2023",
        D(2027, 12, 25): "Lei 662/1949",
    },
}
# Good Friday (Easter 20/04/2025, 05/04/2026, 28/03/2027): Lei 9.093/1995 Art. 2º, a religious
# holiday "declarado em lei municipal"; the library lists it as national.
GOOD_FRIDAY = {2025: D(2025, 4, 18), 2026: D(2026, 4, 3), 2027: D(2027, 3, 26)}


@pytest.mark.parametrize("year", [2025, 2026, 2027])
def test_library_national_holidays_agree_with_the_laws(year):
    """Lei 662/1949 Art. 1º, Lei 6.802/1980 and Lei 14.759/2023: the library's national days of
    the year are exactly those, plus Good Friday (the one disagreement: Lei 9.093/1995 Art. 2º)."""
    lib = holidays.country_holidays("BR", years=year, language="pt_BR")
    assert set(lib) == set(LAW_HOLIDAYS[year]) | {GOOD_FRIDAY[year]}
    labels = calendar.official_holidays(year)
    for day, law in LAW_HOLIDAYS[year].items():
        assert labels[day] == (f"feriado nacional: {lib[day]} ({law})",)
    assert labels[GOOD_FRIDAY[year]] == ("feriado religioso: Sexta-feira Santa (Lei 9.093/1995, art. 2º)",)


def test_mato_grosso_had_20_november_until_2023_and_adds_nothing_since():
    """MT Lei estadual 7.879/2002 made 20/11 a state holiday (2003-2023); from 2024 it is
    national (Lei 14.759/2023), so MT adds no day of its own."""
    for year in range(2024, 2036):
        national = holidays.country_holidays("BR", years=year)
        with_mt = holidays.country_holidays("BR", subdiv="MT", years=year)
        assert set(with_mt) == set(national), year
    assert D(2023, 11, 20) not in holidays.country_holidays("BR", years=2023)
    assert calendar.why_no_office(D(2023, 11, 20)) == (
        "feriado estadual (MT): Consciência Negra (Lei estadual nº 7.879/2002)"
    )
    assert calendar.why_no_office(D(2024, 11, 20)) == (
        "feriado nacional: Dia Nacional de Zumbi e da Consciência Negra (Lei 14.759/2023)"
    )


def test_every_holiday_the_library_gives_has_its_act_named():
    """Days without office name their source: no holiday of 2003-2035 lacks its law."""
    for year in range(2003, 2036):
        for day, labels in calendar.official_holidays(year).items():
            assert all("lei não identificada" not in label for label in labels), (day, labels)


@pytest.mark.parametrize(
    "day",
    [
        D(2026, 2, 16),
        D(2026, 2, 17),
        D(2026, 2, 18),
        D(2026, 6, 4),
        D(2026, 10, 28),
        D(2026, 12, 24),
        D(2026, 12, 31),
    ],
)
def test_ponto_facultativo_days_are_office_days_unless_the_town_enters_them(day):
    """Carnival, Ash Wednesday, Corpus Christi, 28/10, 24/12 and 31/12 are no holiday by law
    (Lei 662/1949 lists none of them): office days until the town's act closes them."""
    assert calendar.is_office_day(day)
    assert calendar.why_no_office(day, TOWN) is None
    closed = calendar.TownCalendar(
        (calendar.Closure(day, "Ponto facultativo", "Decreto nº 45/2026", "ponto facultativo municipal"),),
        {2026},
    )
    assert calendar.why_no_office(day, closed) == (
        "ponto facultativo municipal: Ponto facultativo (Decreto nº 45/2026)"
    )


def test_why_no_office_names_weekends_holidays_and_town_closures():
    """Days without office (DOMAIN.md): Saturday, Sunday, national holiday, the town's own act;
    an office day has no reason; a date-time is read as its day."""
    assert calendar.why_no_office(D(2026, 12, 12)) == "sábado"
    assert calendar.why_no_office(D(2026, 12, 13)) == "domingo"
    assert calendar.why_no_office(D(2026, 12, 25)) == "feriado nacional: Natal (Lei 662/1949)"
    assert calendar.why_no_office(D(2026, 12, 8), TOWN) == (
        "feriado municipal: Aniversário da cidade (Lei nº 12/1990)"
    )
    assert calendar.why_no_office(D(2026, 12, 8)) is None
    assert calendar.why_no_office(D(2026, 11, 15)) == (
        "domingo e feriado nacional: Proclamação da República (Lei 662/1949)"
    )
    assert calendar.is_office_day(datetime(2026, 12, 9, 23, 59), TOWN)
    assert calendar.closed_reasons(D(2026, 12, 9), TOWN) == ()


def test_a_town_closure_needs_its_reason_and_its_act():
    """A closure is 'set by its law or decree, with its act and number' (DOMAIN.md)."""
    with pytest.raises(ValueError, match="ato"):
        calendar.Closure(D(2026, 12, 8), "Aniversário", "  ")
    with pytest.raises(ValueError, match="motivo"):
        calendar.Closure(D(2026, 12, 8), "", "Lei nº 12/1990")
    with pytest.raises(ValueError):
        calendar.Closure("2026-12-08", "Aniversário", "Lei nº 12/1990")


def test_continuous_explain_says_when_and_why_the_end_moved():
    """Lei 9.784/1999 Art. 66 § 1º: 10 days from 02/12/2026 reach Saturday 12/12 and move to
    Monday 14/12; the line names the days passed over."""
    result = calendar.deadline_days(D(2026, 12, 2), 10, calendar=TOWN)
    assert result.rule == "continuous" and result.count_end == D(2026, 12, 12)
    assert result.moved and result.moved_over == ((D(2026, 12, 12), "sábado"), (D(2026, 12, 13), "domingo"))
    assert result.explain() == (
        "10 dias (Lei 9.784/1999, art. 66): 03/12/2026 a 12/12/2026; "
        "prorrogado para 14/12/2026 (art. 66, § 1º): "
        "12/12 sábado, 13/12 domingo"
    )
    plain = calendar.deadline_days(D(2026, 12, 1), 1, calendar=TOWN)
    assert plain.explain() == "1 dia (Lei 9.784/1999, art. 66): 02/12/2026 a 02/12/2026"
    assert not plain.moved and plain.moved_over == ()


def test_business_explain_names_the_holidays_skipped_with_their_act():
    """CPC Art. 219 (Nortelândia Lei 030/1998 Art. 16 § 2º): the town holiday 08/12 does not
    count; the line cites it and its act, not the plain weekends."""
    result = calendar.deadline_days(D(2026, 12, 1), 10, calendar.BUSINESS, TOWN)
    assert result.last_day == D(2026, 12, 16)
    assert result.explain() == (
        "10 dias úteis (CPC, art. 219): 02/12/2026 a 16/12/2026; "
        "08/12 feriado municipal: Aniversário da cidade (Lei nº 12/1990)"
    )


def test_business_notice_on_saturday_is_taken_as_given_on_monday():
    """CPC Art. 224 caput and § 1º: the start day falling on a day without office moves to the
    next office day and is still left out, so 10 business days from Saturday 05/12/2026 run
    08/12 to 21/12 (no town closure here); the line says so."""
    result = calendar.deadline_days(D(2026, 12, 5), 10, calendar.BUSINESS, calendar.TownCalendar((), {2026}))
    assert (result.deemed_start, result.first_day, result.last_day) == (
        D(2026, 12, 7),
        D(2026, 12, 8),
        D(2026, 12, 21),
    )
    assert result.start_closed == "sábado"
    assert (
        "notificação em 05/12/2026 (sábado) tida como feita em 07/12/2026 "
        "(CPC, art. 224, § 1º)" in result.explain()
    )
    same_day_office = calendar.deadline_days(D(2026, 12, 7), 10, calendar.BUSINESS, TOWN)
    assert same_day_office.deemed_start is None and same_day_office.first_day == D(2026, 12, 9)


def test_to_json_gives_iso_dates():
    """The JSON form (for the API and cards) carries ISO dates and the explanation."""
    data = calendar.deadline_days(D(2026, 12, 15), 10, calendar=TOWN).to_json()
    assert data["last_day"] == "2026-12-28" and data["start"] == "2026-12-15"
    assert data["first_day"] == "2026-12-16" and data["count_end"] == "2026-12-25"
    assert data["moved"] is True and data["incomplete_years"] == []
    assert {"day": "2026-12-25", "reason": "feriado nacional: Natal (Lei 662/1949)"} in data["skipped"]
    assert data["explain"].startswith("10 dias (Lei 9.784/1999, art. 66)")
    hours = calendar.deadline_hours(datetime(2026, 12, 3, 15, 0), 72, TOWN).to_json()
    assert hours["end"] == "2026-12-06T15:00:00" and hours["last_day"] == "2026-12-06"


def test_years_without_a_town_calendar_are_said_not_guessed():
    """DOMAIN.md: a year with no town data shows that the calendar is incomplete."""
    result = calendar.deadline_days(D(2026, 12, 22), 10)
    assert result.incomplete_years == (2026, 2027)
    assert result.explain().endswith("; calendários municipais de 2026 e 2027 não informados")
    one = calendar.deadline_days(D(2026, 12, 22), 10, calendar=calendar.TownCalendar((), [2026]))
    assert one.explain().endswith("; calendário municipal de 2027 não informado")
    assert calendar.deadline_days(D(2026, 12, 22), 10, calendar=TOWN).incomplete_years == ()


@pytest.mark.parametrize("days", [0, -3, True, 1.5, "10", calendar.MAX_DAYS + 1])
def test_a_deadline_needs_a_positive_whole_number_of_days(days):
    """Bad input is refused with a Portuguese message, never counted."""
    with pytest.raises(ValueError, match="prazo"):
        calendar.deadline_days(D(2026, 12, 1), days)


def test_unknown_rule_start_or_hours_are_refused():
    """Only the two counting rules exist; hours need a positive whole number and a time."""
    with pytest.raises(ValueError, match="regra de contagem"):
        calendar.deadline_days(D(2026, 12, 1), 10, "calendar")
    with pytest.raises(ValueError, match="data"):
        calendar.deadline_days("2026-12-01", 10)
    with pytest.raises(ValueError, match="horas"):
        calendar.deadline_hours(datetime(2026, 12, 1, 8), 0)
    with pytest.raises(ValueError, match="hora"):
        calendar.deadline_hours(D(2026, 12, 1), 72)


def test_72_hours_run_minute_to_minute_and_never_move():
    """Tapurah Lei 406/2001 Art. 29 § único (DOMAIN.md): 72 h from Thursday 15:00 end Sunday
    15:00 in Cuiabá time; the end is not moved, the line only says it is a day without office."""
    start = datetime(2026, 12, 3, 15, 0, tzinfo=ZoneInfo("America/Cuiaba"))
    result = calendar.deadline_hours(start, 72, TOWN)
    assert result.end == datetime(2026, 12, 6, 15, 0, tzinfo=ZoneInfo("America/Cuiaba"))
    assert result.end - start == timedelta(hours=72)
    assert result.end_closed == "domingo"
    assert result.explain() == (
        "72 horas, contadas minuto a minuto: 03/12/2026 15:00 a "
        "06/12/2026 15:00; termina em dia sem expediente (domingo), "
        "sem prorrogação"
    )


def test_results_are_frozen():
    """A counted deadline is a value: it cannot be edited after the fact."""
    result = calendar.deadline_days(D(2026, 12, 1), 10, calendar=TOWN)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.last_day = D(2027, 1, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        TOWN.years = frozenset()


def test_over_a_whole_year_each_rule_keeps_its_definition():
    """Lei 9.784 Art. 66: the last day is the first office day on or after start + N days.
    CPC Arts. 219/224: exactly N office days lie after the (deemed) notice day up to the last day,
    which is an office day. Checked for every start day of 2026, N = 1..15."""
    office = {
        D(2026, 1, 1) + timedelta(n): calendar.is_office_day(D(2026, 1, 1) + timedelta(n), TOWN)
        for n in range(800)
    }
    for n in range(365):
        start = D(2026, 1, 1) + timedelta(n)
        for days in range(1, 16):
            cont = calendar.deadline_days(start, days, calendar=TOWN)
            first_open = start + timedelta(days)
            while not office[first_open]:
                first_open += timedelta(1)
            assert cont.last_day == first_open
            bus = calendar.deadline_days(start, days, calendar.BUSINESS, TOWN)
            begin = bus.deemed_start or start
            span = [begin + timedelta(k) for k in range(1, (bus.last_day - begin).days + 1)]
            assert sum(office[d] for d in span) == days and office[bus.last_day]
            assert bus.deemed_start is None if office[start] else office[bus.deemed_start]


def test_the_calendar_module_is_pure():
    """inspector/rules imports no Flask (docs/architecture.md): calendar.py imports only the standard
    library, `holidays` and nothing from inspector."""
    path = Path(calendar.__file__)
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"holidays"}
