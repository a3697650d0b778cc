"""The shipped packs load; the loader refuses bad packs naming file and key; values are dated."""
from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from inspector import rules
from inspector.rules.engine import checklist
from inspector.rules.errors import LawNotInForce, UnknownTown
from inspector.rules.loader import LAWS_DIR, load_dir, load_pack

HERE = Path(__file__).resolve().parent.parent / "rule_packs"
DATED = HERE / "dated"
SHIPPED = Path(rules.PACKS_DIR)


def test_every_shipped_pack_loads_with_a_citation_on_every_entry():
    packs = rules.load_all()
    assert {(p.town, p.service) for p in packs} == {
        ("nortelandia", "taxi"), ("nortelandia", "mototaxi"), ("nova-santa-helena", "taxi"),
        ("sapezal", "taxi"), ("tapurah", "mototaxi")}
    for p in packs:
        assert p.in_force_citation.anchor.startswith("art-")
        for item in p.checklist:
            assert item.citation.quote and item.citation.law == p.law
        for param in p.parameters.values():
            assert all(v.citation is not None for v in param.versions if not v.ended)
        for step in p.ladder:
            assert all(m.citation for m in step.measures)
        for off in p.offences:
            assert all(m.citation for m in off.measures)


def test_every_citation_points_at_a_unit_of_the_shipped_law_text():
    for p in rules.load_all():
        law = rules.law_text(p.law_slug)
        assert law is not None, p.law_slug
        cites = [i.citation for i in p.checklist] + \
            [v.citation for prm in p.parameters.values() for v in prm.versions if v.citation]
        for c in cites:
            assert law.unit(c.anchor) is not None, (p.id, c.anchor)


def test_load_all_is_cached():
    assert rules.load_all() is rules.load_all()


# --- rejections ---------------------------------------------------------------------------------

def _pack_text() -> str:
    return (SHIPPED / "tapurah-406-2001.yaml").read_text(encoding="utf-8")


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "broken.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def _rejects(tmp_path, text, key_pattern, reason_pattern):
    path = _write(tmp_path, text)
    with pytest.raises(rules.RulePackError) as info:
        load_pack(path, (LAWS_DIR,))
    msg = str(info.value)
    assert msg.startswith(f"{path}: "), msg
    assert re.search(key_pattern, info.value.key), msg
    assert re.search(reason_pattern, info.value.reason), msg
    return msg


def test_an_unknown_key_is_refused_naming_file_and_key(tmp_path):
    text = _pack_text().replace("    affects_safety: false\n", "    affects_safety: false\n"
                                "    colour: red\n", 1)
    msg = _rejects(tmp_path, text, r"^checklist\[0\]\.colour$", "unknown key")
    assert "broken.yaml: checklist[0].colour: unknown key" in msg


def test_an_unknown_parameter_is_refused(tmp_path):
    text = _pack_text().replace("    min_cc:\n", "    min_wheels:\n      values: {}\n    min_cc:\n")
    _rejects(tmp_path, text, r"^limits\.vehicle\.min_wheels$", "unknown key")


def test_only_sapezal_lets_a_decree_pass_a_cap_and_it_cites_article_18():
    """Sapezal 060 Art. 18: "poderá, através de Decreto ... ampliar o número de táxis"; no
    other shipped law lets the town pass its fleet, quota or company share."""
    found = {(p.town, path): prm.override for p in rules.load_all()
             for path, prm in p.parameters.items() if prm.override is not None}
    assert list(found) == [("sapezal", "limits.town.fleet_cap")]
    override = found[("sapezal", "limits.town.fleet_cap")]
    assert override.by == "decree" and override.citation.article == "Art. 18"


def _with_override(param_line: str, by: str = "decree", article: int = 5,
                   quote: str = "respeitarão critérios populacional") -> str:
    return _pack_text().replace(param_line, param_line + f"""      override:
        by: {by}
        citation:
          article: {article}
          quote: {quote}
""", 1)


def test_an_override_on_a_limit_that_is_not_a_cap_is_refused(tmp_path):
    _rejects(tmp_path, _with_override("    min_cc:\n"), r"^limits\.vehicle\.min_cc\.override$",
             "only a cap on the number of vehicles")


def test_an_override_by_anything_but_a_decree_is_refused(tmp_path):
    _rejects(tmp_path, _with_override("    inhabitants_per_vehicle_seat:\n", by="mayor"),
             r"^limits\.town\.inhabitants_per_vehicle_seat\.override\.by$", "not one of decree")


def test_an_override_citing_words_the_law_does_not_have_is_refused(tmp_path):
    _rejects(tmp_path, _with_override("    inhabitants_per_vehicle_seat:\n",
                                      quote="poderá ampliar por decreto"),
             r"^limits\.town\.inhabitants_per_vehicle_seat\.override\.citation", "quote|not found")


def test_an_override_on_a_cap_with_its_article_loads(tmp_path):
    path = _write(tmp_path, _with_override("    inhabitants_per_vehicle_seat:\n"))
    pack = load_pack(path, (LAWS_DIR,))
    override = pack.param("limits.town.inhabitants_per_vehicle_seat").override
    assert override.by == "decree" and override.citation.article == "Art. 5"


def test_a_duplicate_key_is_refused(tmp_path):
    text = _pack_text().replace("town: tapurah\n", "town: tapurah\ntown: sapezal\n")
    _rejects(tmp_path, text, r"^town$", "duplicate key")


def test_a_missing_citation_is_refused(tmp_path):
    text = _pack_text()
    start = text.index("    citation:\n      article: 2\n")
    end = text.index("  - id: general-condition")
    text = text[:start] + text[end:]
    _rejects(tmp_path, text, r"^checklist\[0\]\.citation$", "missing citation")


def test_a_null_citation_on_a_dated_value_is_refused(tmp_path):
    text = _pack_text().replace("""          value: 125
          citation:
            article: 13
            quote: potência mínima de 125 (cento e vinte e cinco) cilindradas
""", "          value: 125\n          citation: null\n")
    _rejects(tmp_path, text, r"^limits\.vehicle\.min_cc\.values\.2001-10-25\.citation$",
             "missing citation")


def test_a_bad_date_is_refused(tmp_path):
    text = _pack_text().replace("        2001-10-25:\n          value: 125",
                                "        2001-13-25:\n          value: 125")
    _rejects(tmp_path, text, r"^limits\.vehicle\.min_cc\.values\.2001-13-25$", "bad date")


def test_a_value_dated_before_the_law_took_effect_is_refused(tmp_path):
    text = _pack_text().replace("        2001-10-25:\n          value: 125",
                                "        1999-01-01:\n          value: 125")
    _rejects(tmp_path, text, r"^limits\.vehicle\.min_cc\.values\.1999-01-01$",
             "before the law took effect")


def test_an_article_the_law_does_not_have_is_refused(tmp_path):
    text = _pack_text().replace("      article: 2\n      quote: com o indicativo",
                                "      article: 99\n      quote: com o indicativo")
    msg = _rejects(tmp_path, text, r"^checklist\[tank-sign\]\.citation\.article$",
                   "Art. 99 not found")
    assert "tapurah-lei-406-2001-mototaxi" in msg


def test_an_item_the_article_does_not_have_is_refused(tmp_path):
    text = _pack_text().replace("      item: III\n      quote: tabela das tarifas em vigor",
                                "      item: IX\n      quote: tabela das tarifas em vigor")
    _rejects(tmp_path, text, r"^checklist\[fare-table\]\.citation$", "art-15-ix not found")


def test_a_quote_that_is_not_in_the_cited_article_is_refused(tmp_path):
    text = _pack_text().replace("quote: vedada a moto-trail\n  - id: one-passenger",
                                "quote: vedada a motoneta\n  - id: one-passenger")
    _rejects(tmp_path, text, r"^checklist\[engine-size\]\.citation\.quote$",
             "quote not found in Art. 13")


def test_a_fine_with_an_undeclared_decree_key_is_refused(tmp_path):
    text = _pack_text().replace("fine: {amount: 100, unit: UFIM}", "fine: {decree: multa.x}")
    _rejects(tmp_path, text, r"^sanctions\.offences\[0\]\.measures\[1\]\.fine\.decree$",
             "not declared")


def test_an_offence_naming_an_unknown_finding_is_refused(tmp_path):
    text = _pack_text().replace("findings: [one-passenger]", "findings: [two-passengers]")
    _rejects(tmp_path, text, r"^sanctions\.offences\[0\]\.findings\[0\]$", "neither")


def test_two_packs_of_one_town_and_service_in_force_together_are_refused(tmp_path):
    (tmp_path / "a.yaml").write_text(_pack_text(), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(_pack_text().replace("id: tapurah-406-2001",
                                                          "id: tapurah-copy"), encoding="utf-8")
    with pytest.raises(rules.RulePackError, match="overlaps"):
        load_dir(tmp_path, (LAWS_DIR,))


# --- dated values (tests/rule_packs/dated) ---------------------------------------------------------

@pytest.fixture(scope="module")
def dated():
    return load_dir(DATED)


def test_a_changed_limit_gives_the_old_value_before_and_the_new_one_after(dated):
    old = rules.VehicleFacts(year_of_manufacture=2015)
    before = rules.vehicle_violations("exemplo", "mototaxi", old, date(2022, 6, 30), packs=dated)
    after = rules.vehicle_violations("exemplo", "mototaxi", old, date(2022, 7, 1), packs=dated)
    assert before == []                                    # 7 years old, limit 8
    assert [v.rule_id for v in after] == ["vehicle.age"]   # 7 years old, limit 5
    assert "o limite é 5 anos" in after[0].message
    assert after[0].citation.law == "Lei 200/2022"          # cited from the amending law
    assert after[0].citation.law_slug == "exemplo-lei-200-2022-mototaxi"
    pack = dated[0]
    param = pack.parameters["limits.vehicle.max_age_years"]
    assert param.value(date(2022, 6, 30)) == 8 and param.value(date(2022, 7, 1)) == 5
    assert param.at(date(2022, 6, 30)).citation.law == "Lei 100/2020"


def test_checklist_items_come_and_go_on_their_dates(dated):
    def ids(day):
        return [i.id for i in checklist("exemplo", "mototaxi", day, packs=dated)]
    assert ids(date(2022, 6, 30)) == ["mirrors", "vest"]
    assert ids(date(2022, 7, 1)) == ["mirrors", "leg-guard"]


def test_null_ends_a_value(dated):
    pack = dated[0]
    vistoria = pack.parameters["periodicity.vistoria_months"]
    assert vistoria.value(date(2023, 12, 31)) == 12
    assert vistoria.value(date(2024, 1, 1)) is None
    r = rules.rules_on(pack, date(2024, 1, 1))
    v = rules.VehicleFacts(year_of_manufacture=2023, last_vistoria_on=date(2020, 1, 1))
    assert [x.rule_id for x in rules.vehicle_document_violations(r, v)] == []
    r = rules.rules_on(pack, date(2023, 1, 1))
    assert [x.rule_id for x in rules.vehicle_document_violations(r, v)] == ["vistoria.overdue"]


def test_a_day_before_the_law_took_effect_is_a_clear_error(dated):
    with pytest.raises(LawNotInForce) as info:
        checklist("exemplo", "mototaxi", date(2020, 2, 29), packs=dated)
    assert "nenhuma lei de moto-táxi em vigor em exemplo em 2020-02-29" in str(info.value)
    assert "a Lei 100/2020 vigora de 01/03/2020" in str(info.value)
    with pytest.raises(LawNotInForce):
        rules.vehicle_violations("exemplo", "mototaxi", rules.VehicleFacts(year_of_manufacture=2019),
                             date(2019, 12, 31), packs=dated)


def test_one_towns_pack_never_answers_for_another(dated):
    with pytest.raises(UnknownTown):
        checklist("tapurah", "mototaxi", date(2023, 1, 1), packs=dated)
    assert "exemplo" not in {p.town for p in rules.load_all()}
