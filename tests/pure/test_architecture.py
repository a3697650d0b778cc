"""The dependency rule of the package, as the import contracts in pyproject.toml write it.

The `layers` contract of `[tool.importlinter]` lists the areas of `inspector/` from the top
(entry points) to the bottom (the law as data). An area may import an area on a lower line,
never one on its own line or above; nothing may import a `_private` name of another area.
Imports inside functions count too: a lazy import is still a dependency. `lint-imports`
checks the contracts (`make lint`, and the first test below); the tests after it add what
import-linter does not see (migrations, private names, faces, who commits).
"""
from __future__ import annotations

import ast
import functools
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "inspector"


def contract(contract_id: str) -> dict:
    """One contract of pyproject.toml's [tool.importlinter], by its id."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    found = [c for c in contracts if c.get("id") == contract_id]
    assert found, f"pyproject.toml has no import contract {contract_id!r}"
    return found[0]


def layers() -> list[list[str]]:
    """The layers contract's areas, top first; the package itself (create_app) above them."""
    rows = [["inspector"]]
    for line in contract("layers")["layers"]:
        rows.append([name.strip().strip("()") for name in line.split("|")])
    return rows


def test_the_import_contracts_hold():
    """`lint-imports`: the layers, the law as data free of Flask and the database, and no
    circle inside a package (the circles of today listed in the contract, to be removed)."""
    # in its own process: lint-imports configures logging with dictConfig, which disables every
    # logger already made (the app's too) in the process that calls it
    run = subprocess.run([Path(sys.executable).parent / "lint-imports", "--config",
                          ROOT / "pyproject.toml", "--no-cache"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert "0 broken" in report


def area_of(module: str) -> str | None:
    """`inspector.registry.search` -> `registry`; `inspector` itself -> `inspector`."""
    parts = module.split(".")
    if parts[0] != "inspector":
        return None
    return parts[1] if len(parts) > 1 else "inspector"


@functools.cache
def modules() -> tuple[tuple[str, str | None, ast.Module], ...]:
    """(module name, its area, its parsed tree) for every module of the package, parsed once
    for all the tests here (they only read the trees)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        found.append((name, area_of(name), ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return tuple(found)


def imports(tree: ast.AST):
    """(imported module, imported names, line) for every import of inspector modules."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "inspector":  # `from inspector import audit`: each is a module
                for alias in node.names:
                    yield f"inspector.{alias.name}", [], node.lineno
            elif node.module.startswith("inspector."):
                yield node.module, [a.name for a in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("inspector."):
                    yield alias.name, [], node.lineno


def rank() -> dict[str, int]:
    """Each area's line in the layers block (0 = top)."""
    return {name: i for i, row in enumerate(layers()) for name in row}


def test_every_area_of_the_package_is_in_the_layers_block():
    """A new package or top-level module must take its place in the rule."""
    known = rank()
    found = {area for _, area, _ in modules()}
    assert sorted(found - set(known)) == []
    assert sorted(set(known) - found) == [], "the contract names areas that do not exist"


def test_areas_import_only_areas_below_them():
    """No import circle between areas and no upward dependency: a lower line never imports
    a higher one, and two areas on one line are independent of each other."""
    known = rank()
    wrong = []
    for module, area, tree in modules():
        for target, _, line in imports(tree):
            other = area_of(target)
            if other is None or other == area or area == "inspector":
                continue
            if known[other] <= known[area]:
                wrong.append(f"{module}:{line} imports {target} ({area} -> {other})")
    assert wrong == []


def test_no_private_name_crosses_an_area():
    """`_private` names stay in their area: neither imported nor reached as `module._name`."""
    wrong = []
    for module, area, tree in modules():
        bound: dict[str, str] = {}  # local name -> module it is, for modules of other areas
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("inspector"):
                for alias in node.names:
                    target = (f"inspector.{alias.name}" if node.module == "inspector"
                              else node.module)
                    if area_of(target) == area:
                        continue
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        wrong.append(f"{module}:{node.lineno} imports {node.module}.{alias.name}")
                    bound[alias.asname or alias.name] = target
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                wrong.append(f"{module}:{node.lineno} reads {node.value.id}.{node.attr}")
    assert wrong == []


def test_the_rules_package_stays_pure():
    """`inspector.rules` is the law as data: it imports no Flask, no database, nothing of the
    rest of the package, so a lawyer's check (`flask rules ...`, the legal cases) needs none."""
    wrong = []
    for module, area, tree in modules():
        if area != "rules":
            continue
        for node in ast.walk(tree):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                top = name.split(".")[0]
                if top in {"flask", "flask_sqlalchemy", "sqlalchemy"} or (
                        name.startswith("inspector") and area_of(name) not in {"rules", None}
                        and name != "inspector"):
                    wrong.append(f"{module}:{node.lineno} imports {name}")
    assert wrong == []


# Who ends a transaction: the request (a view) or the command (a CLI group). A service
# operation adds and flushes; a refusal it raises is rolled back by the view that caught it.
# The modules below are their own unit of work, each for the reason given.
OWN_TRANSACTIONS = {
    "inspector.enforcement.tick": "the tick runs outside any request: each run commits what it applied",
    "inspector.notifications.push": "delivery runs after the act's commit, one message at a time",
    "inspector.inspections.records": "the sync commits before answering the phone and retries a lost race",
    "inspector.inspections.evidence_moves": "moving evidence commits each photo once its "
                                            "destination confirmed the bytes: a cut run resumes",
    "inspector.imports.csv_import": "a dry run or a refused file rolls back everything it wrote",
    "inspector.security": "the sign-in session is written before the view runs",
    "inspector.errors": "a crashed request's failed transaction is rolled back before the "
                        "error page is drawn",
    "inspector.operations.production": "a production start records the rule packs it sees "
                                       "for the first time, before gunicorn forks its workers",
}


def test_only_requests_commands_and_named_units_of_work_end_a_transaction():
    """`db.session.commit()` / `rollback()` appear only in views (blueprints), commands (cli)
    and the modules of OWN_TRANSACTIONS: a service called from a view never commits half of
    what the view asked for."""
    wrong = []
    for module, area, tree in modules():
        if area in {"blueprints", "cli", "demo", "migrations"} or module in OWN_TRANSACTIONS:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"commit", "rollback"}
                    and ast.unparse(node.func.value) == "db.session"):
                wrong.append(f"{module}:{node.lineno} {node.func.attr}()")
    assert wrong == []


# Every package of `inspector/` shows a face: its `__init__` exports (with `__all__`) the names
# other areas use, and other areas import only that face - `from inspector.registry import
# save_vehicle` or `from inspector import registry`, never `inspector.registry.records`. A
# module (audit.py, clock.py...) is its own face. The exceptions, each for its reason:
FACE_EXEMPT_TARGETS = {
    "blueprints": "views are not operations: its face registers the blueprints, and the one "
                  "reader from outside (a CLI command printing a citation as the law page "
                  "writes it) takes that helper from its module",
}
FACE_EXEMPT_SOURCES = {
    "migrations": "a migration is history: it keeps the imports it was written with, and its "
                  "helpers (the evidence store's layout) are the modules as they were",
}


def submodules(area: str) -> set[str]:
    """The modules and subpackages of one package area (empty for a module area)."""
    folder = PACKAGE / area
    if not folder.is_dir():
        return set()
    return {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in folder.iterdir() if (p / "__init__.py").exists()}


def test_other_areas_are_reached_through_their_face():
    """An import from another package names the package itself, and only names its face
    exports: a new `from inspector.registry.records import ...` elsewhere fails here."""
    wrong = []
    for module, area, tree in modules():
        if area in FACE_EXEMPT_SOURCES:
            continue
        for target, names, line in imports(tree):
            other = area_of(target)
            if other in {None, area, "inspector"} or other in FACE_EXEMPT_TARGETS:
                continue
            if target != f"inspector.{other}" and (PACKAGE / other).is_dir():
                wrong.append(f"{module}:{line} imports {target} (use inspector.{other})")
            for name in set(names) & submodules(other):
                wrong.append(f"{module}:{line} imports the module {other}.{name} (use the face)")
    assert wrong == []


# Names that were the face before this rule, each its module's one entry point, called so by
# every view, command and test (`enforcement.tick(now)`); within the area, `from
# inspector.enforcement.tick import ...` still reaches the module.
HIDING_KEPT = {"inspector.enforcement": {"choose", "deadlines", "tick"}}


def test_a_face_never_hides_one_of_its_modules():
    """A face name equal to one of its modules (`history`, `seed`...) would replace that
    module as an attribute of the package, and `from inspector.registry import history` would
    mean two things: such names are exported under a name that says what they are."""
    wrong = []
    for module, area, tree in modules():
        if module != f"inspector.{area}":
            continue
        for node in tree.body:
            bound = ([a.asname or a.name for a in node.names] if isinstance(node, ast.ImportFrom)
                     else [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                     else [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)])
            wrong += [f"{module}:{node.lineno} binds {n}" for n in bound
                      if n in submodules(area) and n not in HIDING_KEPT.get(module, set())]
    assert wrong == []


def test_no_module_imports_its_own_face_at_import_time():
    """Within a package, modules import each other's modules: the face imports them all, so a
    module that imported the face while it loads would start a circle. (Inside a function,
    run after everything loaded, it may.)"""
    wrong = []
    for module, area, tree in modules():
        if module == f"inspector.{area}":
            continue
        inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for n in ast.walk(f)}
        for node in ast.walk(tree):
            if id(node) in inside or not isinstance(node, ast.ImportFrom) or node.level:
                continue
            if node.module == f"inspector.{area}":
                names = [a.name for a in node.names if a.name not in submodules(area)]
            elif node.module == "inspector":
                names = [a.name for a in node.names if a.name == area]
            else:
                continue
            wrong += [f"{module}:{node.lineno} imports {n} from its own face" for n in names]
    assert wrong == []


def test_every_name_in_a_faces_all_is_defined():
    """`from inspector.rules import X` must not fail at the first request that reaches it:
    ruff does not follow `__all__ +=`, so each face's list is checked here."""
    missing = []
    for face_path in sorted(PACKAGE.glob("*/__init__.py")):
        name = f"inspector.{face_path.parent.name}"
        face = importlib.import_module(name)
        missing += [f"{name}.{n}" for n in getattr(face, "__all__", ()) if not hasattr(face, n)]
    assert missing == []


def test_the_committed_architecture_drawing_is_what_the_contracts_draw():
    """docs/architecture.md is generated from the contracts above: a layer moved, a circle
    removed or an area's docstring changed without running
    `flask --app inspector docs architecture --output docs/architecture.md` fails here."""
    from inspector.cli.docs import architecture

    drawn = architecture(ROOT)
    assert (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8") == drawn
    for row in layers()[1:]:
        for name in row:
            assert f"| `{name}` |" in drawn
