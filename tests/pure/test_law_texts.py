"""The law texts ship with the package and split into articles, paragraphs and items
with stable anchors (what `/leis/<law>` renders and citations link to)."""
from __future__ import annotations

from pathlib import Path

import pytest

from inspector import rules
from inspector.rules.lawtext import make_anchor, make_label, parse_law

SHARED = Path(__file__).resolve().parents[3] / "shared" / "laws"
ARTICLES = {"nortelandia-lei-030-1998-mototaxi": 18, "nortelandia-lei-127-2009-taxi": 36,
            "nova-santa-helena-lei-535-2013-taxi": 36, "sapezal-lei-060-1998-taxi": 25,
            "tapurah-lei-406-2001-mototaxi": 33}


def test_the_five_laws_ship_inside_the_package_with_every_article():
    texts = rules.law_texts()
    assert set(texts) == set(ARTICLES)
    for slug, n in ARTICLES.items():
        assert [a.article for a in texts[slug].articles] == list(range(1, n + 1)), slug


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared law folder not present")
def test_the_shipped_texts_are_the_laws_as_given():
    for slug in ARTICLES:
        shipped = (rules.LAWS_DIR / f"{slug}.txt").read_bytes()
        assert shipped == (SHARED / f"{slug}.txt").read_bytes(), slug


def test_items_paragraphs_and_alineas_have_anchors():
    law = rules.law_text("tapurah-lei-406-2001-mototaxi")
    assert law.unit("art-15-i").label == "Art. 15, I"
    assert "Moto-Táxi" in law.unit("art-15-i").text
    assert law.unit("art-29-pu").label == "Art. 29, parágrafo único"
    assert law.unit("art-3-p2").label == "Art. 3, § 2º"
    nsh = rules.law_text("nova-santa-helena-lei-535-2013-taxi")
    assert nsh.unit("art-13-ix-c").text.startswith("Os algarismos terão o tamanho")
    assert nsh.unit("art-25-ii-a").label == "Art. 25, II, a"
    assert nsh.unit("art-10-pu") is not None          # printed as “§ Único
    nl = rules.law_text("nortelandia-lei-030-1998-mototaxi")
    assert nl.unit("art-11-pu-c").text.startswith("10 (dez) salários mínimos")
    assert nl.unit("art-16-p2").text.startswith("Das penalidades poderá a autorizada recorrer")


def test_nortelandia_127_two_items_II_in_article_16():
    law = rules.law_text("nortelandia-lei-127-2009-taxi")
    first, second = law.unit("art-16-ii"), law.unit("art-16-ii-2")
    assert first.text.startswith("quando o permissionário cometer infrações")
    assert second.text.startswith("Retirar das laterais dos veículos a faixa refletiva")
    assert second.label == "Art. 16, II (2º)" and second.occurrence == 2
    assert law.locate(16, item="II", occurrence=2) is second


def test_nortelandia_127_article_14_skips_item_VIII():
    law = rules.law_text("nortelandia-lei-127-2009-taxi")
    items = [u.item for u in law.unit("art-14").children]
    assert items[6:8] == ["VII", "IX"] and "VIII" not in items and items[-1] == "XXII"
    assert law.unit("art-14-viii") is None
    assert law.unit("art-14-ix").text.startswith("seguir itinerário")


def test_page_headers_and_page_numbers_are_not_part_of_an_article():
    nl = rules.law_text("nortelandia-lei-030-1998-mototaxi")
    art16 = nl.unit("art-16").text
    assert "ESTADO DE MATO GROSSO" not in nl.unit("art-3-p2").text
    assert art16.startswith("A inobservância de quaisquer disposição desta Lei sujeitará")
    tap = rules.law_text("tapurah-lei-406-2001-mototaxi")
    assert tap.unit("art-3-p1").text.endswith("individual de passageiros.")


def test_a_reference_to_a_paragraph_inside_a_sentence_is_not_a_new_paragraph():
    nl = rules.law_text("nortelandia-lei-030-1998-mototaxi")
    assert [c.anchor for c in nl.unit("art-13").children][-1] == "art-13-pu"
    assert "parágrafo 1º do artigo 61" in nl.unit("art-13-pu").text


def test_blocks_render_in_order_with_anchors_and_headings():
    law = rules.law_text("sapezal-lei-060-1998-taxi")
    blocks = law.blocks()
    assert blocks[0].kind == "preamble" and blocks[-1].kind == "closing"
    anchors = [b.anchor for b in blocks if b.anchor]
    assert anchors[:3] == ["art-1", "art-1-pu", "art-2"]
    assert len(anchors) == len(set(anchors))
    assert any(b.kind == "heading" and b.text == "DAS PENALIDADES" for b in blocks)
    item = next(b for b in blocks if b.anchor == "art-20-iii")
    assert (item.kind, item.depth, item.marker, item.text) == ("item", 1, "III", "multa;")


def test_anchor_and_label_helpers():
    assert make_anchor(8, "unico") == "art-8-pu"
    assert make_anchor(15, None, "I") == "art-15-i"
    assert make_anchor(13, None, "IX", "a") == "art-13-ix-a"
    assert make_label(3, "1") == "Art. 3, § 1º"


def test_parser_on_a_small_text():
    law = parse_law("LEI 1\nArt. 1º - Caput.\nI - um;\nII – dois.\nParágrafo único. Fim.\n"
                    "Art. 2o Outro.\n", "x")
    assert [u.anchor for u in law.units()] == ["art-1", "art-1-i", "art-1-ii", "art-1-pu",
                                               "art-2"]
