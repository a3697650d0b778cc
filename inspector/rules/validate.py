"""`rules validate`: check a new town's pack against its law text with the strict loader, and
report every problem with its line, not only the first.

The loader stops at the first problem (a pack in use must be all right or not load). To find
the next ones, the problem's place is set aside and the same loader runs again: an unknown
or wrong key is left out, a citation that does not match the law is replaced by one that
does; a problem that cannot be set aside (a missing required key, a malformed list) ends the
search. Each problem is reported once with the line of its key in the file (the loader names
keys, the YAML tree gives their lines). A pack that loads is also checked against every pack
in use (same id, two laws of one town and service in force on the same day), and its law
text for articles numbered twice.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from inspector.rules import draft
from inspector.rules.lawtext import contains_quote
from inspector.rules.loader import (
    RulePackError,
    check_together,
    laws_dirs,
    load_all,
    load_pack,
)
from inspector.rules.reading import _citation, _Ctx, _NoDatesLoader

MAX_ROUNDS = 200
_TOKEN = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a pack or a law text, where it is."""

    file: str
    line: int | None
    key: str
    message: str
    article: int | None = None   # a draft's pending step: the article it is about
    pending: bool = False        # left to finish in a draft (`rules draft`), not an error

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if self.pending:
            art = f"Art. {self.article}" if self.article is not None else "pacote"
            return f"{where}: {art}: {self.key}: {self.message}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


def _tokens(key: str) -> list[str | tuple[str]]:
    """'checklist[mirrors].citation.quote' -> ['checklist', ('mirrors',), 'citation', 'quote']."""
    out: list[str | tuple[str]] = []
    for name, index in _TOKEN.findall(key):
        out.append(name if name else (index,))
    return out


def _child(node: Any, token) -> Any:
    """The child of a YAML node (or of plain data) by mapping key, list index or item id."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if str(k.value) == token:
                return k, v
        return None
    if isinstance(node, yaml.SequenceNode) and isinstance(token, tuple):
        x = token[0]
        if x.isdigit():
            i = int(x)
            return (None, node.value[i]) if i < len(node.value) else None
        for item in node.value:
            found = _child(item, "id")
            if found and getattr(found[1], "value", None) == x:
                return None, item
    return None


def line_of(root: Any, key: str) -> int | None:
    """The 1-based line of the deepest node of `key` found in the composed YAML."""
    node, line = root, None
    for token in _tokens(key):
        found = _child(node, token)
        if found is None:
            break
        k, node = found
        line = (k or node).start_mark.line + 1
    return line


def _data_parent(data: Any, key: str):
    """(container, last token) of `key` in plain data, or None."""
    tokens = _tokens(key)
    node = data
    for token in tokens[:-1]:
        if isinstance(token, tuple):
            if not isinstance(node, list):
                return None
            x = token[0]
            if x.isdigit():
                node = node[int(x)] if int(x) < len(node) else None
            else:
                node = next((i for i in node if isinstance(i, dict) and i.get("id") == x), None)
        else:
            node = node.get(token) if isinstance(node, dict) else None
        if node is None:
            return None
    return node, tokens[-1] if tokens else None


def _placeholder(data: dict, pack_path: Path) -> dict | None:
    """A citation of the pack's own law that the loader accepts: its first article's words."""
    try:
        ctx = _Ctx(pack_path, laws_dirs())
        law = ctx.law_text("law.source", data["law"]["source"])
    except (RulePackError, KeyError, TypeError):
        return None
    for unit in law.articles:
        words = unit.text.split()[1:6] or unit.full_text.split()[:5]
        quote = " ".join(words)
        if quote and contains_quote(unit, quote):
            return {"article": unit.article, "quote": quote}
    return None


def _set_aside(data: dict, key: str, message: str, pack_path: Path) -> bool:
    """Change `data` so that the loader passes this key: False when it cannot."""
    tokens = _tokens(key)
    names = [t for t in tokens if isinstance(t, str)]
    cut = next((i for i in range(len(tokens) - 1, -1, -1)
                if isinstance(tokens[i], str) and tokens[i].endswith("citation")), None)
    if cut is not None and "missing required key" not in message:
        citation_key = "".join(f".{t}" if isinstance(t, str) else f"[{t[0]}]"
                               for t in tokens[:cut + 1]).lstrip(".")
        found = _data_parent(data, citation_key)
        fix = _placeholder(data, pack_path)
        if found is None or fix is None or not isinstance(found[0], dict):
            return False
        found[0][found[1]] = fix
        return True
    if message == "unknown key" or (names and message not in ("missing required key",)
                                    and not message.startswith("must be a mapping")):
        found = _data_parent(data, key)
        if found is None or not isinstance(found[0], dict) or found[1] not in found[0]:
            return False
        if found[1] in ("id", "town", "service", "law", "in_force", "format", "checklist"):
            return False  # what everything else depends on
        del found[0][found[1]]
        return True
    return False


def validate_pack(path: Path | str) -> list[Problem]:
    """Every problem of one pack file (and of the law text it cites), each with its line."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        root = yaml.compose(text, Loader=_NoDatesLoader)
        data = yaml.load(text, Loader=_NoDatesLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        return [Problem(str(path), mark.line + 1 if mark else None, "(yaml)",
                        str(getattr(e, "problem", None) or e).replace("\n", " "))]
    problems = _duplicate_keys(str(path), root)
    todo: tuple[str, ...] = ()
    left = _draft_left(path, root, data)
    if draft.is_draft(data):   # a draft: the loader checks the rest, its TODOs are already listed
        todo = tuple(draft.todo_keys(data))
        data = draft.strip_draft(data)
        for key in todo:
            _stand_in(data, key, path)
    found: list[Problem] = []
    for _ in range(MAX_ROUNDS):
        try:
            pack = load_pack(path, laws_dirs(), data=data)
        except RulePackError as e:
            if any((p.key, p.message) == (e.key, e.reason) for p in found):
                break
            found.append(Problem(str(path), line_of(root, e.key), e.key, e.reason))
            if not isinstance(data, dict) or not _set_aside(data, e.key, e.reason, path):
                break
            continue
        if not found and not todo:
            found += _together(pack)
        break
    if todo:
        found = [p for p in found if not any(p.key == k or p.key.startswith((k + ".", k + "["))
                                             for k in todo)]
    found = sorted(problems + found, key=lambda p: (p.file != str(path), p.line or 0))
    return left + found + _law_problems(path, data)


def _stand_in(data: dict, key: str, pack_path: Path) -> None:
    """A value the loader accepts in place of a draft's TODO (already listed), so that the
    search for the other problems goes on."""
    found = _data_parent(data, key)
    if found is None or not isinstance(found[0], dict):
        return
    parent, name = found
    if name in ("from", "to", "enacted"):
        parent[name] = "1900-01-01"
    elif name == "service":
        parent[name] = "taxi"
    elif name in ("article", "quote"):
        cited = _data_parent(data, key.rsplit(".", 1)[0])
        fix = _placeholder(data, pack_path)
        if cited is not None and isinstance(cited[0], dict) and fix is not None:
            cited[0][cited[1]] = fix


def _draft_left(path: Path, root: Any, data: Any) -> list[Problem]:
    """What a draft (`rules draft`) still needs, by article; its anchored units rechecked
    against the law text (an edited text may have moved them)."""
    if not draft.is_draft(data):
        return []
    out = [Problem(str(path), line_of(root, p.key), p.key, p.message, p.article, pending=True)
           for p in draft.pending(data)]
    arts = data["draft"].get("articles") if isinstance(data.get("draft"), dict) else None
    try:
        ctx = _Ctx(path, laws_dirs())
        ctx.law = ctx.law_text("law.source", data["law"]["source"])
        ctx.law_slug, ctx.law_name = ctx.law.slug, str(data["law"].get("name"))
    except (RulePackError, KeyError, TypeError, AttributeError):
        return sorted(out, key=lambda p: (p.article or 0, p.line or 0))
    for i, art in enumerate(arts or []):
        for j, unit in enumerate(art.get("units") or [] if isinstance(art, dict) else []):
            key = f"draft.articles[{i}].units[{j}].citation"
            try:
                _citation(ctx, unit.get("citation") if isinstance(unit, dict) else None, key)
            except RulePackError as e:
                out.append(Problem(str(path), line_of(root, e.key), e.key, e.reason))
    return sorted(out, key=lambda p: (not p.pending, p.article or 0, p.line or 0))


def _duplicate_keys(file: str, node: Any, key: str = "") -> list[Problem]:
    """Every key given twice in one mapping (YAML would keep the last one silently)."""
    out = []
    if isinstance(node, yaml.MappingNode):
        first: dict[str, int] = {}
        for k, v in node.value:
            name = str(k.value)
            here = f"{key}.{name}" if key else name
            if name in first:
                out.append(Problem(file, k.start_mark.line + 1, here,
                                   f"duplicate key (first on line {first[name]})"))
            first.setdefault(name, k.start_mark.line + 1)
            out += _duplicate_keys(file, v, here)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            out += _duplicate_keys(file, v, f"{key}[{i}]")
    return out


def _together(pack) -> list[Problem]:
    """The pack against every pack in use (itself left out if it is one of them)."""
    others = tuple(p for p in load_all() if Path(p.path).resolve() != Path(pack.path).resolve())
    try:
        check_together(others + (pack,))
    except RulePackError as e:
        return [Problem(e.file, None, e.key, e.reason)]
    return []


def _law_problems(pack_path: Path, data: Any) -> list[Problem]:
    """An article numbered twice in the cited law text (its anchors would collide)."""
    try:
        ctx = _Ctx(pack_path, laws_dirs())
        law = ctx.law_text("law.source", data["law"]["source"])
        file = next(str(d / data["law"]["source"]) for d in ctx.laws_dirs
                    if (d / data["law"]["source"]).is_file())
    except (RulePackError, KeyError, TypeError, StopIteration):
        return []
    out, seen = [], {}
    for d in laws_dirs():
        same = d / Path(file).name
        if same.is_file() and same.resolve() != Path(file).resolve():
            out.append(Problem(file, None, "(file name)", f"uma lei com este nome já está em "
                               f"uso: {same} (dê outro nome ao arquivo e a law.source)"))
    for unit in law.articles:
        if unit.article in seen:
            out.append(Problem(file, unit.first_line, f"Art. {unit.article}",
                               f"artigo numerado duas vezes (também na linha "
                               f"{seen[unit.article]})"))
        seen.setdefault(unit.article, unit.first_line)
    if not law.articles:
        out.append(Problem(file, None, "", "nenhum artigo encontrado (linhas 'Art. 1º ...')"))
    return out


def validate_path(path: Path | str) -> tuple[list[Path], list[Problem]]:
    """A pack file, or a folder laid out like RULES_EXTRA_DIR (`packs/*.yaml`, or `*.yaml`):
    the packs checked and every problem found."""
    path = Path(path)
    if path.is_dir():
        files = sorted((path / "packs").glob("*.yaml")) or sorted(path.glob("*.yaml"))
    else:
        files = [path]
    problems: list[Problem] = []
    for f in files:
        problems += validate_pack(f)
    return files, problems
