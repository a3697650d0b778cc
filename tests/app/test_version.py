"""The program says which version it is, the one pyproject.toml declares and CHANGELOG.md
describes: on /healthz and in `flask version` (docs/releases.md)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def declared() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_version_is_on_healthz_and_in_flask_version(app, client):
    assert re.fullmatch(r"\d+\.\d+\.\d+", declared())
    assert client.get("/healthz").json["version"] == declared()
    out = app.test_cli_runner().invoke(args=["version"])
    assert out.exit_code == 0 and out.output.startswith(f"inspector {declared()} (esquema ")


def test_the_changelog_describes_this_version_in_both_languages():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    section = text.split(f"## {declared()}", 1)[1].split("\n## ", 1)[0]
    assert "O que o operador faz" in section and "What the operator does" in section
