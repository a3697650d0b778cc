"""The program's version: what `flask version`, /healthz and every backup's manifest report.

Read at run time, never written twice: from `pyproject.toml` beside the package when the
program runs from its source tree (`make setup` installs it editable, so the installed
metadata keeps the version of the last `pip install` until the next one), otherwise from
the installed package's metadata (a wheel).
"""
from __future__ import annotations

import functools
import tomllib
from importlib import metadata
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


@functools.lru_cache(maxsize=1)
def version() -> str:
    """The version string, e.g. '1.0.0' ('desconhecida' when neither source has one)."""
    try:
        with open(PYPROJECT, "rb") as f:
            project = tomllib.load(f).get("project", {})
        if project.get("name") == "inspector" and project.get("version"):
            return str(project["version"])
    except (OSError, tomllib.TOMLDecodeError):
        pass
    try:
        return metadata.version("inspector")
    except metadata.PackageNotFoundError:
        return "desconhecida"
