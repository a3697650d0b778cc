"""An act's life has one home (enforcement/lifecycle.py): its transition table is the only
way a status changes, every step the services take is in it, and the enforcement package's
modules import one another without a circle."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from inspector.enforcement import lifecycle
from inspector.models import TERMINAL, SanctionStatus
from inspector.rules import ActKind

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "inspector"


def _modules(folder: Path):
    for path in sorted(folder.rglob("*.py")):
        if "migrations" not in path.parts:
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_only_the_transition_function_changes_an_acts_status():
    """`act.status = ...` anywhere else would bypass the table and its conditional update."""
    found = []
    for path, tree in _modules(PACKAGE):
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Assign, ast.AugAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            flat = [t for target in targets
                    for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
            if any(isinstance(t, ast.Attribute) and t.attr == "status" for t in flat) and \
                    "SanctionStatus" in ast.unparse(node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_no_import_inside_a_function_of_the_enforcement_package():
    found = [f"{path.relative_to(ROOT)}:{node.lineno}"
             for path, tree in _modules(PACKAGE / "enforcement")
             for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
             for node in ast.walk(fn) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert found == []


def test_the_enforcement_modules_import_one_another_without_a_circle():
    """The import-linter contract in pyproject.toml ([tool.importlinter])."""
    run = subprocess.run([str(Path(sys.executable).with_name("lint-imports"))], cwd=ROOT,
                         capture_output=True, text=True, timeout=300,
                         env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stdout[-2000:]


# where an act's statuses are grouped and named, once
STATUS_SETS = "inspector/models/enforcement.py"
ACT_KINDS = {k.value for k in ActKind}


def status_sets_outside(trees) -> list[str]:
    """Tuples, lists or sets naming two or more statuses of an act outside STATUS_SETS: a
    second spelling of a named set (`OPEN`, `VOID`, ...) that could drift from it."""
    found = []
    for path, tree in trees:
        if path == STATUS_SETS:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and sum(
                    isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name)
                    and e.value.id in ("SanctionStatus", "S") for e in node.elts) >= 2:
                found.append(f"{path}:{node.lineno}")
    return found


def kinds_as_strings(trees) -> list[str]:
    """Comparisons of a `kind` with the string of an act's kind ("suspension", ("fine",
    "daily_fine")): the enum (`ActKind`, `FINE_KINDS`) says it once and a typo cannot pass."""
    def strings(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return []
    found = []
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                named = any(isinstance(x, ast.Attribute) and x.attr == "kind"
                            or isinstance(x, ast.Name) and x.id == "kind" for x in sides)
                values = [v for x in sides for v in strings(x)]
                if named and values and set(values) <= ACT_KINDS:
                    found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def _package_trees():
    return [(str(path.relative_to(ROOT)), tree) for path, tree in _modules(PACKAGE)]


def test_status_sets_are_named_once_and_act_kinds_are_an_enum():
    trees = _package_trees()
    assert status_sets_outside(trees) == []
    assert kinds_as_strings(trees) == []


def test_the_checks_find_a_spelled_out_status_set_and_a_kind_compared_as_a_string():
    planted = ast.parse("OPEN = (SanctionStatus.CONFIRMED, SanctionStatus.AMENDED)\n"
                        "if act.kind == 'suspension' or m.kind in ('fine', 'daily_fine'):\n"
                        "    pass\n"
                        "if block.kind == 'article':\n    pass\n")
    assert status_sets_outside([("planted.py", planted)]) == ["planted.py:1"]
    # the block's kind is not an act's: left alone
    assert [f.split(": ")[1] for f in kinds_as_strings([("x.py", planted)])] == \
        ["act.kind == 'suspension'", "m.kind in ('fine', 'daily_fine')"]


def test_every_status_is_reached_and_terminal_ones_are_never_left():
    reached = {t.to for t in lifecycle.TRANSITIONS if t.to is not None}
    assert reached == set(SanctionStatus)
    for t in lifecycle.TRANSITIONS:
        assert not set(t.sources) & set(TERMINAL) or t.to is None, t
    # a terminal act is left alone by every step that changes a status
    assert all(lifecycle.find(t.event, s) is None or lifecycle.find(t.event, s).to is None
               for t in lifecycle.TRANSITIONS for s in TERMINAL)


def test_in_production_the_tick_refuses_another_clock(app):
    """DOMAIN.md (second round): the tick in production uses the real clock only; a --now in
    the future could issue fines ahead of time. Tests and demo (debug) may move it."""
    app.testing = False
    try:
        r = app.test_cli_runner().invoke(args=["enforcement", "tick", "--now",
                                               "2031-01-01T10:00:00-04:00"])
        assert r.exit_code == 2 and "--now recusado em produção" in r.output
        now = app.test_cli_runner().invoke(args=["enforcement", "tick", "--now",
                                                 datetime.now(UTC).isoformat()])
        assert now.exit_code == 0, now.output
    finally:
        app.testing = True
