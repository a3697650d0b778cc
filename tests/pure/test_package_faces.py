"""Package faces: a package's `__init__.py` shows the other areas exactly what they use.

Read with the import rules of tests/pure/test_architecture.py (other areas reach a package
through its face, never its inner modules). Here, over the syntax trees of `inspector/`:
- no import gives an inspector name another name (`from inspector.x import page as page_for`):
  a face that wants a clearer name renames the definition itself, so a reader who finds a
  call finds its definition by that name; module aliases (`from inspector import rules`)
  are fine;
- a package's `__init__.py` holds a docstring, imports and one `__all__`, nothing else;
- its `__all__` is exactly what the other areas (other packages, the blueprints, the CLI, the
  app factory, the migrations) import from it: nothing missing, nothing no one uses; a name
  only the package itself or a test uses is imported from the module that defines it.
The checks take the folder and the package's name, so the last test can plant violations in
a package of its own and see each one caught.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A package whose `__init__` is not a face, for its reason. The blueprints' own packages
# (`inspector/blueprints/review/__init__.py`...) are not areas: each creates its blueprint and
# registers every route of that part of the site in one table, as the blueprints' wiring wants.
NOT_FACES: dict[str, str] = {}

# A renaming import kept because the new name avoids a clash with a standard-library or
# third-party name the same file uses: {file, from the checkout: {new name: the clash}}.
RENAMES_KEPT: dict[str, dict[str, str]] = {}


def modules(folder: Path, package: str):
    """(dotted name, area, path, parsed tree) of every module of `package` under `folder`."""
    for path in sorted((folder / package).rglob("*.py")):
        rel = path.relative_to(folder).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        parts = name.split(".")
        area = parts[1] if len(parts) > 1 else package
        yield name, area, path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def faces(folder: Path, package: str) -> list[str]:
    """The areas of `package` that are packages, each with its `__init__.py` face."""
    return sorted(p.parent.name for p in (folder / package).glob("*/__init__.py")
                  if p.parent.name not in NOT_FACES)


def submodules(folder: Path, package: str, area: str) -> set[str]:
    """The modules and subpackages directly inside one package area."""
    here = folder / package / area
    return ({p.stem for p in here.glob("*.py") if p.stem != "__init__"}
            | {p.name for p in here.iterdir() if (p / "__init__.py").exists()})


def renaming_imports(folder: Path, package: str, files: list[Path] | None = None) -> list[str]:
    """`file:line` of every import that binds a name of `package` to another name."""
    found = []
    paths = files if files is not None else sorted((folder / package).rglob("*.py"))
    for path in paths:
        rel = path.relative_to(folder).as_posix()
        kept = RENAMES_KEPT.get(rel, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                    node.module == package or node.module.startswith(f"{package}.")):
                pairs = [(a.name, a.asname) for a in node.names]
                where = node.module
            elif isinstance(node, ast.Import):
                pairs = [(a.name.rsplit(".", 1)[-1], a.asname) for a in node.names
                         if a.name.startswith(f"{package}.")]
                where = "import"
            else:
                continue
            found += [f"{rel}:{node.lineno} {where}: {name} as {alias}" for name, alias in pairs
                      if alias and alias != name and alias not in kept]
    return found


def face_contents(tree: ast.Module) -> tuple[set[str], list[str], list[str]]:
    """(names the face's imports bind, its `__all__`, what else it holds)."""
    bound: set[str] = set()
    exported: list[str] = []
    other: list[str] = []
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {a.asname or a.name.split(".")[0] for a in node.names}
        elif (isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]
              and isinstance(node.value, (ast.List, ast.Tuple)) and not exported):
            exported = [ast.literal_eval(e) for e in node.value.elts]
        else:
            other.append(f"line {node.lineno}: {ast.unparse(node).splitlines()[0][:60]}")
    return bound, exported, other


@functools.cache
def _imports_and_attributes(tree: ast.Module) -> tuple[list[ast.AST], list[ast.Attribute]]:
    """A module's import statements and its `name.attr` reads, walked once for every face."""
    imports, attributes = [], []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            attributes.append(node)
    return imports, attributes


def names_taken(tree: ast.Module, package: str, area: str, inner: set[str], bound: set[str]):
    """(name, line) for each name a module takes from the face of `area`: `from pkg.area import
    name`, or `area.name` where `area` was imported as the package (`from pkg import area`)."""
    face = f"{package}.{area}"
    aliases = set()
    imports, attributes = _imports_and_attributes(tree)
    for node in imports:
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module == package:
                aliases |= {a.asname or a.name for a in node.names if a.name == area}
            elif node.module == face:
                for a in node.names:
                    if a.name in bound or a.name not in inner:
                        yield a.name, node.lineno
        elif isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.name == face and a.asname}
    for node in attributes:
        if node.value.id in aliases and (node.attr in bound or node.attr not in inner):
            yield node.attr, node.lineno


def face_problems(folder: Path, package: str) -> list[str]:
    """What each face holds besides imports and `__all__`, and where its `__all__` differs
    from the names the other areas take from it."""
    parsed = list(modules(folder, package))
    problems = []
    for area in faces(folder, package):
        face = f"{package}.{area}"
        tree = next(t for name, _, _, t in parsed if name == face)
        bound, exported, other = face_contents(tree)
        problems += [f"{face} holds more than a face: {o}" for o in other]
        if len(exported) != len(set(exported)):
            problems.append(f"{face}.__all__ names a name twice")
        problems += [f"{face} imports {n} but does not export it" for n in sorted(bound - set(exported))]
        problems += [f"{face}.__all__ names {n}, which it does not import"
                     for n in sorted(set(exported) - bound)]
        inner = submodules(folder, package, area)
        used: dict[str, str] = {}
        for _, other_area, path, module_tree in parsed:
            if other_area == area:
                continue
            for taken, line in names_taken(module_tree, package, area, inner, bound):
                used.setdefault(taken, f"{path.relative_to(folder).as_posix()}:{line}")
        problems += [f"{face}.__all__ lacks {n} ({used[n]} takes it)"
                     for n in sorted(set(used) - set(exported))]
        problems += [f"{face}.__all__ exports {n}, which no other area takes"
                     for n in sorted(set(exported) - set(used))]
    return problems


def test_no_import_renames_an_inspector_name():
    """`from inspector.passenger.page import page as page_for` hides `page_for`'s definition
    from a reader who searches for it: the definition carries the name its callers use.
    Tests follow the same rule."""
    tests = sorted((ROOT / "tests").rglob("*.py"))
    assert renaming_imports(ROOT, "inspector") + renaming_imports(ROOT, "inspector", tests) == []


def test_each_face_exports_exactly_what_other_areas_take():
    """A package's face holds only imports and `__all__`, and `__all__` is the set of names
    the other areas of inspector/ take from it: a name no other area uses lives only in its
    module, and one an area starts to use is added to the face with it."""
    assert face_problems(ROOT, "inspector") == []


def test_the_checks_catch_planted_violations(tmp_path):
    """A package built for the test: a face with a function, a name no other area takes, a
    name another area takes that the face lacks, and a renaming import; each is reported."""
    package = tmp_path / "town"
    (package / "ledger").mkdir(parents=True)
    (package / "desk").mkdir()
    (package / "__init__.py").write_text('"""The app."""\n')
    (package / "ledger" / "entries.py").write_text(
        "def entry():\n    return 1\n\n\ndef total():\n    return 2\n\n\ndef spare():\n    return 3\n")
    (package / "ledger" / "__init__.py").write_text(
        '"""The ledger."""\nfrom town.ledger.entries import entry, spare\n\n'
        '__all__ = ["entry", "spare"]\n\n\ndef helper():\n    return entry()\n')
    (package / "desk" / "__init__.py").write_text('"""The desk."""\n')
    (package / "desk" / "views.py").write_text(
        "from town import ledger\nfrom town.ledger import entry as first_entry\n\n\n"
        "def page():\n    return first_entry() + ledger.total()\n")

    views = (package / "desk" / "views.py").relative_to(tmp_path).as_posix()
    assert renaming_imports(tmp_path, "town") == [f"{views}:2 town.ledger: entry as first_entry"]
    assert face_problems(tmp_path, "town") == [
        "town.ledger holds more than a face: line 7: def helper():",
        f"town.ledger.__all__ lacks total ({views}:6 takes it)",
        "town.ledger.__all__ exports spare, which no other area takes",
    ]

    (package / "ledger" / "__init__.py").write_text(
        '"""The ledger."""\nfrom town.ledger.entries import entry, total\n\n__all__ = ["entry", "total"]\n')
    (package / "desk" / "views.py").write_text(
        "from town import ledger\nfrom town.ledger import entry\n\n\n"
        "def page():\n    return entry() + ledger.total()\n")
    assert renaming_imports(tmp_path, "town") == []
    assert face_problems(tmp_path, "town") == []
