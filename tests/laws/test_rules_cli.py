"""`flask --app inspector rules ...` exactly as DESIGN.md says, for every town and service."""
from __future__ import annotations

import json

import pytest

LAWS = {("nortelandia", "taxi"): "Lei 127/2009", ("nortelandia", "mototaxi"): "Lei 030/1998",
        ("nova-santa-helena", "taxi"): "Lei 535/2013", ("sapezal", "taxi"): "Lei 060/1998",
        ("tapurah", "mototaxi"): "Lei 406/2001"}
ARTICLE = {("tapurah", "mototaxi"): "Art. 13", ("nortelandia", "mototaxi"): "Art. 2",
           ("nortelandia", "taxi"): "Art. 18", ("nova-santa-helena", "taxi"): "Art. 14",
           ("sapezal", "taxi"): "Art. 11"}  # where each law puts its vehicle limits
NO_LAW = [("tapurah", "taxi"), ("sapezal", "mototaxi"), ("nova-santa-helena", "mototaxi")]


def _run(runner, *args):
    return runner.invoke(args=["rules", *args])


def _fails_with_one_line(result):
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("erro: "), result.stderr
    return lines[0]


def test_list_names_every_pack_with_its_dates(runner):
    r = _run(runner, "list", "--json")
    assert r.exit_code == 0
    packs = json.loads(r.stdout)["packs"]
    assert {(p["town"], p["service"]): p["law"] for p in packs} == LAWS
    tap = next(p for p in packs if p["town"] == "tapurah")
    assert (tap["from"], tap["to"]) == ("2001-10-25", None)
    text = _run(runner, "list")
    assert text.exit_code == 0 and "Lei 535/2013" in text.stdout and "2013-05-21" in text.stdout


@pytest.mark.parametrize("town,service", sorted(LAWS))
def test_checklist_json_for_every_town_and_service(runner, town, service):
    r = _run(runner, "checklist", "--town", town, "--service", service, "--on", "2026-03-01",
             "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["law"] == LAWS[(town, service)]
    assert len(data["items"]) >= 5
    for item in data["items"]:
        assert item["id"] and item["label"]
        assert item["citation"]["law"] == LAWS[(town, service)]
        assert item["citation"]["article"].startswith("Art. ")
        assert item["citation"]["anchor"].startswith("art-")


def test_checklist_article_format_matches_design(runner):
    r = _run(runner, "checklist", "--town", "tapurah", "--service", "mototaxi", "--json")
    items = {i["id"]: i for i in json.loads(r.stdout)["items"]}
    assert items["helmet-band"]["citation"]["law"] == "Lei 406/2001"
    assert items["helmet-band"]["citation"]["article"] == "Art. 15, I"


def test_checklist_text_output(runner):
    r = _run(runner, "checklist", "--town", "sapezal", "--service", "taxi", "--on", "2026-03-01")
    assert r.exit_code == 0
    assert "Caixa luminosa" in r.stdout and "[Art. 12, I]" in r.stdout


@pytest.mark.parametrize("town,service,year,cc,trail,expected", [
    ("tapurah", "mototaxi", 2020, 250, True, ["vehicle.age", "vehicle.cc.max", "vehicle.trail"]),
    ("tapurah", "mototaxi", 2024, 160, False, []),
    ("nortelandia", "mototaxi", 2010, 250, True, []),
    ("nortelandia", "mototaxi", 2024, 100, False, ["vehicle.cc.min"]),
    ("nortelandia", "taxi", 2014, None, False, ["vehicle.age"]),
    ("nortelandia", "taxi", 2019, None, False, []),
    # Art. 14 "completarem 5 anos": with only the year, certainly 5 years from 1 January of
    # year + 6 (DOMAIN reading): 2020 is out, 2021 only from 01/01/2027
    ("nova-santa-helena", "taxi", 2020, None, False, ["vehicle.age"]),
    ("sapezal", "taxi", 2020, None, False, ["vehicle.age"]),
    ("sapezal", "taxi", 2022, None, False, []),
])
def test_check_vehicle_json(runner, town, service, year, cc, trail, expected):
    args = ["check-vehicle", "--town", town, "--service", service, "--year", str(year),
            "--on", "2026-03-01", "--json"]
    if cc is not None:
        args += ["--cc", str(cc)]
    if trail:
        args.append("--trail")
    r = _run(runner, *args)
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert list(data) == ["violations"]
    assert sorted(v["rule_id"] for v in data["violations"]) == expected
    for v in data["violations"]:
        assert v["message"] and v["citation"]["law"] == LAWS[(town, service)]
        assert v["citation"]["article"] == ARTICLE[town, service]


def test_check_vehicle_text_output(runner):
    r = _run(runner, "check-vehicle", "--town", "tapurah", "--service", "mototaxi", "--year",
             "2024", "--cc", "250", "--on", "2026-03-01")
    assert r.exit_code == 0
    assert "vehicle.cc.max" in r.stdout and "(Lei 406/2001, Art. 13)" in r.stdout
    ok = _run(runner, "check-vehicle", "--town", "tapurah", "--service", "mototaxi", "--year",
              "2024", "--cc", "160", "--on", "2026-03-01")
    assert ok.stdout.strip() == "ok: nenhuma violação"


@pytest.mark.parametrize("town,service", NO_LAW)
def test_a_town_without_a_law_for_the_service_exits_2(runner, town, service):
    for cmd in (["checklist"], ["check-vehicle", "--year", "2024"]):
        line = _fails_with_one_line(_run(runner, *cmd, "--town", town, "--service", service,
                                         "--json"))
        assert "nenhuma lei" in line


def test_a_date_before_the_law_exits_2(runner):
    line = _fails_with_one_line(_run(runner, "checklist", "--town", "nova-santa-helena",
                                     "--service", "taxi", "--on", "2013-05-20", "--json"))
    assert "21/05/2013" in line
    _fails_with_one_line(_run(runner, "check-vehicle", "--town", "tapurah", "--service",
                              "mototaxi", "--year", "2000", "--on", "2001-10-24"))


def test_unknown_town_service_and_bad_date_exit_2(runner):
    assert "cidade desconhecida" in _fails_with_one_line(
        _run(runner, "checklist", "--town", "cuiaba", "--service", "taxi"))
    assert "serviço desconhecido" in _fails_with_one_line(
        _run(runner, "checklist", "--town", "tapurah", "--service", "onibus"))
    assert "data inválida" in _fails_with_one_line(
        _run(runner, "checklist", "--town", "tapurah", "--service", "mototaxi", "--on",
             "2026-02-30"))
    assert "serviço desconhecido" in _fails_with_one_line(
        _run(runner, "check-vehicle", "--town", "tapurah", "--service", "bus", "--year", "2020"))
