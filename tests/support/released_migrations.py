"""The list of released migrations and their SHA-256 (tests/app/released_migrations.json),
which tests/app/test_released_migrations.py holds the tree to.

At a release (docs/releases.md), add every migration file not listed yet under the new
version:

    PYTHONPATH=. .venv/bin/python -m tests.support.released_migrations 1.1.0
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "inspector" / "migrations" / "versions"
LIST = ROOT / "tests" / "app" / "released_migrations.json"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def released() -> dict[str, dict[str, str]]:
    """{version: {file name: sha256}}, in release order."""
    return json.loads(LIST.read_text(encoding="utf-8")) if LIST.exists() else {}


def record(version: str) -> list[str]:
    """List under `version` every migration file no release lists yet; the names added."""
    data = released()
    known = {name for files in data.values() for name in files}
    new = {p.name: sha256(p) for p in sorted(VERSIONS.glob("*.py")) if p.name not in known}
    if new:
        data.setdefault(version, {}).update(new)
        LIST.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return sorted(new)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("uso: python -m tests.support.released_migrations VERSÃO")
    print("\n".join(record(sys.argv[1])) or "nada novo")
