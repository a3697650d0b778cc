"""The production steps as an operator runs them (docs/production.md, docs/operations.md),
each one a real command in a process of its own, on a server of its own: the unsafe start
refused; a town created from a law folder outside the program; its fleet imported, its QR
codes issued; gunicorn serving the passenger's page and /healthz with the version; the backup
folder made by the documented step (owner, mode 0700) and a backup in it, readable by its owner
alone;
a restore into a new database, a new evidence folder and a new law folder; `db upgrade`,
`production check`, `audit verify`, `evidence verify`; gunicorn serving the restored town.

Not run here: installing the program (`make setup`: the suite runs in the installed venv),
and an upgrade from the previous release's tag (1.0.0 is the first; from 1.1.0 on,
tests/app/test_released_migrations.py builds each release's database)."""
from __future__ import annotations

import grp
import json
import os
import pwd
import re
import secrets
import shlex
import signal
import stat
import subprocess
import sys
import urllib.request
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from inspector.clock import local_day
from inspector.config import version
from tests.support.processes import free_port, wait_port
from tests.support.sixth_town import TOWN, fleet_csv, law_folder

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
BASE = "https://fiscaliza.santa-aurora.example.gov.br"


class Server:
    """One server's environment (as /etc/inspector.env would hold it) and its commands."""

    def __init__(self, root: Path, url: str, laws: Path):
        root.mkdir(parents=True, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(
            ("DATABASE_URL", "INSPECTOR_", "RULES_EXTRA_DIR", "SECRET_KEY", "EVIDENCE_"))}
        self.env.update({"INSPECTOR_ENV": "production", "DATABASE_URL": url,
                         "SECRET_KEY": KEY, "PUBLIC_BASE_URL": BASE,
                         "EVIDENCE_DIR": str(root / "evidence"), "RULES_EXTRA_DIR": str(laws),
                         "INSPECTOR_INSTANCE_DIR": str(root / "instance"),
                         "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"})

    def flask(self, *args, ok=True, **extra) -> subprocess.CompletedProcess:
        done = subprocess.run([str(BIN / "flask"), "--app", "inspector", *args], cwd=ROOT,
                              env={**self.env, **extra}, capture_output=True, text=True,
                              timeout=300)
        if ok:
            assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
        return done

    def serve(self):
        """gunicorn as `make serve` starts it; (process, base URL)."""
        port = free_port()
        proc = subprocess.Popen(
            [str(BIN / "gunicorn"), "--config", "python:inspector.gunicorn_conf", "--preload",
             "--workers", "1", "--bind", f"127.0.0.1:{port}", "inspector:create_app()"],
            cwd=ROOT, env=self.env, start_new_session=True, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        wait_port(port, proc, "gunicorn")
        return proc, f"http://127.0.0.1:{port}"


KEY = secrets.token_hex(32)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def unit(name: str) -> dict[str, str]:
    """The [Service] settings of a unit file in deploy/."""
    settings = {}
    for line in (ROOT / "deploy" / name).read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings[key.strip()] = value.strip()
    return settings


def documented_lines(doc: str, command: str) -> list[str]:
    """The lines of the doc's shell blocks that run `command`."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
    return [ln.split("  #")[0].strip() for b in blocks for ln in b.splitlines()
            if ln.strip().startswith(command)]


def documented_backup_folder(tmp_path: Path) -> Path:
    """Run docs/production.md's step that makes the folders the units write to (as this
    test's user instead of `inspector`, under tmp_path instead of /), after checking it makes
    every folder the units write to, for the units' user, readable by it alone."""
    backup_unit = unit("inspector-backup.service")
    target = backup_unit["ExecStart"].split()[-1]
    writable = {p for name in ("inspector-backup.service", "inspector-web.service",
                               "inspector-tick.service")
                for p in unit(name)["ReadWritePaths"].split()}
    assert target in writable
    [step] = documented_lines("production.md", "install -d")
    args = shlex.split(step)
    assert args[args.index("-o") + 1] == backup_unit["User"]
    assert args[args.index("-g") + 1] == backup_unit["Group"]
    assert args[args.index("-m") + 1] == "0700"
    folders = [a for a in args[1:] if a.startswith("/")]
    assert writable <= set(folders), writable - set(folders)
    me = pwd.getpwuid(os.getuid())
    grp_name = grp.getgrgid(os.getgid()).gr_name
    local = [str(tmp_path / "root" / f.lstrip("/")) for f in folders]
    run = [a if a not in folders else local[folders.index(a)] for a in args]
    run[run.index("-o") + 1], run[run.index("-g") + 1] = me.pw_name, grp_name
    subprocess.run(run, check=True, timeout=30)
    return tmp_path / "root" / target.lstrip("/")


def stop(proc) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(30)


@pytest.fixture
def databases(schema, tmp_path):
    """Two empty databases (the town's server, and the one restored after a loss)."""
    base = make_url(schema)
    if base.get_backend_name() == "sqlite":
        yield [f"sqlite:///{tmp_path / n}.sqlite3" for n in ("origin", "restored")]
        return
    names = [f"{base.database}_ops_{uuid.uuid4().hex[:6]}" for _ in range(2)]
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        for n in names:
            conn.execute(text(f'CREATE DATABASE "{n}"'))
    yield [base.set(database=n).render_as_string(hide_password=False) for n in names]
    with admin.connect() as conn:
        for n in names:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)'))
    admin.dispose()


def test_the_documented_production_steps_end_to_end(databases, tmp_path):
    origin = Server(tmp_path / "origin", databases[0], law_folder(tmp_path))

    # an unsafe start is refused: a weak key, one line, exit 2
    weak = subprocess.run([str(BIN / "python"), "-c", "from inspector import create_app; "
                           "create_app()"], cwd=ROOT, env={**origin.env, "SECRET_KEY": "troque-me"},
                          capture_output=True, text=True, timeout=120)
    assert weak.returncode == 2 and "SECRET_KEY fraca" in weak.stderr
    assert "Traceback" not in weak.stderr

    # the town, from its law folder; its fleet; its QR codes
    origin.flask("db", "upgrade")
    origin.flask("rules", "validate", origin.env["RULES_EXTRA_DIR"])
    origin.flask("towns", "create", "--ibge", "5109996", "--name", "Santa Aurora do Norte",
                 "--slug", TOWN, "--population-seat", "8000", "--population-interior", "2500",
                 "--population-source", "IBGE (fictícia)", "--pack", "santa-aurora-101-2020")
    admin = origin.flask("towns", "admin", "--town", TOWN, "--username", "admin.aurora",
                         "--name", "Clara Aurora", "--generate")
    assert "senha: " in admin.stdout
    csv = tmp_path / "frota.csv"
    csv.write_bytes(fleet_csv(local_day()))
    origin.flask("registry", "import", "--town", TOWN, str(csv))
    origin.flask("credentials", "issue", "--town", TOWN)
    listed = json.loads(origin.flask("credentials", "list", "--town", TOWN, "--json").stdout)
    qr = listed["credentials"][0]["url"].removeprefix(BASE)
    assert origin.flask("production", "check").returncode == 0

    proc, url = origin.serve()
    try:
        status, health = get(f"{url}/healthz")
        assert status == 200 and json.loads(health)["version"] == version()
        status, page = get(url + qr)
        assert status == 200 and "REGULAR" in page
    finally:
        stop(proc)

    # the backup folder made as docs/production.md says, written as the backup unit writes
    backups = documented_backup_folder(tmp_path)
    backup = json.loads(origin.flask("backup", "create", str(backups), "--json").stdout)["folder"]
    origin.flask("backup", "verify", backup)
    assert stat.S_IMODE(backups.stat().st_mode) == 0o700
    open_to_others = [str(p) for p in backups.rglob("*") if p.stat().st_mode & 0o077]
    assert not open_to_others, open_to_others

    # a new server after a loss: new database, evidence folder and an empty law folder
    laws = tmp_path / "restored-laws"
    laws.mkdir()
    restored = Server(tmp_path / "restored", databases[1], laws)
    restored.flask("db", "upgrade")
    restored.flask("backup", "restore", backup)
    assert (laws / "packs" / "santa-aurora-101-2020.yaml").is_file()
    restored.flask("db", "upgrade")
    restored.flask("production", "check")
    assert json.loads(restored.flask("audit", "verify", "--json").stdout)["ok"]
    restored.flask("evidence", "verify")
    assert restored.flask("version").stdout.startswith(f"inspector {version()} ")

    proc, url = restored.serve()
    try:
        status, page = get(url + qr)
        assert status == 200 and "REGULAR" in page
    finally:
        stop(proc)
