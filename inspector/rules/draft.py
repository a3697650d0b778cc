"""`rules draft`: a new town's pack started from its law's text and the most similar pack.

The draft is a pack file (format 1) a person finishes, never one the server loads:
- `draft.articles` holds every unit of the law (article, paragraph, item, alínea) anchored by
  a citation whose quote is the unit's own words, verbatim; each article is `status: TODO`
  until a person has read it and written what it becomes (then `status: revisado`);
- `checklist` and `sanctions` are copied from the existing pack whose cited words are found
  most closely in the new law; each copied citation points at the unit of the new law whose
  words are closest to the old quote, quotes those words verbatim and carries a `proposal`
  (where it came from, how similar, the differing words) that a person deletes once checked;
- what the text cannot tell (the town's name, the day in force) is `TODO`.

The loader refuses `draft` and `proposal` (reading.py): an unfinished pack never runs.
`pending()` lists what is left, by article, for `rules validate`.

Similarity is difflib's (the standard library) over words folded to lower case without
accents: a quote's words found in order in a unit, as a share of the quote's words.
"""
from __future__ import annotations

import copy
import difflib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from inspector.rules.lawtext import LawText, Unit, contains_quote, parse_law
from inspector.rules.model import RulePack

MAX_BYTES = 2 * 1024 * 1024   # the longest of the five laws is 60 KB
MATCH_AT_LEAST = 0.5          # a checklist item below it has no article in the new law
TODO = "TODO"
SLUG = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_LAW_NAME = re.compile(r"\b(?:lei|norma)\s*(?:municipal\s*)?(?:n[º°o.]*\s*)?(\d{1,5})\s*/\s*(\d{2,4})\b",
                       re.IGNORECASE)
_IN_FORCE = re.compile(r"entra(?:rá)?\s+em\s+vigor", re.IGNORECASE)
_TITLE = re.compile(r"(?:disp[oõô]e|estabelece|regulamenta|institui|cria)\b.*", re.IGNORECASE)
_SERVICE_WORDS = {"mototaxi": re.compile(r"moto[\s-]?t[áa]xi|motocicletas? de aluguel", re.I),
                  "taxi": re.compile(r"\bt[áa]xi|autom[óo]ve(?:l|is) de aluguel", re.I)}


class DraftError(ValueError):
    """Input the draft cannot start from: a pt-BR sentence for the operator."""


@dataclass(frozen=True)
class Match:
    unit: Unit
    score: float        # share of the old quote's words found, in order, in the unit
    quote: str          # the unit's own words that match (verbatim)
    differs: str        # the old quote against the new words: [-old-] {+new+}


@dataclass(frozen=True)
class Draft:
    text: str               # the YAML to write
    pack_id: str
    similar: str | None     # the pack the proposals come from
    scores: dict[str, float]
    articles: int
    units: int
    proposed_items: int
    proposed_citations: int
    left_out: tuple[str, ...]


@dataclass(frozen=True)
class Pending:
    """One thing a person must still do in a draft: its key, its article, what to do."""

    key: str
    article: int | None
    message: str


# --- words -------------------------------------------------------------------------------------

def _fold(word: str) -> str:
    word = unicodedata.normalize("NFKD", word.casefold())
    word = "".join(c for c in word if not unicodedata.combining(c))
    return re.sub(r"[^\w]", "", word)


_TOKEN = re.compile(r"\w+")


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN.finditer(text))


def _words(text: str) -> list[str]:
    return text.split()


def _score(matched: int, quote_len: int, span_len: int) -> float:
    """The lower of the share of the quote's words found and Dice's coefficient of the quote
    and the words it is found in (words spread over a long passage are not the same rule)."""
    return min(matched / max(1, quote_len), 2 * matched / max(1, quote_len + span_len))


def match_quote(quote: str, unit: Unit) -> Match:
    """How closely the unit's own words hold `quote`, and those words verbatim."""
    old = [_fold(t.group()) for t in _tokens(quote)]
    found_tokens = _tokens(unit.text)
    new = [_fold(t.group()) for t in found_tokens]
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    blocks = [m for m in sm.get_matching_blocks() if m.size]
    # a lone short word ("de", "a") matched far away is chance, not the same provision
    if len(old) > 2:
        blocks = [m for m in blocks if m.size > 1 or len(old[m.a]) > 3]
    best = (0.0, None, None)
    for i in range(len(blocks)):   # the run of matching blocks with the best score
        matched = 0
        for j in range(i, len(blocks)):
            matched += blocks[j].size
            span = blocks[j].b + blocks[j].size - blocks[i].b
            score = _score(matched, len(old), span)
            if score > best[0]:
                best = (score, blocks[i].b, blocks[j].b + blocks[j].size)
    score, start, end = best
    if start is None:
        return Match(unit, 0.0, "", "")
    stop = found_tokens[end - 1].end()
    words = unit.text[found_tokens[start].start():stop]
    if words.count("(") > words.count(")") and unit.text[stop:stop + 1] == ")":
        words += ")"   # "10 (dez)", not "10 (dez"
    if not contains_quote(unit, words):
        return Match(unit, 0.0, "", "")
    return Match(unit, round(score, 3), words, word_diff(_words(quote), _words(words)))


def word_diff(old: list[str], new: list[str]) -> str:
    """Git's word diff: words only in the old pack's quote as [-…-], only here as {+…+}."""
    sm = difflib.SequenceMatcher(None, [_fold(w) for w in old], [_fold(w) for w in new],
                                 autojunk=False)
    out = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            out.append(" ".join(new[j1:j2]))
            continue
        if i2 > i1:
            out.append("[-" + " ".join(old[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + " ".join(new[j1:j2]) + "+}")
    return " ".join(out)


def best_match(quote: str, law: LawText) -> Match | None:
    """The unit of `law` whose own words hold most of `quote` (ties: the earlier unit)."""
    best = None
    for unit in law.units():
        m = match_quote(quote, unit)
        if m.quote and (best is None or m.score > best.score):
            best = m
    return best


# --- input -------------------------------------------------------------------------------------

def read_law_file(path: Path) -> str:
    """The law's text, or DraftError saying why it cannot be one."""
    if not path.exists():
        raise DraftError(f"arquivo não encontrado: {path}")
    if not path.is_file():
        raise DraftError(f"não é um arquivo: {path}")
    if path.suffix.lower() != ".txt":
        raise DraftError(f"a lei deve ser um arquivo de texto .txt (UTF-8): {path.name}")
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise DraftError(f"arquivo grande demais para o texto de uma lei ({size // 1024} KB; "
                         f"limite {MAX_BYTES // 1024} KB): {path.name}")
    raw = path.read_bytes()
    if b"\0" in raw:
        raise DraftError(f"não é texto (há bytes nulos; um PDF ou um .doc?): {path.name} — "
                         "copie o texto da lei para um .txt em UTF-8")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DraftError(f"não é texto em UTF-8 (byte {e.start}): {path.name} — salve o "
                         "arquivo como UTF-8") from None


def check_town_slug(slug: str) -> str:
    if not SLUG.match(slug or "") or len(slug) > 60:
        raise DraftError(f"nome curto do município inválido: {slug!r} (letras minúsculas sem "
                         "acento, números e hífens, como santa-rita-do-trivelato)")
    return slug


# --- the draft ---------------------------------------------------------------------------------

def _citation_of(unit: Unit, quote: str) -> dict:
    c: dict[str, Any] = {"article": unit.article}
    if unit.paragraph is not None:
        c["paragraph"] = int(unit.paragraph) if unit.paragraph.isdigit() else "unico"
    if unit.item is not None:
        c["item"] = unit.item
    if unit.alinea is not None:
        c["alinea"] = unit.alinea
    if unit.occurrence > 1:
        c["occurrence"] = unit.occurrence
    c["quote"] = quote
    return c


def _raw(pack: RulePack) -> dict:
    from inspector.rules.reading import _NoDatesLoader

    return yaml.load(Path(pack.path).read_text(encoding="utf-8"), Loader=_NoDatesLoader)  # noqa: S506


def _citations(node: Any, key: str = ""):
    """(key, citation mapping) of every citation in plain pack data."""
    if isinstance(node, dict):
        for k, v in node.items():
            here = f"{key}.{k}" if key else str(k)
            if str(k).endswith("citation") and isinstance(v, dict):
                yield here, v
            else:
                yield from _citations(v, here)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            ident = v.get("id") if isinstance(v, dict) else None
            yield from _citations(v, f"{key}[{ident if ident else i}]")


def pack_similarity(pack: RulePack, law: LawText) -> float:
    """How closely the new law holds the words this pack's checklist and sanctions cite."""
    data = _raw(pack)
    scores = []
    for _, cit in _citations({"checklist": data.get("checklist") or [],
                              "sanctions": data.get("sanctions") or {}}):
        m = best_match(str(cit.get("quote") or ""), law)
        scores.append(m.score if m else 0.0)
    return round(sum(scores) / len(scores), 3) if scores else 0.0


def _guess_service(text: str, file_name: str) -> str | None:
    head = file_name + " " + text[:3000]
    if _SERVICE_WORDS["mototaxi"].search(head):
        return "mototaxi"
    if _SERVICE_WORDS["taxi"].search(head):
        return "taxi"
    return None


def _law_name(text: str) -> tuple[str, str | None, str | None]:
    m = _LAW_NAME.search(text[:3000])
    if not m:
        return TODO, None, None
    number, year = m.group(1), m.group(2)
    if len(year) == 2:
        year = ("19" if int(year) > 50 else "20") + year
    return f"Lei {number.zfill(3)}/{year}", number.zfill(3), year


def _title(law: LawText) -> str:
    pre = next((b.text for b in law.blocks() if b.kind == "preamble"), "")
    flat = " ".join(pre.split())
    m = _TITLE.search(flat)
    if not m:
        return TODO
    title = re.split(r"(?<=[.])\s|\s(?:O|A)\s+PREFEIT|\sFaço saber|\s\S+,\s*Prefeit",
                     m.group(0))[0]
    return title.strip(" .“”\"") or TODO


def _in_force(law: LawText) -> dict:
    for unit in law.units():
        m = _IN_FORCE.search(unit.text)
        if m:
            words = unit.text[m.start():].split(",")[0].split(";")[0].strip(" .")
            if contains_quote(unit, words):
                return _citation_of(unit, words)
    return {"article": TODO, "quote": TODO}


def _retarget(data: Any, law: LawText, origin: str, drop_below: float | None) -> bool:
    """Point every citation in `data` at the closest unit of `law`, with a proposal marker.
    False when a citation has no unit at least `drop_below` similar (the caller drops it)."""
    for _, cit in list(_citations(data)):
        old_quote = str(cit.get("quote") or "")
        # a citation of another law (an amendment) is not in this one
        m = None if cit.get("source") else best_match(old_quote, law)
        if drop_below is not None and (m is None or m.score < drop_below):
            return False
        old_where = _label(cit)
        if m is None:
            cit.clear()
            cit.update({"article": TODO, "quote": TODO, "proposal": {
                "from": f"{origin}, {old_where}", "their_words": old_quote,
                "warning": "nenhum artigo parecido nesta lei: cite o artigo certo ou apague a regra"}})
            continue
        new = _citation_of(m.unit, m.quote)
        new["proposal"] = {
            "from": f"{origin}, {old_where}",
            "similarity": m.score,
            "their_words": old_quote,
            "differs": m.differs if m.differs != m.quote else "(as mesmas palavras)",
        }
        if m.score < MATCH_AT_LEAST:
            new["proposal"]["warning"] = ("pouco parecido: esta lei talvez não tenha esta regra; "
                                          "procure o artigo certo ou apague a regra")
        cit.clear()
        cit.update(new)
    return True


def _label(cit: dict) -> str:
    parts = [f"Art. {cit.get('article')}"]
    if cit.get("paragraph") is not None:
        p = str(cit["paragraph"])
        parts.append("parágrafo único" if p.lower().startswith(("unico", "único")) else f"§ {p}º")
    if cit.get("item"):
        parts.append(str(cit["item"]))
    if cit.get("alinea"):
        parts.append(str(cit["alinea"]))
    return ", ".join(parts)


def _strip_dates(node: Any) -> None:
    """Entries copied from another law keep none of its dates (`from`/`to` of that law)."""
    if isinstance(node, dict):
        for k in ("from", "to"):   # `to` is also an appeal's authority ("to: mayor")
            if k in node and re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(node[k])):
                del node[k]
        for v in node.values():
            _strip_dates(v)
    elif isinstance(node, list):
        for v in node:
            _strip_dates(v)


def _decree_keys(node: Any) -> set[str]:
    out = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("decree", "applies_if_decree") and isinstance(v, str):
                out.add(v)
            else:
                out |= _decree_keys(v)
    elif isinstance(node, list):
        for v in node:
            out |= _decree_keys(v)
    return out


def build_draft(text: str, law_file: str, town: str, candidates: tuple[RulePack, ...],
                service: str | None = None) -> Draft:
    """The draft pack of `town` for the law `text` (file name `law_file`), with proposals
    from the most similar of `candidates`."""
    check_town_slug(town)
    law = parse_law(text, Path(law_file).stem)
    if not law.articles:
        raise DraftError(f"nenhum artigo encontrado em {law_file} (linhas 'Art. 1º ...'): é o "
                         "texto de uma lei?")
    service = service or _guess_service(text, law_file)
    name, number, year = _law_name(text)
    pack_id = f"{town}-{number}-{year}" if number else f"{town}-rascunho"
    pool = [p for p in candidates if service is None or p.service == service] or list(candidates)
    scores = {p.id: pack_similarity(p, law) for p in pool}
    similar = max(pool, key=lambda p: (scores[p.id], p.id)) if pool else None

    checklist: list[dict] = []
    sanctions: dict = {}
    decree: list[dict] = []
    left_out: list[str] = []
    cited_items = 0
    if similar is not None:
        raw = _raw(similar)
        for item in copy.deepcopy(raw.get("checklist") or []):
            _strip_dates(item)
            if _retarget(item, law, similar.id, MATCH_AT_LEAST):
                checklist.append(item)
            else:
                left_out.append(f"checklist[{item.get('id')}] ({_label(item.get('citation') or {})}"
                                f" de {similar.law}): nenhum artigo parecido nesta lei")
        kept = {i["id"] for i in checklist}
        sanctions = copy.deepcopy(raw.get("sanctions") or {})
        _strip_dates(sanctions)
        for offence in list(sanctions.get("offences") or []):
            findings = offence.get("findings") or []
            keep = [f for f in findings if "." in f.split(":")[0] or f.split(":")[0] in kept]
            if not keep:
                sanctions["offences"].remove(offence)
                left_out.append(f"sanctions.offences[{offence.get('id')}]: os itens do checklist "
                                "a que ela se aplica ficaram de fora")
            else:
                offence["findings"] = keep
        if not sanctions.get("offences"):
            sanctions.pop("offences", None)
        _retarget(sanctions, law, similar.id, None)
        wanted = _decree_keys(checklist) | _decree_keys(sanctions)
        for entry in copy.deepcopy(raw.get("decree") or []):
            if entry.get("key") in wanted:
                _retarget(entry, law, similar.id, None)
                decree.append(entry)
        cited_items = sum(1 for _ in _citations({"c": checklist, "s": sanctions, "d": decree}))

    articles = []
    n_units = 0
    for art in law.articles:
        units = []
        for u in art.walk():
            if u.text.strip():
                units.append({"anchor": u.anchor, "citation": _citation_of(u, u.text)})
        n_units += len(units)
        articles.append({"article": art.article, "status": TODO, "units": units})

    pack: dict[str, Any] = {
        "format": 1,
        "id": pack_id,
        "town": town,
        "town_name": TODO,
        "service": service or TODO,
        "law": {"name": name, "title": _title(law), "source": Path(law_file).name},
        "in_force": {"from": TODO, "to": None, "citation": _in_force(law)},
    }
    unit_words = re.search(r"\b(UFIM|UFM)\b", text)
    if unit_words:
        pack["fiscal_unit"] = unit_words.group(1)
    if decree:
        pack["decree"] = decree
    pack["checklist"] = checklist
    if sanctions:
        pack["sanctions"] = sanctions
    pack["draft"] = {
        "similar_pack": similar.id if similar else None,
        "similarity": scores,
        "left_out": left_out,
        "articles": articles,
    }
    head = (
        f"# Rascunho do pacote de regras de {town}: {name}, de {Path(law_file).name}.\n"
        "# Gerado por `flask rules draft`; o servidor NÃO o carrega enquanto houver `draft`,\n"
        "# `proposal` ou TODO. O que falta: `flask --app inspector rules validate <este arquivo>`.\n"
        "# - TODO: preencha (o nome do município, o dia em que a lei entra em vigor...).\n"
        "# - proposal: regra copiada do pacote mais parecido"
        + (f" ({similar.id})" if similar else "") + ", com a citação\n"
        "#   apontada para as palavras mais parecidas desta lei; `differs` mostra [-as de lá-]\n"
        "#   {+as daqui+}. Confira a regra (valores, prazos, quem decide) e apague `proposal`.\n"
        "# - draft.articles: cada artigo, parágrafo, inciso e alínea da lei com suas palavras;\n"
        "#   leia cada artigo, escreva a regra que ele cria (checklist, limits, periodicity,\n"
        "#   requirements, sanctions: docs/rule-packs.md) e troque TODO por revisado.\n"
        "#   Quando todos estiverem revisados, apague a seção `draft`.\n"
    )
    body = yaml.safe_dump(pack, allow_unicode=True, sort_keys=False, width=100,
                          default_flow_style=False)
    return Draft(text=head + body, pack_id=pack_id, similar=similar.id if similar else None,
                 scores=scores, articles=len(articles), units=n_units,
                 proposed_items=len(checklist), proposed_citations=cited_items,
                 left_out=tuple(left_out))


# --- what is left ------------------------------------------------------------------------------

def pending(data: Any) -> list[Pending]:
    """Every TODO, unconfirmed proposal and unread article of a draft, in the pack's order."""
    out: list[Pending] = []
    if not isinstance(data, dict):
        return out

    def walk(node: Any, key: str, article: int | None) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("article"), int):
                article = node["article"]
            for k, v in node.items():
                here = f"{key}.{k}" if key else str(k)
                if k == "draft" and not key:
                    continue
                if k == "proposal":
                    p = v if isinstance(v, dict) else {}
                    what = f"proposta de {p.get('from', '?')}"
                    if p.get("similarity") is not None:
                        what += f" (semelhança {str(p['similarity']).replace('.', ',')})"
                    if p.get("differs"):
                        what += f"; palavras: {p['differs']}"
                    out.append(Pending(key, article, what + " — confira e apague 'proposal'"))
                    continue
                walk(v, here, article)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                ident = v.get("id") if isinstance(v, dict) else None
                walk(v, f"{key}[{ident if isinstance(ident, str) else i}]", article)
        elif isinstance(node, str) and re.match(rf"{TODO}\b", node.strip()):   # not "Todos"
            out.append(Pending(key, article, "a preencher (TODO)"))

    walk(data, "", None)
    draft = data.get("draft")
    if draft is not None:
        arts = draft.get("articles") if isinstance(draft, dict) else None
        unread = [a for a in arts or [] if isinstance(a, dict)
                  and re.match(rf"{TODO}\b", str(a.get("status", "")).strip())]
        for i, a in enumerate(arts or []):
            if a in unread:
                out.append(Pending(f"draft.articles[{i}].status", a.get("article"),
                                   "artigo não revisado: escreva a regra que ele cria (ou nenhuma)"
                                   " e troque TODO por revisado"))
        if not unread:
            out.append(Pending("draft", None, "todos os artigos revisados: apague a seção "
                                              "'draft' para usar o pacote"))
    return out


def is_draft(data: Any) -> bool:
    """A pack written by `rules draft` and not finished: a `draft` section or a proposal."""
    def has_proposal(node: Any) -> bool:
        if isinstance(node, dict):
            return "proposal" in node or any(has_proposal(v) for v in node.values())
        if isinstance(node, list):
            return any(has_proposal(v) for v in node)
        return False

    return isinstance(data, dict) and ("draft" in data or has_proposal(data))


def strip_draft(data: Any) -> Any:
    """The pack without its draft parts (for the loader to find the other problems)."""
    data = copy.deepcopy(data)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            node.pop("proposal", None)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    if isinstance(data, dict):
        data.pop("draft", None)
        walk(data)
    return data


def todo_keys(data: Any) -> list[str]:
    """The keys whose value is still TODO (the loader's complaints about them are the same)."""
    return [p.key for p in pending(data) if p.message.endswith("(TODO)")]
