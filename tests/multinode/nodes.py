"""Real processes for tests/multinode: Debian's redis-server (stopped, started again and frozen
by the tests that need an outage), two gunicorn app servers, and helpers to make rows and talk
to a node. The fixtures that start them are in conftest.py."""
from __future__ import annotations

import http.client
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from inspector.extensions import db
from tests import factories
from tests.support.field_api import LiveClient
from tests.support.localstack import free_port
from tests.support.processes import stop

ROOT = Path(__file__).resolve().parents[2]
URL = os.environ.get("DATABASE_URL", "")
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"

needs_postgresql = pytest.mark.skipif(
    not URL.startswith("postgresql"),
    reason="two app servers share one database: needs DATABASE_URL=postgresql+psycopg://... "
           "(CI's PostgreSQL pass, .ci/run); SQLite is a file of one machine")


def wait(proc, check, log: Path, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert proc.poll() is None, f"{what} exited: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, f"{what} did not start: {log.read_text()[-2000:]}"
        time.sleep(0.1)


class RedisServer:
    """redis-server on one loopback port, nothing written to disk. `stop` and `start` again on
    the same port (the app servers keep their URL), `freeze` and `thaw` (SIGSTOP/SIGCONT: the
    port still accepts connections, nothing answers — as a hung Redis or a network that drops
    packets)."""

    def __init__(self, folder: Path):
        if not os.access(REDIS, os.X_OK):
            pytest.skip("redis-server is missing: `make redis` installs Debian's")
        self.folder, self.port = folder, free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
        self.proc = None
        self.frozen = False
        self.runs = 0

    def start(self) -> None:
        import redis

        self.runs += 1
        log = self.folder / f"redis-{self.runs}.log"
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--daemonize", "no"],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        client = redis.Redis.from_url(self.url, socket_timeout=2)

        def up() -> bool:
            try:
                return client.ping()
            except redis.RedisError:
                return False
        try:
            wait(self.proc, up, log, "redis-server")
        finally:
            client.close()

    def stop(self) -> None:
        self.thaw()
        if self.proc is not None:
            stop(self.proc, grace=15)

    def freeze(self) -> None:
        os.killpg(self.proc.pid, signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        if self.frozen and self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGCONT)
        self.frozen = False

    def client(self):
        import redis

        return redis.Redis.from_url(self.url, socket_timeout=5)


class Node:
    """One app server: its port, instance folder and environment."""

    def __init__(self, name: str, folder: Path, env: dict):
        self.name, self.folder, self.env = name, folder, env
        self.port = int(env["PORT"])


def healthy(port: int):
    def check() -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/healthz")
            return conn.getresponse().status == 200
        except OSError:
            return False
    return check


def make(app, factory, *args, **kwargs):
    """A row made and committed through the test's own app, detached for use after."""
    with app.app_context():
        obj = factory(*args, **kwargs)
        db.session.commit()
        db.session.refresh(obj)
        db.session.expunge(obj)
        return obj


def moto(app):
    """A licensed, insured Tapurah moto-taxi with its rider."""
    def build():
        v = factories.vehicle("tapurah", "mototaxi")
        d = factories.driver("tapurah", "mototaxista", holder=v.holder)
        d.vehicles.append(v)
        factories.licence(v)
        factories.insurance(v)
        return v
    return make(app, build)


def on(client: LiveClient, node: Node) -> LiveClient:
    """The same browser (cookie jar) now talking to `node`, as behind a load balancer."""
    client.port = node.port
    return client


def anonymous(node: Node) -> LiveClient:
    """A browser with no session yet (LiveClient signs in when made)."""
    browser = LiveClient.__new__(LiveClient)
    browser.host, browser.port, browser.cookie = "127.0.0.1", node.port, ""
    return browser
