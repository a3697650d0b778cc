"""The production steps as an operator runs them (docs/production.md, docs/operations.md),
each one a real command in a process of its own, on a server of its own: the unsafe start
refused; a town created from a law folder outside the program; its fleet imported, its QR
codes issued; gunicorn serving the passenger's page and /healthz with the version; the backup
folder made by the documented step (owner, mode 0700) and a backup in it, readable by its owner
alone; a restore into a new database, a new evidence folder and a new law folder; `db upgrade`,
`production check`, `audit verify`, `evidence verify`; gunicorn serving the restored town.

Not run here: installing the program (`make setup`: the suite runs in the installed venv;
tests/pure/test_make_stamps.py reads its stamps). The upgrade from each release restores the
backup that release's code made through these steps: tests/production/test_release_upgrade.py."""
from __future__ import annotations

import grp
import json
import os
import pwd
import re
import shlex
import stat
import subprocess
from pathlib import Path

from inspector.clock import default_day
from inspector.config import version
from tests.support.processes import stop_gunicorn
from tests.support.sixth_town import TOWN, fleet_csv, law_folder
from tests.support.town_server import BASE, BIN, ROOT, Server, get


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
    csv.write_bytes(fleet_csv(default_day()))
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
        stop_gunicorn(proc)

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
        stop_gunicorn(proc)
