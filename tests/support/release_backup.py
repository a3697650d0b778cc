"""Backups made by a released version of the program, kept in the repository
(tests/production/released_backups/<version>/<dialect>/), which
tests/production/test_release_upgrade.py restores and upgrades with this tree: an upgrade
from a release needs no tag and no old checkout, only these files.

At a release (docs/releases.md), with the tag made, run the release's own code through the
documented steps (docs/production.md, docs/adding-a-town.md) on an empty SQLite file and an
empty PostgreSQL database, and keep the backups:

    PYTHONPATH=. .venv/bin/python -m tests.support.release_backup 1.1.0 \
        postgresql+psycopg://inspector:inspector@127.0.0.1:5432/postgres

(a database of the PostgreSQL server to connect to; the release's own is created and dropped).
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tarfile
import tempfile
from contextlib import ExitStack
from datetime import date
from io import BytesIO
from pathlib import Path

from tests.support.databases import private_database

ROOT = Path(__file__).resolve().parents[2]
BACKUPS = ROOT / "tests" / "production" / "released_backups"
BIN = Path(sys.executable).parent
BASE = "https://fiscaliza.santa-aurora.example.gov.br"


def release_tree(version: str, where: Path) -> Path:
    """The tagged release's files (git archive), outside this worktree."""
    data = subprocess.run(["git", "archive", f"v{version}"], cwd=ROOT, capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(where, filter="data")
    return where


def steps(tree: Path, url: str, root: Path, today: date) -> Path:
    """The documented steps with the release's code: the town from its law folder, its
    first admin, its fleet, its QR codes, a backup; the backup's folder."""
    sys.path.insert(0, str(ROOT))
    from tests.support.sixth_town import TOWN, fleet_csv, law_folder

    laws = law_folder(root)
    (root / "instance").mkdir(parents=True)
    key = root / "instance" / "secret_key"   # in the instance: the backup carries it
    key.write_text(secrets.token_hex(32))
    key.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(
        ("DATABASE_URL", "INSPECTOR_", "RULES_EXTRA_DIR", "SECRET_KEY", "EVIDENCE_"))}
    env.update({"INSPECTOR_ENV": "production", "DATABASE_URL": url, "PUBLIC_BASE_URL": BASE,
                "EVIDENCE_DIR": str(root / "evidence"), "RULES_EXTRA_DIR": str(laws),
                "INSPECTOR_INSTANCE_DIR": str(root / "instance"), "PYTHONPATH": str(tree)})

    def flask(*args: str) -> str:
        done = subprocess.run([str(BIN / "flask"), "--app", "inspector", *args], cwd=tree,
                              env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"{args}: {done.stdout}{done.stderr}")
        return done.stdout

    flask("db", "upgrade")
    flask("towns", "create", "--ibge", "5109996", "--name", "Santa Aurora do Norte",
          "--slug", TOWN, "--population-seat", "8000", "--population-interior", "2500",
          "--population-source", "IBGE (fictícia)", "--pack", "santa-aurora-101-2020")
    flask("towns", "admin", "--town", TOWN, "--username", "admin.aurora",
          "--name", "Clara Aurora", "--generate")
    csv = root / "frota.csv"
    csv.write_bytes(fleet_csv(today))
    flask("registry", "import", "--town", TOWN, str(csv))
    flask("credentials", "issue", "--town", TOWN)
    return Path(json.loads(flask("backup", "create", str(root / "backups"), "--json"))["folder"])


def keep(backup: Path, dest: Path) -> None:
    """The backup's folder and the evidence segments it names, as `backup restore` reads them."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copytree(backup, dest / backup.name)
    if (backup.parent / "evidence").is_dir():
        shutil.copytree(backup.parent / "evidence", dest / "evidence")


def main(version: str, postgres: str | None) -> None:
    from inspector.clock import default_day

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tree = release_tree(version, tmp / "tree")
        with ExitStack() as stack:
            urls = {"sqlite": f"sqlite:///{tmp / 'release.sqlite3'}"}
            if postgres:
                urls["postgresql"] = stack.enter_context(private_database(postgres, "release"))
            for dialect, url in urls.items():
                backup = steps(tree, url, tmp / dialect, default_day())
                keep(backup, BACKUPS / version / dialect)
                print(f"{dialect}: {BACKUPS / version / dialect / backup.name}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None)
