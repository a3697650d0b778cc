"""`make serve` after `make setup` starts the server and does no pip or npm work until
pyproject.toml, package.json or package-lock.json change (docs/production.md): the Makefile's
stamps, read by make itself on a copy of the repository's files (`make -t` marks the setup
done exactly as a finished run leaves it; `make -n` prints what a run would do)."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = ("Makefile", "pyproject.toml", "package.json", "package-lock.json")


def _make(where: Path, *args: str) -> str:
    done = subprocess.run(["make", "--no-print-directory", *args], cwd=where, text=True,
                          capture_output=True, timeout=60, check=True)
    return done.stdout


def _installs(plan: str) -> list[str]:
    return [ln for ln in plan.splitlines() if "npm install" in ln or "pip install" in ln]


def _set_up(clone: Path) -> None:
    """`make setup` done: its folders (the venv, node_modules, the vendor copy) and stamps."""
    for folder in (".venv", "node_modules", "static/vendor"):
        (clone / folder).mkdir(parents=True)
    _make(clone, "-t", "setup")


@pytest.fixture
def clone(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for name in FILES:
        shutil.copy2(ROOT / name, tmp_path / name)
        os.utime(tmp_path / name)          # a fresh clone: every file as new as the clone
    return tmp_path


def test_a_fresh_clone_installs_then_serve_does_no_install_work(clone):
    first = _installs(_make(clone, "-n", "serve"))
    assert any("npm install" in ln for ln in first) and any("pip install" in ln for ln in first)
    _set_up(clone)
    for _ in range(2):                     # every later start
        plan = _make(clone, "-n", "serve")
        assert _installs(plan) == [], plan
        assert "gunicorn" in plan and "db upgrade" in plan


@pytest.mark.parametrize("changed, reinstalls", [
    ("package.json", "npm install"), ("package-lock.json", "npm install"),
    ("pyproject.toml", "pip install")])
def test_a_changed_dependency_list_installs_again(clone, changed, reinstalls):
    _set_up(clone)
    later = time.time() + 5
    os.utime(clone / changed, (later, later))   # e.g. `git pull` brought a new version
    plan = _installs(_make(clone, "-n", "serve"))
    assert any(reinstalls in ln for ln in plan), plan
    other = "pip install" if reinstalls == "npm install" else "npm install"
    assert not any(other in ln for ln in plan), plan
