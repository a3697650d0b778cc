"""The legal cases as data (tests/rule_cases/, OpenFisca style): read from their YAML files
in one way for every test that runs them."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

CASES_DIR = Path(__file__).resolve().parent.parent / "rule_cases"


def _files(folder: str) -> list[Path]:
    return sorted((CASES_DIR / folder).glob("*.yaml"))


def cases(folder: str = "") -> list[dict]:
    """Every case of the YAML files directly in tests/rule_cases/<folder>, files in name order."""
    return [case for path in _files(folder)
            for case in yaml.safe_load(path.read_text(encoding="utf-8"))]


def case_params(folder: str = "") -> list:
    """The same cases as pytest parameters, each named `file[n] case name` (first 60
    characters of the name) so a failure says which file and case to open."""
    return [pytest.param(case, id=f"{path.stem}[{i}] {case.get('name', '')[:60]}")
            for path in _files(folder)
            for i, case in enumerate(yaml.safe_load(path.read_text(encoding="utf-8")))]
