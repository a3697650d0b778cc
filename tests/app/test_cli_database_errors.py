"""A first-day mistake in DATABASE_URL is one pt-BR line on stderr and exit status 2 for every
command (`production check`, `backup restore`, `db upgrade`), never SQLAlchemy's traceback nor
the password; commands print none of the web server's start-up warnings unless asked
(INSPECTOR_VERBOSE=1). The real `flask` command, in a process of its own."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLASK = [sys.executable, "-m", "flask", "--app", "inspector"]
SECRET = "s3nha-que-nao-aparece"
KEY = "9f" * 8 + "0123456789abcdef" * 3   # 64 hex digits: a key production check accepts


def run(*args, url: str, **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "INSPECTOR_ENV")}
    environ.update({"DATABASE_URL": url, "PYTHONPATH": str(ROOT), "SECRET_KEY": KEY,
                    "PUBLIC_BASE_URL": "https://fiscaliza.example.mt.gov.br", **env})
    return subprocess.run([*FLASK, *args], capture_output=True, text=True, cwd=ROOT, env=environ,
                          timeout=120)


def postgres() -> tuple[str, int]:
    """Where the machine's PostgreSQL listens (DATABASE_URL's host, else 127.0.0.1:5432)."""
    from sqlalchemy.engine import make_url

    url = os.environ.get("DATABASE_URL", "")
    u = make_url(url) if url.startswith("postgresql") else None
    return (u.host, u.port or 5432) if u else ("127.0.0.1", 5432)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]   # closed again: nothing listens there


@pytest.fixture(scope="module")
def backup(tmp_path_factory) -> Path:
    """A real backup of an empty SQLite instance (restore reads it before the database)."""
    root = tmp_path_factory.mktemp("cli-backup")
    url = f"sqlite:///{root / 'origin.sqlite3'}"
    env = {"EVIDENCE_DIR": str(root / "evidence")}
    assert run("db", "upgrade", url=url, **env).returncode == 0
    done = run("backup", "create", str(root / "backups"), "--json", url=url, **env)
    assert done.returncode == 0, done.stderr
    return Path(json.loads(done.stdout)["folder"])


def wrong_urls() -> dict[str, tuple[str, str]]:
    host, port = postgres()
    return {
        "unreachable port": (f"postgresql+psycopg://inspector:{SECRET}@127.0.0.1:{free_port()}/x",
                             "não responde"),
        "wrong password": (f"postgresql+psycopg://inspector:{SECRET}@{host}:{port}/postgres",
                           "recusou o usuário ou a senha"),
        "missing database": (f"postgresql+psycopg://inspector:inspector@{host}:{port}/"
                             "nao_existe_este_banco", 'o banco de dados "nao_existe_este_banco" não existe'),
        "malformed": (f"postgresql//inspector:{SECRET}@{host}", "DATABASE_URL malformada"),
    }


COMMANDS = {"production check": ("production", "check"), "db upgrade": ("db", "upgrade"),
            "backup restore": ("backup", "restore")}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", ["unreachable port", "wrong password", "missing database",
                                  "malformed"])
def test_a_wrong_database_url_is_one_line_and_exit_2(case, command, backup, tmp_path):
    if case in ("wrong password", "missing database"):
        with socket.socket() as s:
            if s.connect_ex(postgres()) != 0:
                pytest.skip("PostgreSQL not running on this machine (pg_ctlcluster 15 main start)")
    url, expected = wrong_urls()[case]
    args = COMMANDS[command] + ((str(backup),) if command == "backup restore" else ())
    done = run(*args, url=url, EVIDENCE_DIR=str(tmp_path / "evidence"))
    # production check also lists its warnings ("aviso: ", RATELIMIT_STORAGE_URI=memory://)
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("aviso: ")]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("erro: ") and expected in lines[0], done.stderr
    assert SECRET not in done.stderr and "Traceback" not in done.stderr


def test_commands_print_no_start_up_warnings_unless_asked(tmp_path):
    url = f"sqlite:///{tmp_path / 'quiet.sqlite3'}"
    quiet = run("version", url=url)   # memory:// limits and no PUBLIC_BASE_URL: two warnings
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    assert quiet.stdout.startswith("inspector ")
    loud = run("version", url=url, INSPECTOR_VERBOSE="1")
    assert "RATELIMIT_STORAGE_URI=memory://" in loud.stderr
