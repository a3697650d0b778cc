"""How each law counts its deadlines in days is pack data (`counting`), checked by the strict
loader; the engine's appeal window and deadline use it over the town's calendar.

Nortelândia Lei 030/1998 Art. 16 § 2º ("na forma prevista no Código de Processo Civil"):
business days (CPC Arts. 219 and 224). The other four laws set no rule: Lei 9.784/1999
Art. 66 (continuous days, a last day without office moves to the next office day).
"""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from inspector import rules
from inspector.rules.calendar import Closure, TownCalendar
from inspector.rules.loader import LAWS_DIR, load_pack

SHIPPED = Path(rules.PACKS_DIR)
ALL_YEARS = frozenset(range(2020, 2031))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_only_nortelandia_030_counts_business_days_and_cites_its_article():
    by_id = {p.id: p.counting for p in rules.load_all()}
    assert by_id.pop("nortelandia-030-1998").rule == "business"
    assert {c.rule for c in by_id.values()} == {"continuous"}
    c = rules.find_pack("nortelandia", "mototaxi", date(2026, 3, 2)).counting
    assert (c.citation.article, c.citation.anchor) == ("Art. 16, § 2º", "art-16-p2")
    assert "Código de Processo Civil" in c.citation.quote
    assert c.basis == "Lei 030/1998, Art. 16, § 2º (CPC, arts. 219 e 224)"
    assert rules.find_pack("tapurah", "mototaxi", date(2026, 3, 2)).counting.basis.startswith(
        "Lei 9.784/1999, art. 66")


@pytest.mark.parametrize("block, key, reason", [
    ("counting:\n  rule: weekdays\n  citation: {article: 30, quote: no prazo de 08 (oito) dias}\n",
     "counting.rule", "is not one of"),
    ("counting:\n  rule: business\n", "counting", "missing"),
    ("counting:\n  rule: continuous\n  citation: {article: 30, quote: no prazo de 08 (oito) dias}\n",
     "counting.rule", "default"),
    ("counting:\n  rule: business\n  citation: {article: 30, quote: Código de Processo Civil}\n",
     "counting.citation", "not found"),
    ("counting:\n  rule: business\n  days: 3\n  citation: {article: 30, quote: no prazo de 08}\n",
     "counting", "days"),
])
def test_the_loader_refuses_a_bad_counting_naming_the_key(tmp_path, block, key, reason):
    text = (SHIPPED / "tapurah-406-2001.yaml").read_text(encoding="utf-8")
    text = text.replace("\nchecklist:", f"\n{block}\nchecklist:", 1)
    with pytest.raises(rules.RulePackError) as info:
        load_pack(_write(tmp_path, "broken.yaml", text), (LAWS_DIR,))
    assert info.value.key.startswith(key), str(info.value)
    assert reason in str(info.value)


def _town(slug: str, closures=()) -> rules.TownFacts:
    return rules.TownFacts(slug=slug, calendar=TownCalendar(tuple(closures), ALL_YEARS))


def test_engine_appeal_window_counts_business_days_in_nortelandia_030():
    """Notice Mon 02/03/2026: 10 business days end Mon 16/03 (Art. 16 § 2º; CPC Art. 219)."""
    p = rules.propose_sanction(_town("nortelandia"), "mototaxi", rules.Finding("vest"), [],
                           date(2026, 3, 2))
    assert p.appeal.until == date(2026, 3, 16)
    assert p.appeal.explain.startswith("10 dias úteis (CPC, art. 219): 03/03/2026 a 16/03/2026")


def test_engine_appeal_window_moves_past_a_town_closure_in_tapurah():
    """Notice Fri 06/03/2026: day 8 is Sat 14/03, moved to Mon 16/03; a town closure on Monday
    moves it to Tue 17/03 (Lei 9.784/1999 Art. 66 § 1º; Tapurah Lei 406/2001 Art. 30)."""
    plain = rules.propose_sanction(_town("tapurah"), "mototaxi", rules.Finding("mirrors"), [],
                               date(2026, 3, 6))
    assert plain.appeal.until == date(2026, 3, 16)
    closed = rules.propose_sanction(
        _town("tapurah", [Closure(date(2026, 3, 16), "Aniversário", "Lei nº 1/2001")]),
        "mototaxi", rules.Finding("mirrors"), [], date(2026, 3, 6))
    assert closed.appeal.until == date(2026, 3, 17)
    assert "16/03 feriado municipal: Aniversário (Lei nº 1/2001)" in closed.appeal.explain


def test_engine_without_a_town_calendar_says_the_year_is_not_entered():
    p = rules.propose_sanction(rules.TownFacts(slug="tapurah"), "mototaxi", rules.Finding("mirrors"), [],
                           date(2026, 3, 6))
    assert p.appeal.explain.endswith("calendário municipal de 2026 não informado")


def test_tapurah_72_hours_are_hours_not_days():
    p = rules.propose_sanction(_town("tapurah"), "mototaxi", rules.Finding("mirrors"), [],
                           date(2026, 3, 6))
    assert (p.deadline.hours, p.deadline.days, p.deadline.explain) == (72, None, None)
