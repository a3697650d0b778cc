"""A town's server as the production tests run it: the environment /etc/inspector.env would
hold, each `flask` command in a process of its own, gunicorn as `make serve` starts it, and
two empty databases (a town's, and the one restored after a loss)."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support.databases import private_database
from tests.support.processes import free_port, wait_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
BASE = "https://fiscaliza.santa-aurora.example.gov.br"
KEY = secrets.token_hex(32)


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



def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture
def databases(schema, tmp_path):
    """Two empty databases (the town's server, and the one restored after a loss)."""
    with private_database(schema, "ops", tmp_path / "origin.sqlite3") as origin, \
            private_database(schema, "ops", tmp_path / "restored.sqlite3") as restored:
        yield [origin, restored]
