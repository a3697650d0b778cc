"""The documents say what is true now, and every path they name is there.

A reader who follows a path from the README, a page of docs/, a comment or a legal case file
must find the file; a document is read as a manual, not as a logbook, so none of them names a
work session or an issue number (that history is in git). The README stays short enough to
read in five minutes: what the product is, the commands, the demo logins, who can do what,
where to read more.
"""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 250

# Where documents, comments and tests live; static/vendor is copied from node_modules.
SCANNED = ("inspector", "tests", "docs", "bench", "deploy", "static", "templates",
           "service_worker", ".ci")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".html", ".js", ".css", ".toml", ".service",
                 ".timer", ".conf", ".example", ".mako", ".ini", ".txt", ""}
NOT_OURS = ("static/vendor/", "inspector/rules/laws/")  # copied files; the laws' own words

# Built from pieces so that this file does not name what it looks for.
HISTORY = re.compile("|".join([
    r"\bsessions? \d",             # a work session named by its number
    r"\bissues? #?\d",             # an issue named by its number, with or without "#"
    r"\bmust[ -]show \d",          # an issue's checklist
    "tests/" + "unit" + r"\b",     # a folder the tests no longer have
]), re.I)

# A repository path: one of the tree's top folders, then a path. Not preceded by a letter, a
# slash, a dot or a colon (so URLs and `../shared` are not read as ours).
TOP = r"(?:inspector|tests|docs|bench|deploy|static|templates|service_worker|\.ci)"
PATH = re.compile(r"(?<![\w/.:~-])(" + TOP + r"/[\w./-]*)")
PLACEHOLDERS = set("<>{}*…$")
GENERATED = ("static/vendor/", "bench/out", "instance/", "tests/browser/field/__snapshots__")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")

# A file named by its path inside a folder of the tree (`enforcement/deadlines.py`,
# `field/sync.js`, `review/_act.html`): it must be found under one of these folders, or beside
# the file that names it. Names that are not of the tree, each for its reason:
FILE = re.compile(r"(?<![\w/.:~-])([\w-]+(?:/[\w.-]+)+\.(?:py|js|html|css|yaml|md|txt|json))\b")
FILE_BASES = ("", "inspector/", "inspector/rules/", "inspector/blueprints/", "static/", "static/js/",
              "templates/", "tests/")
OUTSIDE_THE_TREE = {
    "instance/": "the instance folder is made at run time (config.py, secret_key, evidence)",
    "laws/": "a town's own law folder, named by RULES_EXTRA_DIR (docs/adding-a-town.md)",
    "packs/": "the same folder's rule packs",
}


def text_files():
    """Every text file of the scanned folders (and the README, Makefile, pyproject.toml)."""
    for name in ("README.md", "Makefile", "pyproject.toml"):
        yield ROOT / name
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if (path.is_file() and path.suffix in TEXT_SUFFIXES and "__pycache__" not in rel
                    and not rel.startswith(NOT_OURS) and not path.is_symlink()):
                yield path


def comments_and_docstrings(source: str) -> str:
    """The comments and string literals of a Python file (docstrings among them)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING):
                out.append(tok.string)
    except (tokenize.TokenError, SyntaxError):
        return source
    return "\n".join(out)


def prose(path: Path) -> str:
    """What a reader reads in a file: comments and docstrings of code, all of a document."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".py":
        return comments_and_docstrings(text)
    if path.suffix in {".yaml", ".yml"} or path.name == "Makefile" or path.parent.name in {
            "deploy", ".ci"}:
        return "\n".join(line for line in text.splitlines() if line.lstrip().startswith("#"))
    return text


def named_paths(text: str):
    """Repository paths named in a text, without placeholders, globs or URLs."""
    for match in PATH.finditer(text):
        path = match.group(1).rstrip(".,;:")
        if set(path) & PLACEHOLDERS or path.startswith(GENERATED) or path.endswith("/."):
            continue
        after = text[match.end():match.end() + 1]
        if after and after in PLACEHOLDERS:  # `tests/<area>/`, `inspector/{audit,clock}.py`
            continue
        yield path


def test_the_readme_is_a_manual_a_newcomer_reads_in_five_minutes():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move a subject to docs/"
    for command in ("make run", "make test", "make serve"):
        assert command in text
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{doc.name}" in text, f"README.md does not say where docs/{doc.name} is"


def test_every_page_of_docs_starts_by_saying_what_it_is_for():
    """A title, then (after at most the generator's note) a sentence on what it is for."""
    for doc in sorted((ROOT / "docs").glob("*.md")):
        lines = doc.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# "), doc.name
        first = next(line for line in lines[1:] if line.strip())
        assert not first.startswith(("#", "|", "-", "```")), f"{doc.name} opens with no sentence"


def test_no_document_comment_or_test_speaks_of_sessions_or_issue_numbers():
    found = []
    for path in text_files():
        if path == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if HISTORY.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert found == [], "say what is true now; history belongs in git:\n" + "\n".join(found)


def test_every_path_a_document_comment_or_case_file_names_exists():
    missing = []
    for path in text_files():
        if path == Path(__file__).resolve():  # its examples below are not of the tree
            continue
        for named in sorted(set(named_paths(prose(path)))):
            if not (ROOT / named).exists():
                missing.append(f"{path.relative_to(ROOT)} names {named}")
    assert missing == []


def test_every_file_named_inside_a_folder_of_the_tree_is_there():
    """`enforcement/deadlines.py` in a comment is read under inspector/: a module moved or
    renamed leaves no pointer behind to a file nobody can open."""
    missing = []
    for path in text_files():
        if path == Path(__file__).resolve():
            continue
        text = prose(path)
        for match in FILE.finditer(text):
            named = match.group(1)
            if text[match.end():match.end() + 1] in PLACEHOLDERS or named.startswith(
                    tuple(OUTSIDE_THE_TREE)):
                continue
            if not any((ROOT / base / named).exists() for base in FILE_BASES) and not (
                    path.parent / named).exists():
                missing.append(f"{path.relative_to(ROOT)} names {named}")
    assert sorted(set(missing)) == []


def test_every_relative_link_of_the_documents_leads_somewhere():
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in MD_LINK.findall(doc.read_text(encoding="utf-8")):
            target = target.split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue
            if not (doc.parent / target).exists():
                missing.append(f"{doc.relative_to(ROOT)} links {target}")
    assert missing == []


def test_the_path_reader_skips_urls_placeholders_and_globs():
    """What the path check must not mistake for a path of the tree."""
    text = ("see https://example.org/docs/x.md, tests/<area>/, inspector/{audit,clock}.py, "
            "tests/rule_cases/*.yaml, ../shared/docs/y.md and docs/z.md.")
    assert list(named_paths(text)) == ["docs/z.md"]
    assert [m.group(1) for m in FILE.finditer(text)] == ["docs/z.md"]
