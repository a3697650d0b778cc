"""`flask rules draft LEI.txt --town SLUG`: a new town's pack started from its law's text
(docs/adding-a-town.md, "3. The pack"), and `rules validate` listing what is left."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from inspector.rules import LAWS_DIR, RulePackError, load_all
from inspector.rules.lawtext import normalize
from inspector.rules.loader import load_pack
from inspector.rules.reading import _NoDatesLoader

TAPURAH = "tapurah-lei-406-2001-mototaxi.txt"
LAWS = sorted(p.name for p in LAWS_DIR.glob("*.txt"))
_PRINTED_ARTICLE = re.compile(r"^\s*Art\.\s*(\d+)", re.MULTILINE)


def _own_pack(law_file: str) -> str:
    return next(p.id for p in load_all() if p.source == law_file)


def _folder(tmp_path: Path, law_file: str) -> Path:
    """A town's folder as RULES_EXTRA_DIR lays it out, the law under a name not in use."""
    (tmp_path / "laws").mkdir()
    shutil.copy(LAWS_DIR / law_file, tmp_path / "laws" / f"nova-{law_file}")
    return tmp_path / "laws" / f"nova-{law_file}"


def _read(path: Path) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_NoDatesLoader)  # noqa: S506


def _proposals(node, key=""):
    if isinstance(node, dict):
        if "proposal" in node:
            yield key, node
        for k, v in node.items():
            if k != "draft":
                yield from _proposals(v, f"{key}.{k}")
    elif isinstance(node, list):
        for v in node:
            yield from _proposals(v, key)


def _one_line_refusal(result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("erro: "), result.stderr
    return lines[0]


def test_tapurah_without_its_own_pack_gets_proposals_from_the_other_mototaxi_law(runner, tmp_path):
    law = _folder(tmp_path, TAPURAH)
    r = runner.invoke(args=["rules", "draft", str(law), "--town", "tapurah-nova",
                            "--exclude", "tapurah-406-2001"])
    assert r.exit_code == 0, r.output
    out = tmp_path / "packs" / "tapurah-nova-406-2001.yaml"
    assert f"rascunho: {out}" in r.stdout and "propostas de nortelandia-030-1998" in r.stdout
    data = _read(out)
    assert (data["id"], data["town"], data["service"]) == ("tapurah-nova-406-2001",
                                                           "tapurah-nova", "mototaxi")
    assert data["law"]["name"] == "Lei 406/2001" and data["town_name"] == "TODO"
    assert data["in_force"]["from"] == "TODO"
    assert data["in_force"]["citation"]["article"] == 33   # "entra em vigor na data de sua publicação"

    proposals = list(_proposals(data))
    assert proposals and all(c["proposal"]["from"].startswith("nortelandia-030-1998, Art. ")
                             for _, c in proposals)
    # Art. 13: "potência mínima de 125" where Nortelândia 030 Art. 2 says "igual ou superior a"
    engine = next(i for i in data["checklist"] if i["id"] == "engine-size")
    assert engine["citation"]["article"] == 13
    assert "{+mínima de+}" in engine["citation"]["proposal"]["differs"]
    assert "[-igual ou superior a-]" in engine["citation"]["proposal"]["differs"]
    # Art. 3 § 2º: "uso de mata-cachorro" (030 prints “mata – cachorro”)
    guard = next(i for i in data["checklist"] if i["id"] == "leg-guard")
    assert (guard["citation"]["article"], guard["citation"]["paragraph"]) == (3, 2)
    assert "mata-cachorro" in guard["citation"]["quote"]
    # a rule the law does not have is left out and named, not pointed at a wrong article
    assert any(x.startswith("checklist[helmets]") for x in data["draft"]["left_out"])


@pytest.mark.parametrize("law_file", LAWS)
def test_every_article_paragraph_and_item_of_each_law_is_anchored_with_its_words(
        runner, tmp_path, law_file):
    law = _folder(tmp_path, law_file)
    own = _own_pack(law_file)
    r = runner.invoke(args=["rules", "draft", str(law), "--town", "nova-cidade", "--exclude", own])
    assert r.exit_code == 0, r.output
    data = _read(next((tmp_path / "packs").glob("*.yaml")))
    text = law.read_text(encoding="utf-8")
    drafted = {a["article"]: a for a in data["draft"]["articles"]}
    assert set(int(n) for n in _PRINTED_ARTICLE.findall(text)) <= set(drafted)
    assert all(a["status"] == "TODO" for a in drafted.values())
    # every numbered line (§, Parágrafo único, I -, a)) has its opening words in a unit of the draft
    quotes = " | ".join(normalize(u["citation"]["quote"])
                        for a in drafted.values() for u in a["units"])
    numbered = re.compile(r"^\s*(?:§\s*\d+\s*[º°o]?|§\s*[Úú]nico|Par[áa]grafo\s+[ÚúUu]nico"
                          r"|[IVXL]+\s*[-–—]|[a-z]\))[-–—.:\s]*(?P<words>.{12,})$")
    lines = [m.group("words") for m in map(numbered.match, text.splitlines()) if m]
    assert lines
    missing = [w for w in lines if normalize(" ".join(w.split()[:4])) not in quotes]
    assert not missing, missing[:5]
    # the same loader the server uses finds each anchor and each proposed quote in the law
    v = runner.invoke(args=["rules", "validate", str(tmp_path)])
    assert v.exit_code == 2
    assert v.stderr.strip().splitlines()[-1].startswith("erro: 0 problema(s) e ")
    assert "pendência(s) de rascunho em 1 pacote(s)" in v.stderr


def test_validate_lists_what_is_left_by_article_until_the_pack_is_finished(runner, tmp_path):
    law = _folder(tmp_path, TAPURAH)
    assert runner.invoke(args=["rules", "draft", str(law), "--town", "tapurah-nova",
                               "--exclude", "tapurah-406-2001"]).exit_code == 0
    pack = tmp_path / "packs" / "tapurah-nova-406-2001.yaml"
    r = runner.invoke(args=["rules", "validate", str(pack)])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("a terminar (")
    assert any(": pacote: town_name: a preencher (TODO)" in ln for ln in lines)
    assert any(": pacote: in_force.from: a preencher (TODO)" in ln for ln in lines)
    assert any(": Art. 13: checklist[engine-size].citation: proposta de nortelandia-030-1998, "
               "Art. 2" in ln for ln in lines)
    assert sum("artigo não revisado" in ln for ln in lines) == 33
    arts = [int(m.group(1)) for m in (re.search(r"\.yaml:\d+: Art\. (\d+):", ln) for ln in lines)
            if m]
    assert arts == sorted(arts)   # by article

    # the server never takes a draft into use
    with pytest.raises(RulePackError, match="rascunho não terminado"):
        load_pack(pack, (LAWS_DIR, tmp_path / "laws"))

    # a person finishes it: fills the TODOs, checks each proposal, reads each article
    data = _read(pack)
    data["town_name"] = "Tapurah Nova"
    data["in_force"]["from"] = "2001-10-25"
    for _, citation in _proposals(data):
        del citation["proposal"]
    for art in data["draft"]["articles"]:
        art["status"] = "revisado"
    pack.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    r = runner.invoke(args=["rules", "validate", str(pack)])
    assert r.exit_code == 2
    assert "apague a seção 'draft'" in r.stderr and "erro: 0 problema(s) e 1 pendência" in r.stderr
    del data["draft"]
    pack.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    r = runner.invoke(args=["rules", "validate", str(pack)])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip() == f"ok: {pack}"
    assert load_pack(pack, (LAWS_DIR, tmp_path / "laws")).town == "tapurah-nova"


def test_bad_input_is_one_line_and_writes_nothing(runner, tmp_path):
    law = _folder(tmp_path, TAPURAH)
    cases = {
        "arquivo não encontrado": [str(tmp_path / "laws" / "nenhuma.txt"), "--town", "x"],
        "nome curto do município inválido": [str(law), "--town", "Santa Rita"],
        "pacote de regras desconhecido": [str(law), "--town", "x", "--exclude", "nada-1-2000"],
    }
    png = tmp_path / "laws" / "foto.txt"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    cases["não é texto"] = [str(png), "--town", "x"]
    latin = tmp_path / "laws" / "latin1.txt"
    latin.write_bytes("Art. 1º - Fica criado o serviço de moto-táxi.".encode("latin-1"))
    cases["não é texto em UTF-8"] = [str(latin), "--town", "x"]
    pdf = tmp_path / "laws" / "lei.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    cases["arquivo de texto .txt"] = [str(pdf), "--town", "x"]
    empty = tmp_path / "laws" / "sem-artigos.txt"
    empty.write_text("Ata da reunião de ontem.\n", encoding="utf-8")
    cases["nenhum artigo encontrado"] = [str(empty), "--town", "x"]
    for words, args in cases.items():
        line = _one_line_refusal(runner.invoke(args=["rules", "draft", *args]))
        assert words in line, (words, line)
    assert not (tmp_path / "packs").exists()

    out = tmp_path / "meu-pacote.yaml"
    out.write_text("já estava aqui\n", encoding="utf-8")
    line = _one_line_refusal(runner.invoke(args=["rules", "draft", str(law), "--town", "x",
                                                 "--output", str(out)]))
    assert "o arquivo já existe" in line
    assert out.read_text(encoding="utf-8") == "já estava aqui\n"
