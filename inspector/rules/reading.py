"""Reading a pack file strictly: YAML without implicit dates, duplicate keys refused, typed
values and citations checked against the law text; every error names the file and key."""
from __future__ import annotations

import functools
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml

from inspector.rules.lawtext import LawText, contains_quote, make_anchor, read_law
from inspector.rules.model import Span
from inspector.rules.results import Citation


class RulePackError(ValueError):
    """A pack that cannot be trusted: says which file and which key."""

    def __init__(self, file: str, key: str, message: str):
        self.file, self.key, self.reason = file, key, message
        super().__init__(f"{file}: {key}: {message}")


class _NoDatesLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when present
    """A safe loader that leaves dates as strings, so a bad date is our error with its key."""


_NoDatesLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _parse(ctx: _Ctx, text: str) -> Any:
    """Compose once, refuse duplicate keys with their path, then build plain data."""
    loader = _NoDatesLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_duplicate_keys(ctx, node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


class _Ctx:
    """The file being read, the law texts it cites, and error reporting."""

    def __init__(self, path: Path, laws_dirs: tuple[Path, ...]):
        self.path, self.file = path, str(path)
        self.laws_dirs = (path.parent, path.parent.parent / "laws", *laws_dirs)
        self.law_name = self.law_slug = ""
        self.law: LawText | None = None
        self.start = date.min

    def fail(self, key: str, message: str):
        raise RulePackError(self.file, key, message)

    def law_text(self, key: str, source: str) -> LawText:
        for d in self.laws_dirs:
            if (d / source).is_file():
                return _read_law_cached(str((d / source).resolve()))
        self.fail(key, f"law text '{source}' not found")


# bench/caches.py: parsing a law text costs 1.8-6.5 ms a call
@functools.lru_cache(maxsize=64)
def _read_law_cached(path: str) -> LawText:
    return read_law(Path(path))


# --- small typed readers ----------------------------------------------------------------------

def _mapping(ctx: _Ctx, data: Any, key: str, required=(), optional=()) -> dict:
    if not isinstance(data, dict):
        ctx.fail(key, "must be a mapping")
    for k in data:
        if k in ("draft", "proposal") and k not in optional:
            ctx.fail(f"{key}.{k}" if key else str(k), "rascunho não terminado (flask rules draft):"
                     " `flask --app inspector rules validate` lista o que falta")
        if k not in required and k not in optional:
            ctx.fail(f"{key}.{k}" if key else str(k), "unknown key")
    for k in required:
        if k not in data or (k == "citation" and data[k] is None):
            ctx.fail(f"{key}.{k}" if key else k,
                     "missing citation" if k == "citation" else "missing required key")
    return data


def _str(ctx, data, key) -> str:
    if not isinstance(data, str) or not data.strip():
        ctx.fail(key, "must be a non-empty text")
    return data.strip()


def _int(ctx, data, key) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        ctx.fail(key, "must be a whole number")
    return data


def _bool(ctx, data, key) -> bool:
    if not isinstance(data, bool):
        ctx.fail(key, "must be true or false")
    return data


def _date(ctx, data, key) -> date:
    try:
        return date.fromisoformat(str(data))
    except ValueError:
        ctx.fail(key, f"bad date '{data}' (expected YYYY-MM-DD)")


def _decimal(ctx, data, key) -> Decimal:
    if isinstance(data, bool) or not isinstance(data, (int, float, str)):
        ctx.fail(key, "must be a number")
    try:
        return Decimal(str(data))
    except InvalidOperation:
        ctx.fail(key, f"bad number '{data}'")


def _choice(ctx, data, key, choices) -> str:
    if data not in choices:
        ctx.fail(key, f"'{data}' is not one of {', '.join(choices)}")
    return data


def _span(ctx, data: dict, key: str, default: Span) -> Span:
    start = _date(ctx, data["from"], f"{key}.from") if data.get("from") is not None \
        else default.start
    last = _date(ctx, data["to"], f"{key}.to") if data.get("to") is not None else default.last
    if start < default.start:
        ctx.fail(f"{key}.from", f"{start} is before the law took effect ({default.start})")
    if last is not None and last < start:
        ctx.fail(f"{key}.to", "ends before it starts")
    return Span(start, last)


# --- citations ----------------------------------------------------------------------------------

_CITATION_KEYS = ("article", "paragraph", "item", "alinea", "occurrence", "quote", "note",
                  "law", "source")


def _citation(ctx: _Ctx, data: Any, key: str) -> Citation:
    if data is None:
        ctx.fail(key, "missing citation")
    _mapping(ctx, data, key, required=("article", "quote"), optional=_CITATION_KEYS)
    law_name, law_slug, law = ctx.law_name, ctx.law_slug, ctx.law
    if "source" in data:
        source = _str(ctx, data["source"], f"{key}.source")
        law = ctx.law_text(f"{key}.source", source)
        law_slug = law.slug
        law_name = _str(ctx, data.get("law"), f"{key}.law")
    elif "law" in data:
        ctx.fail(f"{key}.law", "a citation of another law also needs its 'source' text")
    article = _int(ctx, data["article"], f"{key}.article")
    paragraph = data.get("paragraph")
    if paragraph is not None:
        paragraph = str(paragraph).lower().replace("único", "unico")
        if paragraph != "unico" and not paragraph.isdigit():
            ctx.fail(f"{key}.paragraph", "must be a number or 'unico'")
    item = data.get("item")
    if item is not None:
        item = _str(ctx, item, f"{key}.item").upper()
    alinea = data.get("alinea")
    if alinea is not None:
        alinea = _str(ctx, alinea, f"{key}.alinea").lower()
    occurrence = _int(ctx, data.get("occurrence", 1), f"{key}.occurrence")
    quote = _str(ctx, data["quote"], f"{key}.quote")
    unit = law.locate(article, paragraph, item, alinea, occurrence)
    if unit is None:
        what = make_anchor(article, paragraph, item, alinea, occurrence)
        if law.locate(article) is None:
            ctx.fail(f"{key}.article", f"Art. {article} not found in {law.slug}")
        ctx.fail(key, f"{what} not found in {law.slug} (no such paragraph, item or alínea)")
    if not contains_quote(unit, quote):
        ctx.fail(f"{key}.quote", f"quote not found in {unit.label} of {law.slug}: {quote!r}")
    note = data.get("note")
    return Citation(law=law_name, law_slug=law_slug, article=unit.label, anchor=unit.anchor,
                    quote=quote, note=_str(ctx, note, f"{key}.note") if note else None)


def _check_duplicate_keys(ctx: _Ctx, node: yaml.Node, key: str = "") -> None:
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for k, v in node.value:
            name = str(k.value)
            here = f"{key}.{name}" if key else name
            if name in seen:
                ctx.fail(here, f"duplicate key (line {k.start_mark.line + 1})")
            seen.add(name)
            _check_duplicate_keys(ctx, v, here)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _check_duplicate_keys(ctx, v, f"{key}[{i}]")
