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
from inspector.models import SanctionStatus

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


def test_every_status_is_reached_and_terminal_ones_are_never_left():
    reached = {t.to for t in lifecycle.TRANSITIONS if t.to is not None}
    assert reached == set(SanctionStatus)
    for t in lifecycle.TRANSITIONS:
        assert not set(t.sources) & set(lifecycle.TERMINAL) or t.to is None, t
    # a terminal act is left alone by every step that changes a status
    assert all(lifecycle.find(t.event, s) is None or lifecycle.find(t.event, s).to is None
               for t in lifecycle.TRANSITIONS for s in lifecycle.TERMINAL)


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
