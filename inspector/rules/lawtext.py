"""The text of a law, split into articles, paragraphs, items and alíneas with stable anchors.

Anchors: `art-15` (article), `art-15-p1` (§ 1º), `art-8-pu` (parágrafo único),
`art-15-i` (item I of the caput), `art-11-pu-a` (alínea a of the parágrafo único),
`art-13-ix-a` (alínea a of item IX). An item numbered twice in the same place gets
`-2` for its second occurrence (Nortelândia 127, Art. 16 has two items "II":
`art-16-ii` and `art-16-ii-2`). Numbers are kept as printed: an item the law skips
(Nortelândia 127, Art. 14 goes from VII to IX) simply has no anchor.

Page headers repeated on every page and bare page numbers are not part of any unit's
text, but the source keeps them; `LawText.blocks()` gives what a reader should see.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_ORD = r"(?:º|°|o|ª)?"
_ARTICLE = re.compile(rf"^\s*Art\.\s*(\d+)\s*{_ORD}\s*\.?\s*[-–—]?\s*")
_PARAGRAPH = re.compile(
    rf"^\s*[“\"]?\s*(?:§\s*(?P<num>\d+)\s*{_ORD}|§\s*(?P<u1>[ÚúUu]nico)"
    rf"|Par[áa]grafo\s+(?:(?P<u2>[ÚúUu]nico)|(?P<num2>\d+)\s*{_ORD}))[-–—.:\s]*",
)  # "Parágrafo" capitalised: "... no parágrafo 1º do artigo 61" is a reference, not a heading
_ITEM = re.compile(r"^\s*(?P<num>[IVXLC]+)\s*[-–—]\s*")
_ALINEA = re.compile(r"^\s*(?P<letter>[a-z])\)\s*[-–—]?\s*")
_CLOSING = re.compile(r"^\s*(Gabinete\b|Paço\b|Registre-se|\S+-MT, em\b)")
_PAGE_NUMBER = re.compile(r"^\s*\d{1,3}\s*$")


@dataclass(frozen=True)
class Unit:
    """One numbered piece of a law: an article, a paragraph, an item or an alínea."""

    anchor: str
    kind: str            # article | paragraph | item | alinea
    label: str           # how a citation prints it: "Art. 16, II (2º)"
    marker: str          # the numbering as it appears in the text: "II", "§ 1º", "a)"
    article: int
    paragraph: str | None   # "1", "2", ... or "unico"
    item: str | None        # roman numeral as printed
    alinea: str | None
    occurrence: int         # 2 for the second item printed with the same numeral
    text: str               # this unit's own words (children excluded)
    first_line: int         # 1-based lines in the source file
    last_line: int
    children: tuple[Unit, ...] = ()

    @property
    def full_text(self) -> str:
        """The unit's words followed by its children's, in order."""
        return " ".join([self.text] + [c.full_text for c in self.children]).strip()

    def walk(self):
        """This unit and every descendant, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class Block:
    """Something a reader sees, in order: preamble, heading, a unit's own text, closing."""

    kind: str               # preamble | heading | article | paragraph | item | alinea | closing
    text: str
    anchor: str | None = None
    depth: int = 0
    label: str | None = None
    marker: str | None = None


@dataclass(frozen=True)
class LawText:
    """A parsed law: its source, its units by anchor, and what to show a reader."""

    slug: str
    source: str
    articles: tuple[Unit, ...]
    _blocks: tuple[Block, ...] = field(repr=False)
    _index: dict = field(repr=False, compare=False)

    def blocks(self) -> tuple[Block, ...]:
        """Everything to render, in order, each numbered block with its anchor."""
        return self._blocks

    def unit(self, anchor: str) -> Unit | None:
        """The unit with this anchor, or None."""
        return self._index.get(anchor)

    def units(self):
        """Every unit in document order."""
        for art in self.articles:
            yield from art.walk()

    def locate(self, article: int, paragraph: str | None = None, item: str | None = None,
               alinea: str | None = None, occurrence: int = 1) -> Unit | None:
        """The unit a citation points at, or None when the law has no such unit."""
        return self._index.get(make_anchor(article, paragraph, item, alinea, occurrence))


def make_anchor(article: int, paragraph: str | None = None, item: str | None = None,
                alinea: str | None = None, occurrence: int = 1) -> str:
    """The anchor of a unit from its numbering (see the module docstring)."""
    parts = [f"art-{article}"]
    if paragraph is not None:
        parts.append("pu" if str(paragraph).lower() in ("unico", "único") else f"p{paragraph}")
    if item is not None:
        parts.append(str(item).lower())
    if alinea is not None:
        parts.append(str(alinea).lower())
    anchor = "-".join(parts)
    return anchor if occurrence == 1 else f"{anchor}-{occurrence}"


def make_label(article: int, paragraph: str | None = None, item: str | None = None,
               alinea: str | None = None, occurrence: int = 1) -> str:
    """How a citation of a unit prints: "Art. 15, I", "Art. 8, parágrafo único"."""
    parts = [f"Art. {article}"]
    if paragraph is not None:
        parts.append("parágrafo único" if str(paragraph).lower() in ("unico", "único")
                     else f"§ {paragraph}º")
    if item is not None:
        parts.append(str(item).upper() + (f" ({occurrence}º)" if occurrence > 1 else ""))
    if alinea is not None:
        parts.append(str(alinea).lower())
    return ", ".join(parts)


def normalize(text: str) -> str:
    """Text for comparing quotes: one space, plain dashes and quotes, case folded."""
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\ufffe", "-").replace("\u00ad", "")
    text = re.sub(r"[–—‐‑]", "-", text)
    text = re.sub(r"[“”„\"]", '"', text).replace("’", "'").replace("‘", "'")
    text = re.sub(r"\s+", " ", text)
    return text.strip().casefold()


def contains_quote(unit: Unit, quote: str) -> bool:
    """Whether the quote appears (modulo spacing, dashes, quotes and case) in the unit."""
    return normalize(quote) in normalize(unit.full_text)


# --- parsing ---------------------------------------------------------------------------------

class _Node:
    def __init__(self, kind, marker, article, paragraph, item, alinea, occurrence, line_no):
        self.kind, self.marker = kind, marker
        self.article, self.paragraph, self.item, self.alinea = article, paragraph, item, alinea
        self.occurrence = occurrence
        self.lines: list[str] = []
        self.first_line = self.last_line = line_no
        self.children: list[_Node] = []
        self.seen: Counter = Counter()

    def freeze(self) -> Unit:
        a = (self.article, self.paragraph, self.item, self.alinea, self.occurrence)
        return Unit(anchor=make_anchor(*a), kind=self.kind, label=make_label(*a),
                    marker=self.marker, article=self.article, paragraph=self.paragraph,
                    item=self.item, alinea=self.alinea, occurrence=self.occurrence,
                    text=_join(self.lines), first_line=self.first_line,
                    last_line=self.last_line,
                    children=tuple(c.freeze() for c in self.children))


def _join(lines: list[str]) -> str:
    return re.sub(r"[ \t]+", " ", " ".join(s.strip() for s in lines if s.strip())).strip()


def _noise_lines(lines: list[str]) -> set[str]:
    """Running page headers: a line of some length printed three times or more."""
    counts = Counter(s.strip() for s in lines if len(s.strip()) >= 12)
    return {s for s, n in counts.items() if n >= 3}


def _is_heading(s: str) -> bool:
    letters = [c for c in s if c.isalpha()]
    return len(letters) >= 3 and not any(c.islower() for c in letters)


def parse_law(text: str, slug: str) -> LawText:
    """Split a law's text into units with anchors (see the module docstring)."""
    lines = text.splitlines()
    noise = _noise_lines(lines)
    articles: list[_Node] = []
    blocks: list[tuple] = []  # ("preamble"/"heading"/"closing", text) or ("unit", node, depth)
    preamble: list[str] = []
    closing: list[str] = []
    art = par = item = current = None
    last_article = 0
    for no, raw in enumerate(lines, start=1):
        s = raw.strip()
        if not s or s in noise or _PAGE_NUMBER.match(s):
            continue
        if closing or (art is not None and _CLOSING.match(s)):
            closing.append(s)
            continue
        m = _ARTICLE.match(raw)
        if m and int(m.group(1)) > last_article:
            last_article = int(m.group(1))
            art = _Node("article", f"Art. {last_article}", last_article, None, None, None, 1, no)
            art.lines.append(raw[m.end():])
            articles.append(art)
            blocks.append(("unit", art, 0))
            par = item = None
            current = art
            continue
        if art is None:
            preamble.append(s)
            continue
        if _is_heading(s):
            blocks.append(("heading", s))
            current = None  # a heading closes the unit; text after it would be orphaned
            continue
        if m := _PARAGRAPH.match(raw):
            num = m.group("num") or m.group("num2")
            key = num if num else "unico"
            art.seen[("p", key)] += 1
            marker = s[: m.end() - (len(raw) - len(raw.lstrip()))].strip(" -–—.:“\"")
            par = _Node("paragraph", marker,
                        art.article, key, None, None, art.seen[("p", key)], no)
            par.lines.append(raw[m.end():])
            art.children.append(par)
            blocks.append(("unit", par, 1))
            item, current = None, par
            continue
        if m := _ITEM.match(raw):
            parent = par or art
            numeral = m.group("num")
            parent.seen[("i", numeral)] += 1
            item = _Node("item", numeral, art.article, par.paragraph if par else None, numeral,
                         None, parent.seen[("i", numeral)], no)
            item.lines.append(raw[m.end():])
            parent.children.append(item)
            blocks.append(("unit", item, 2 if par else 1))
            current = item
            continue
        if m := _ALINEA.match(raw):
            parent = item or par or art
            letter = m.group("letter")
            parent.seen[("a", letter)] += 1
            node = _Node("alinea", f"{letter})", art.article, parent.paragraph, parent.item,
                         letter, parent.seen[("a", letter)], no)
            if parent.kind == "item" and parent.occurrence > 1:
                node.occurrence = parent.occurrence
            node.lines.append(raw[m.end():])
            parent.children.append(node)
            depth = {"article": 1, "paragraph": 2, "item": 2 + (par is not None)}[parent.kind]
            blocks.append(("unit", node, depth))
            current = node
            continue
        if current is None:  # words after a heading and before the next number: the article's
            current = art
        current.lines.append(raw)
        current.last_line = no
    units = tuple(a.freeze() for a in articles)
    index = {u.anchor: u for a in units for u in a.walk()}
    out: list[Block] = []
    if preamble:
        out.append(Block("preamble", "\n".join(preamble)))
    for b in blocks:
        if b[0] == "heading":
            out.append(Block("heading", b[1]))
        else:
            node, depth = b[1], b[2]
            u = index[make_anchor(node.article, node.paragraph, node.item, node.alinea,
                                  node.occurrence)]
            out.append(Block(u.kind, u.text, u.anchor, depth, u.label, u.marker))
    if closing:
        out.append(Block("closing", "\n".join(closing)))
    return LawText(slug=slug, source=text, articles=units, _blocks=tuple(out), _index=index)


def read_law(path: Path) -> LawText:
    """Parse a law file; its slug is the file name without `.txt`."""
    return parse_law(path.read_text(encoding="utf-8"), path.stem)
