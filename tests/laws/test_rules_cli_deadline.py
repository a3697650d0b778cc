"""`flask rules deadline` and `rules check-vehicle` with dates: a lawyer checks a
reading without the web. Dates worked out by hand on a calendar (Christmas 2026 is a Friday)."""
from __future__ import annotations

import json
from datetime import date

import pytest

from inspector.extensions import db
from inspector.models import TownCalendarYear, TownClosure
from tests import factories


def _run(runner, *args):
    return runner.invoke(args=["rules", *args])


def _json(runner, *args) -> dict:
    r = _run(runner, *args, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def _fails(result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("erro: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("town, pack, start, kind, last_day, article", [
    # Tapurah Art. 30, 8 days (Lei 9.784/1999 Art. 66): Fri 06/03 + 8 = Sat 14/03 -> Mon 16/03
    ("tapurah", "tapurah-406-2001", "2026-03-06", "appeal", "2026-03-16", "Art. 30"),
    # Tapurah Art. 19, up to 10 days, continuous: Fri 06/03 + 10 = Mon 16/03
    ("tapurah", "tapurah-406-2001", "2026-03-06", "grant", "2026-03-16", "Art. 19"),
    # Nortelândia 030 Art. 16 § 2º, 10 business days (CPC Art. 219) over Christmas and 1 January
    # (24/12 and 31/12 are not holidays): 21, 22, 23, 24, 28, 29, 30, 31/12, 04, 05/01
    ("nortelandia", "nortelandia-030-1998", "2026-12-18", "appeal", "2027-01-05",
     "Art. 16, § 2º"),
    # Nova Santa Helena Art. 27 § ú, 10 days: Tue 15/12 + 10 = Fri 25/12 (Natal) -> Mon 28/12
    ("nova-santa-helena", "nova-santa-helena-535-2013", "2026-12-15", "appeal", "2026-12-28",
     "Art. 27, parágrafo único"),
])
def test_the_last_day_is_the_laws(runner, town, pack, start, kind, last_day, article):
    data = _json(runner, "deadline", "--town", town, "--law", pack, "--from", start,
                 "--kind", kind)
    assert data["last_day"] == last_day
    assert data["citation"]["article"] == article
    assert data["explain"]


def test_json_names_each_skipped_day_and_the_counting(runner):
    data = _json(runner, "deadline", "--town", "nova-santa-helena", "--law",
                 "nova-santa-helena-535-2013", "--from", "2026-12-15", "--kind", "appeal")
    assert data["counting"]["rule"] == "continuous"
    assert data["counting"]["basis"].startswith("Lei 9.784/1999, art. 66")
    assert {"day": "2026-12-25", "reason": "feriado nacional: Natal (Lei 662/1949)"} in \
        data["skipped"]
    assert data["moved"] is True and data["count_end"] == "2026-12-25"
    assert data["incomplete_years"] == [2026]   # the town entered no calendar


def test_text_output_prints_the_last_day_and_the_days_skipped(runner):
    r = _run(runner, "deadline", "--town", "tapurah", "--law", "tapurah-406-2001", "--from",
             "2026-03-06", "--kind", "appeal")
    assert r.exit_code == 0, r.stderr
    assert "Último dia: 16/03/2026 (segunda)" in r.stdout
    assert "Dias sem expediente: 07/03 sábado; 08/03 domingo; 14/03 sábado; 15/03 domingo" in \
        r.stdout


def test_hours_run_minute_to_minute_and_do_not_move(runner):
    """Tapurah Art. 29 § único: 72 hours from Thu 03/12/2026 15:00 end Sun 06/12 15:00."""
    data = _json(runner, "deadline", "--town", "tapurah", "--law", "tapurah-406-2001",
                 "--from", "2026-12-03T15:00", "--kind", "repair")
    assert data["end"].startswith("2026-12-06T15:00") and data["last_day"] == "2026-12-06"
    assert data["end_closed"] == "domingo" and data["counting"]["rule"] == "hours"
    assert data["citation"]["article"] == "Art. 29, parágrafo único"


def test_where_the_law_sets_no_appeal_window_it_is_ten_days(runner):
    """Sapezal Lei 060/1998 sets no window: 10 days from the knowledge of the decision (Lei
    9.784/1999 Art. 59, product owner, December 2026); Fri 06/03 + 10 = Mon 16/03."""
    data = _json(runner, "deadline", "--town", "sapezal", "--law", "sapezal-060-1998",
                 "--from", "2026-03-06", "--kind", "appeal")
    assert data["days"] == 10 and data["last_day"] == "2026-03-16"


def test_the_towns_own_closure_in_the_database_counts(runner, make, app):
    town = make(factories.town, "tapurah")
    with app.app_context():
        db.session.add(TownClosure(municipality_id=town.id, day=date(2026, 3, 16),
                                   reason="Emancipação", act="Lei nº 200/1998",
                                   act_date=date(1998, 3, 10), kind="feriado municipal"))
        db.session.add(TownCalendarYear(municipality_id=town.id, year=2026))
        db.session.commit()
    data = _json(runner, "deadline", "--town", "tapurah", "--law", "tapurah-406-2001",
                 "--from", "2026-03-06", "--kind", "appeal")
    assert data["last_day"] == "2026-03-17" and data["incomplete_years"] == []
    assert {"day": "2026-03-16", "reason": "feriado municipal: Emancipação (Lei nº 200/1998, "
                                           "de 10/03/1998)"} in data["skipped"]


@pytest.mark.parametrize("args, words", [
    (("--town", "tapurah", "--law", "tapurah-406", "--from", "2026-03-06", "--kind", "appeal"),
     "lei desconhecida"),
    (("--town", "sapezal", "--law", "tapurah-406-2001", "--from", "2026-03-06", "--kind",
      "appeal"), "é de tapurah"),
    (("--town", "nortelandia", "--law", "nova-santa-helena-535-2013", "--from", "2026-03-06",
      "--kind", "appeal"), "é de nova-santa-helena"),
    (("--town", "tapurah", "--law", "tapurah-406-2001", "--from", "2026-03-06", "--kind",
      "repair"), "informe data e hora"),
    (("--town", "tapurah", "--law", "tapurah-406-2001", "--from", "06/03/2026", "--kind",
      "appeal"), "data inválida"),
    (("--town", "tapurah", "--law", "tapurah-406-2001", "--from", "2026-03-06", "--kind",
      "days"), "--days N"),
    (("--town", "nortelandia", "--law", "nortelandia-127-2009", "--from", "2026-03-06",
      "--kind", "grant"), "não fixa prazo concedido"),
])
def test_errors_are_one_line_with_exit_2(runner, args, words):
    assert words in _fails(_run(runner, "deadline", *args))


def test_any_number_of_days_by_the_laws_counting(runner):
    data = _json(runner, "deadline", "--town", "nortelandia", "--law", "nortelandia-030-1998",
                 "--from", "2026-03-06", "--kind", "days", "--days", "3")
    assert data["last_day"] == "2026-03-11"   # Fri 06/03: Mon 9, Tue 10, Wed 11 (CPC 219)


@pytest.mark.parametrize("args, violations", [
    # Tapurah Art. 13 "no máximo 5 anos de uso": in use since 01/02/2021, out from 02/02/2026
    (("--manufactured", "2020-06-15", "--first-licensed", "2021-02-01", "--on", "2026-02-01"),
     []),
    (("--manufactured", "2020-06-15", "--first-licensed", "2021-02-01", "--on", "2026-02-02"),
     ["vehicle.age"]),
    # only the manufacture date: out the day after its fifth anniversary
    (("--manufactured", "2020-06-15", "--on", "2025-06-15"), []),
    (("--manufactured", "2020-06-15", "--on", "2025-06-16"), ["vehicle.age"]),
    # only the year: certainly 5 years from 01/01/2026
    (("--year", "2020", "--on", "2025-12-31"), []),
    (("--year", "2020", "--on", "2026-01-01"), ["vehicle.age"]),
])
def test_check_vehicle_counts_age_from_the_dates_given(runner, args, violations):
    data = _json(runner, "check-vehicle", "--town", "tapurah", "--service", "mototaxi",
                 "--cc", "150", *args)
    assert [v["rule_id"] for v in data["violations"]] == violations
    for v in data["violations"]:
        assert v["citation"]["article"] == "Art. 13"


def test_check_vehicle_refuses_dates_that_disagree(runner):
    assert "não é do ano" in _fails(_run(runner, "check-vehicle", "--town", "tapurah",
                                         "--service", "mototaxi", "--year", "2019",
                                         "--manufactured", "2020-06-15"))
    assert "anterior à fabricação" in _fails(_run(
        runner, "check-vehicle", "--town", "tapurah", "--service", "mototaxi",
        "--manufactured", "2020-06-15", "--first-licensed", "2020-01-01"))
    assert "--year ou --manufactured" in _fails(_run(runner, "check-vehicle", "--town",
                                                     "tapurah", "--service", "mototaxi"))


@pytest.mark.parametrize("town, until, violations", [
    ("sapezal", "2026-12-31", []),                     # Lei 060/1998 Art. 10: the exercício
    ("sapezal", "2027-01-01", ["licence.validity"]),
    ("nortelandia", "2027-03-15", []),                 # Lei 030/1998 Art. 6: one year
    ("nortelandia", "2027-03-16", ["licence.validity"]),
])
def test_check_vehicle_judges_the_alvara_validity(runner, town, until, violations):
    service = "taxi" if town == "sapezal" else "mototaxi"
    data = _json(runner, "check-vehicle", "--town", town, "--service", service, "--year", "2024",
                 "--cc", "150", "--on", "2026-03-15", "--licence-from", "2026-03-15",
                 "--licence-until", until)
    assert [v["rule_id"] for v in data["violations"]] == violations
