"""The benchmarks in bench/ still run after a rename: every name a bench script imports, from
the program or from another script of bench/, exists. No bench runs in the suite (each takes
minutes); a renamed function would otherwise surface only when someone next measured."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))


def top_level_names(tree: ast.Module) -> set[str]:
    """What a module defines or imports at its top level (its importable names)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def imported(tree: ast.Module):
    """(module, name, line) for every `from X import name` anywhere in the script."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                yield node.module, alias.name, node.lineno


def test_there_are_bench_scripts():
    assert len(SCRIPTS) >= 10


def source_of(module: str) -> Path | None:
    """The file of a bench script or of a module of the program (None: a third party's)."""
    if "." not in module and (BENCH / f"{module}.py").exists():
        return BENCH / f"{module}.py"
    if module != "inspector" and not module.startswith("inspector."):
        return None
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return path
    return base  # absent: reported as missing


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_name_a_bench_script_imports_exists(script):
    missing = []
    for module, name, line in imported(ast.parse(script.read_text(encoding="utf-8"))):
        source = source_of(module)
        if source is None:
            continue
        found = source.exists() and (
            name in top_level_names(ast.parse(source.read_text(encoding="utf-8")))
            or (source.name == "__init__.py" and source_of(f"{module}.{name}").exists()))
        if not found:
            missing.append(f"{script.name}:{line}: {module}.{name}")
    assert missing == [], missing
