"""What the benchmarks share: a free loopback port, gunicorn started and stopped, a small
HTTP client that keeps the session cookie, the machine's description, a percentile, and
the bulk loader of a moto-taxi town (bench/rules.py, bench/field.py).

The scripts run as `python bench/<name>.py`, so this folder is on sys.path: `import _common`.
"""
from __future__ import annotations

import http.client
import logging
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def machine() -> str:
    """CPU model and count, for the figures' context."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}"


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


@dataclass
class Answer:
    """One HTTP answer: status, headers (lower-case names), body bytes as received, time."""

    status: int
    headers: dict[str, str]
    data: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


class Client:
    """A tiny HTTP client that keeps the session cookie (the app's cookie is `Secure`,
    which the standard library's cookie jar refuses to send over plain http). It never
    decompresses: `data` is what came over the wire."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}

    def fetch(self, method: str, path: str, body: bytes | str | None = None,
              headers: dict | None = None, timeout: float = 120) -> Answer:
        """One request on a new connection (gunicorn's sync workers close it anyway)."""
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if isinstance(body, str):
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
            body = body.encode()
        start = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        elapsed = time.perf_counter() - start
        for value in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return Answer(response.status, {k.lower(): v for k, v in response.headers.items()},
                      data, elapsed)

    def request(self, method: str, path: str, body: str | None = None,
                headers: dict | None = None) -> tuple[int, str, float]:
        """Status, body text and seconds taken, connection set-up included."""
        got = self.fetch(method, path, body, headers)
        return got.status, got.text, got.seconds

    def sign_in(self, username: str, password: str) -> None:
        """Log in through the real form, CSRF token included."""
        page = self.fetch("GET", "/entrar").text
        token = _TOKEN.search(page).group(1)
        status = self.fetch("POST", "/entrar", urllib.parse.urlencode(
            {"username": username, "password": password, "csrf_token": token})).status
        if status != 302:
            raise SystemExit(f"sign-in failed: HTTP {status}")


class Server:
    """gunicorn serving `inspector:create_app(config)` on a free loopback port."""

    def __init__(self, env: dict, *, workers: int = 2, config: dict | None = None,
                 extra_args: tuple[str, ...] = (), ready_seconds: float = 60):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        factory = f"inspector:create_app({config!r})" if config else "inspector:create_app()"
        self.proc = subprocess.Popen(
            [str(BIN / "gunicorn"), "--workers", str(workers), "--bind",
             f"127.0.0.1:{self.port}", "--log-level", "warning", *extra_args, factory],
            cwd=ROOT, env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            self._wait_ready(ready_seconds)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit("gunicorn exited before answering")
            try:
                if Client(self.port).fetch("GET", "/healthz", timeout=5).status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit(f"gunicorn did not answer /healthz within {seconds:.0f} s")

    def stop(self) -> None:
        """Stop gunicorn and its workers (its own process group only)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class CpuMeter:
    """CPU time used meanwhile, split into this process, the server's processes (gunicorn and
    its workers), a PostgreSQL server on this machine (its processes, and those that ended
    meanwhile) and everything else (the kernel's writeback of the files the server wrote,
    other people's work): a figure taken while something else was busy says so."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, server_pid: int):
        self.server_pid = server_pid

    @staticmethod
    def _stat(pid: int | str) -> tuple[str, list[str]]:
        """(command name, the fields after it) of a process; ("", []) when it is gone."""
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return "", []
        name, _, rest = text.partition(" (")[2].rpartition(")")
        return name, rest.split()

    @classmethod
    def _of(cls, pid: int) -> tuple[int, int]:
        """(user, kernel) CPU ticks of a process."""
        fields = cls._stat(pid)[1]
        return (int(fields[11]), int(fields[12])) if fields else (0, 0)

    @classmethod
    def _postgres(cls) -> int:
        """CPU ticks of every PostgreSQL process, with the children they have reaped (a
        backend that ended meanwhile is counted in its parent)."""
        ticks = 0
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                name, fields = cls._stat(entry.name)
                if name == "postgres" and fields:
                    ticks += sum(int(f) for f in fields[11:15])
        return ticks

    def read(self) -> tuple[int, ...]:
        """(this process, the server's processes, of which in the kernel, PostgreSQL, all busy
        CPU on the machine) in ticks."""
        children = Path(f"/proc/{self.server_pid}/task/{self.server_pid}/children")
        kids = [int(p) for p in children.read_text().split()] if children.exists() else []
        server = [self._of(pid) for pid in [self.server_pid, *kids]]
        total = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        busy = sum(total) - total[3] - total[4]  # not idle, not waiting for I/O
        return (sum(self._of(os.getpid())), sum(u + k for u, k in server),
                sum(k for _, k in server), self._postgres(), busy)

    def since(self, start: tuple[int, ...]) -> dict[str, float]:
        """Seconds of CPU since `start` (a read()): client, server, server in the kernel,
        PostgreSQL, others."""
        now = self.read()
        mine, server, kernel, database, busy = (b - a for a, b in zip(start, now))
        return {"client": mine / self.TICK, "server": server / self.TICK,
                "server in the kernel": kernel / self.TICK, "PostgreSQL": database / self.TICK,
                "others": max(0, busy - mine - server - database) / self.TICK}


def served_bench_args(ap, rounds: int, warmup: int):
    """The arguments every bench of a served town's pages takes (dashboard, review)."""
    ap.add_argument("--inspections", type=int, default=100_000)
    ap.add_argument("--vehicles", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=rounds, help="measured requests per route")
    ap.add_argument("--warmup", type=int, default=warmup, help="warm-up requests per route")
    ap.add_argument("--clients", type=int, default=2, help="clients side by side")
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    ap.add_argument("--database-url", help="a PostgreSQL server URL: the bench creates its own "
                    "database there and drops it afterwards (default: a SQLite file)")
    return ap


@contextmanager
def throwaway_database(server_url: str | None = None):
    """The URL of a database of the bench's own, removed afterwards: a SQLite file in a
    temporary directory, or, given a PostgreSQL URL, a new database on that server; the
    evidence directory (EVIDENCE_DIR) in that temporary directory meanwhile."""
    tmp = tempfile.mkdtemp(prefix="inspector-bench-")
    # evidence photos' files beside it, for every app and server this process starts
    saved = os.environ.get("EVIDENCE_DIR")
    os.environ["EVIDENCE_DIR"] = f"{tmp}/evidence"
    try:
        if not server_url or not server_url.startswith("postgresql"):
            yield f"sqlite:///{tmp}/bench.sqlite3"
            return
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        base = make_url(server_url)
        name = f"{base.database}_bench_{os.getpid()}"
        admin = create_engine(base, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield base.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    finally:
        if saved is None:
            os.environ.pop("EVIDENCE_DIR", None)
        else:
            os.environ["EVIDENCE_DIR"] = saved
        shutil.rmtree(tmp, ignore_errors=True)


def _plate(i: int) -> str:
    """The i-th of 676,000 distinct Mercosul plates (QBA0A00, QBA0A01, ...), valid for the
    registry's checks, so the services can edit the bulk-loaded vehicles."""
    return (f"QB{chr(65 + i // 26000 % 26)}{i // 2600 % 10}{chr(65 + i // 100 % 26)}"
            f"{i % 100:02d}")


def load_mototaxi_town(url: str, vehicles: int, seed: int = 406, secret_key: str = "bench",
                       town: tuple[str, str, str] = ("tapurah", "Tapurah", "5108006")):
    """Migrate the database (a no-op once done) and bulk-load a moto-taxi town, Tapurah
    (Lei 406/2001) unless `town` (slug, name, IBGE code) names another, with `vehicles`
    moto-taxis: company holders with permits, licences (a few suspended or expired),
    insurance (a few lapsed) and one rider per vehicle. Bulk inserts: this data bypasses
    the services and the audit log, which a benchmark database does not need.
    Returns the app (its config points at `url`)."""
    import flask_migrate
    from sqlalchemy import insert, select

    from inspector import create_app
    from inspector.extensions import db
    from inspector.identifiers import make_cnpj, make_cpf
    from inspector.models import (
        DatedValue,
        Driver,
        Holder,
        InsurancePolicy,
        Licence,
        Municipality,
        Permit,
        Vehicle,
        vehicle_drivers,
    )

    rng = random.Random(seed)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": secret_key,
                      "TESTING": True, "LOG_LEVEL": "WARNING"})
    today = date.today()
    with app.app_context():
        logging.disable(logging.INFO)  # Alembic's "Running upgrade ..." lines
        try:
            flask_migrate.upgrade()
        finally:
            logging.disable(logging.NOTSET)
        slug, name, ibge = town
        town = Municipality(slug=slug, name=name, ibge_code=ibge,
                            population_seat=9000, population_interior=4000,
                            fiscal_unit_name="UFIM")
        db.session.add(town)
        db.session.flush()
        db.session.add(DatedValue(municipality_id=town.id, kind="minimum_wage",
                                  valid_from=date(2026, 1, 1), value_brl=1621))
        companies = max(1, vehicles // 50)
        db.session.execute(insert(Holder), [
            {"municipality_id": town.id, "kind": "company", "name": f"Moto Táxi {i:04d} Ltda",
             "tax_id": make_cnpj(f"{i + 1:08d}0001"), "address": "Av. Bench, 1"}
            for i in range(companies)])
        holder_ids = list(db.session.scalars(select(Holder.id).filter_by(municipality_id=town.id)))
        db.session.execute(insert(Permit), [
            {"municipality_id": town.id, "holder_id": h, "kind": "autorizacao",
             "service": "mototaxi", "number": f"AUT-{i:05d}", "valid_from": date(2024, 1, 1),
             "status": "active"} for i, h in enumerate(holder_ids)])
        db.session.execute(insert(Vehicle), [
            {"municipality_id": town.id, "holder_id": holder_ids[i % companies],
             "service": "mototaxi", "kind": "motorcycle", "plate": _plate(i),
             "make_model": "Honda CG 160", "year_of_manufacture": today.year - rng.randint(0, 7),
             "engine_cc": rng.choice([125, 150, 160, 160, 190, 250]), "colour": "Vermelha",
             "prefix": f"{i:05d}", "is_trail": rng.random() < 0.02,
             "last_vistoria_on": today - timedelta(days=rng.randint(0, 240))}
            for i in range(vehicles)])
        vehicle_ids = list(db.session.scalars(select(Vehicle.id).filter_by(municipality_id=town.id)))
        db.session.execute(insert(Licence), [
            {"municipality_id": town.id, "vehicle_id": v, "kind": "alvara_mototaxi",
             "number": f"AL-{i:05d}", "valid_from": today - timedelta(days=200),
             "valid_until": today + timedelta(days=rng.randint(-20, 200)),
             "status": "suspended" if rng.random() < 0.01 else "active"}
            for i, v in enumerate(vehicle_ids)])
        db.session.execute(insert(InsurancePolicy), [
            {"municipality_id": town.id, "vehicle_id": v, "insurer": "Seguradora Bench",
             "policy_number": f"AP-{i:05d}", "valid_from": today - timedelta(days=300),
             "valid_until": today + timedelta(days=rng.randint(-10, 300))}
            for i, v in enumerate(vehicle_ids)])
        db.session.execute(insert(Driver), [
            {"municipality_id": town.id, "holder_id": holder_ids[i % companies],
             "category": "mototaxista", "name": f"Condutor {i:05d}",
             "cpf": make_cpf(f"{200_000_000 + i:09d}"), "cnh_number": f"{i:011d}",
             "cnh_category": "A", "cnh_expiry": today + timedelta(days=rng.randint(-30, 900)),
             "registration_number": f"R-{i:05d}",
             "registration_expiry": today + timedelta(days=rng.randint(-40, 365)),
             "status": "active"} for i in range(vehicles)])
        driver_ids = list(db.session.scalars(select(Driver.id).filter_by(municipality_id=town.id)))
        db.session.execute(insert(vehicle_drivers), [
            {"vehicle_id": v, "driver_id": d} for v, d in zip(vehicle_ids, driver_ids)])
        db.session.commit()
        db.engine.dispose()
    return app
