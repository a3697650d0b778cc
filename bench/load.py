"""Benchmark: a state-wide day under load. Prints figures; asserts nothing.

    .venv/bin/python bench/load.py [--users 10,50,200] [--duration 60] [--towns 4]
        [--vehicles 500] [--database-url postgresql+psycopg://inspector:inspector@127.0.0.1:5432/x]
    .venv/bin/python bench/load.py --scenario tick-in-another-town [--rounds 5] ...

`--scenario tick-in-another-town` measures instead whether a real tick in one town slows
another town's field sync, with the audit chain's lock per town vs one lock for all towns
(bench/audit_towns.py, its docstring and options). What follows is the default scenario.

On a database of its own on the PostgreSQL server given (created, dropped at the end) it
bulk-loads --towns moto-taxi towns (Tapurah and Nortelândia under their own laws, the rest
"Bench NN" under a copy of Tapurah's Lei 406/2001 in a RULES_EXTRA_DIR folder) with
--vehicles vehicles each (holders, permits, licences, insurance, a rider each, a signed QR
credential each, rider photos), and agents' and supervisors' accounts. It serves the app as
`make serve` does (INSPECTOR_ENV=production, gunicorn with inspector/gunicorn_conf.py: one
worker process with threads, --preload, X-Forwarded-* trusted from loopback; one proxy in
front, TRUSTED_PROXIES=1, so each simulated phone has its own address) on a free loopback
port over plain http (the simulated users send the Secure cookie by hand, as the other
benches do), runs `flask enforcement tick` every minute in a thread, and drives it with
Locust (bench/locustfile.py, the `bench` extra) at each number of --users:

- agents (weight 5, one inspection every --pace s): sync an inspection
  (PUT /api/field/inspections/<uuid>, three failed items), then its 3 photos
  (PUT .../photos/<uuid>, new bytes each: JPEG noise, --photo-size);
- passengers (weight 4, a scan every 0.08 x --pace s, so that scans keep the goal's 10 to 1
  proportion to inspections): scan a credential (GET /v/<token>) and load the rider's photo
  the page shows, each scan from a new address (the page's per-address limit is per phone);
- supervisors (weight 1, every --pace / 2 s): open the review queue (GET /revisao), then
  one inspection of it with its photos' thumbnails.

For each level: throughput, p50/p95/p99 and failures per request type (Locust's final
--json, after the users are all spawned: --reset-stats), CPU seconds of the app server, of
this database's PostgreSQL backends and of the whole machine (/proc, sampled every 0.5 s),
and the goal — a peak hour of a state-wide day, 500 agents x 4 inspections x 3 photos and
20,000 passenger scans in the hour, at p95 under 1 s with 0 errors — as needed per hour
against achieved.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import BIN, ROOT, Server, machine, throwaway_database

PASSWORD = "bench-load-password-123"
DEFAULT_DB = "postgresql+psycopg://inspector:inspector@127.0.0.1:5432/inspector_test"
# (slug, name, IBGE code): the first two have moto-taxi laws of their own in the package;
# the others are made-up towns under a copy of Tapurah's pack (IBGE codes outside MT's range).
REAL_TOWNS = [("tapurah", "Tapurah", "5108006"), ("nortelandia", "Nortelândia", "5105903")]
# the goal's peak hour
GOAL = {"inspection": 500 * 4, "photo": 500 * 4 * 3, "scan": 20_000}
QUEUE_LINK = re.compile(r'href="(/revisao/vistorias/\d+)"')
MINI_LINK = re.compile(r'src="(/revisao/fotos/\d+/mini\.jpg)"')
RIDER_PHOTO = re.compile(r'src="(/v/[^"]+/foto/\d+)"')


# ------------------------------------------------------------------ request builders
def unique_jpeg(base: bytes, nonce: bytes) -> bytes:
    """`base` (a JPEG) made new: a comment segment (COM) holding `nonce` right after the
    start-of-image marker. Still a valid JPEG, with its own SHA-256, without encoding one."""
    assert base[:2] == b"\xff\xd8"
    return base[:2] + b"\xff\xfe" + (len(nonce) + 2).to_bytes(2, "big") + nonce + base[2:]


def inspection(vehicle_id: int, items: list[dict], version: int, bases: list[bytes],
               nonce: bytes) -> tuple[str, bytes, list[tuple[str, bytes, str]]]:
    """One inspection as the field app sends it: (uuid, JSON body, [(photo uuid, bytes,
    sha256)]), one failed item per photo (bench/field.py's builder), photos made new."""
    from field import _inspection

    photos = [unique_jpeg(b, nonce + bytes([n])) for n, b in enumerate(bases)]
    return _inspection(vehicle_id, items, photos, version)


def links(pattern: re.Pattern, html: str) -> list[str]:
    """Distinct matches of `pattern`'s group in a page, in order (&amp; undone)."""
    return list(dict.fromkeys(m.replace("&amp;", "&") for m in pattern.findall(html)))


# ------------------------------------------------------------------ the towns
def _extra_rules(folder: Path, slugs: list[tuple[str, str, str]]) -> None:
    """Packs for the made-up towns: Tapurah's, with its id, town and name changed."""
    src = (ROOT / "inspector/rules/packs/tapurah-406-2001.yaml").read_text()
    (folder / "packs").mkdir(parents=True)
    (folder / "laws").mkdir()
    for slug, name, _ in slugs:
        text = (src.replace("id: tapurah-406-2001", f"id: {slug}-406-2001", 1)
                .replace("\ntown: tapurah\n", f"\ntown: {slug}\n", 1)
                .replace("\ntown_name: Tapurah\n", f"\ntown_name: {name}\n", 1))
        (folder / "packs" / f"{slug}-406-2001.yaml").write_text(text)


def towns_of(count: int) -> list[tuple[str, str, str]]:
    """`count` towns: the real moto-taxi ones first, then made-up ones."""
    made = [(f"bench-{i:02d}", f"Bench {i:02d}", f"59{i:05d}") for i in range(count)]
    return (REAL_TOWNS + made[len(REAL_TOWNS):])[:count]


def build(url: str, towns: list[tuple[str, str, str]], vehicles: int, agents: int,
          supervisors: int, secret: str) -> dict:
    """Load the towns, their accounts (agents and supervisors spread over the towns), one
    credential per vehicle and rider photos; the plan the simulated users read."""
    from datetime import UTC, date, datetime, timedelta
    from multiprocessing import Pool

    from _common import load_mototaxi_town
    from field_data import portrait
    from sqlalchemy import insert, select, update

    from inspector import audit
    from inspector.credentials import issuing, keys
    from inspector.credentials.tokens import encode
    from inspector.extensions import db
    from inspector.models import Credential, Driver, Municipality, User, Vehicle
    from inspector.registry.photos import photo_thumbnail
    from inspector.security import hash_password

    with Pool(2) as pool:  # 60 faces shared by the riders: the page's photo, not its uniqueness
        photos = pool.map(portrait, range(60))
        thumbs = pool.map(photo_thumbnail, photos)
    password_hash = hash_password(PASSWORD)  # one Argon2 hash for every account
    plan = {"password": PASSWORD, "towns": []}
    for n, town_key in enumerate(towns):
        app = load_mototaxi_town(url, vehicles, seed=406 + n, secret_key=secret, town=town_key)
        with app.app_context():
            town = db.session.scalar(select(Municipality).filter_by(slug=town_key[0]))
            mine = {"slug": town.slug, "agents": [], "supervisors": []}
            for role, total, key in (("agent", agents, "agents"),
                                     ("supervisor", supervisors, "supervisors")):
                names = [f"{role}.{town.slug}.{i:03d}" for i in range(n, total, len(towns))]
                if names:
                    db.session.execute(insert(User), [
                        {"municipality_id": town.id, "username": u, "name": u.title(),
                         "role": role, "badge_number": "", "password_hash": password_hash,
                         "active": True} for u in names])
                mine[key] = names
            drivers = list(db.session.scalars(select(Driver.id).filter_by(municipality_id=town.id)
                                              .order_by(Driver.id)))
            db.session.execute(update(Driver), [
                {"id": d, "photo": photos[i % 60], "photo_mime": "image/jpeg",
                 "photo_thumb": thumbs[i % 60]} for i, d in enumerate(drivers)])
            key = keys.ensure_active_key()
            private = keys.private_key(key)
            expires = date.today() + timedelta(days=issuing.validity_days())
            rows, paths = [], []
            for vid in db.session.scalars(select(Vehicle.id).filter_by(municipality_id=town.id)):
                token = encode(private, key.kid, "vehicle", town.ibge_code, vid, expires)
                paths.append(f"/v/{token}")
                rows.append({"municipality_id": town.id, "kind": "vehicle", "vehicle_id": vid,
                             "token": token, "token_hash": issuing.token_hash(token),
                             "kid": key.kid, "issued_at": datetime.now(UTC),
                             "expires_on": expires})
            db.session.execute(insert(Credential), rows)
            # the snapshot's version is not 0 (a bulk load bypasses the audited services)
            audit.record("bench_loaded", "municipality", town.id, after={"vehicles": vehicles},
                         municipality_id=town.id)
            db.session.commit()
            mine["scans"] = paths
            plan["towns"].append(mine)
            db.engine.dispose()
    return plan


def field_facts(base_port: int, plan: dict) -> None:
    """Each town's checklist, vehicle ids and snapshot version, as an agent's phone gets them
    (GET /api/field/snapshot), into the plan."""
    from _common import Client

    for town in plan["towns"]:
        if not town["agents"]:
            continue
        client = Client(base_port)
        client.sign_in(town["agents"][0], PASSWORD)
        got = client.fetch("GET", "/api/field/snapshot", headers={"Accept-Encoding": "identity"})
        snap = json.loads(got.data)
        town["version"] = snap["version"]
        town["items"] = next(c for c in snap["checklists"] if c["service"] == "mototaxi")["items"]
        town["vehicles"] = [v["id"] for v in snap["vehicles"]]


def photo_bases(folder: Path, size: tuple[int, int], count: int = 12) -> list[str]:
    """JPEGs of noise (as incompressible as a real photo) the agents send, made new each
    time by unique_jpeg."""
    from field_data import evidence_photo

    out = []
    for i in range(count):
        path = folder / f"photo-{i}.jpg"
        path.write_bytes(evidence_photo(10_000 + i, size))
        out.append(str(path))
    return out


# ------------------------------------------------------------------ measuring
class CpuSampler:
    """CPU seconds of the app server's processes, of this database's PostgreSQL backends,
    of PostgreSQL's shared processes (WAL writer, checkpointer, ...; other databases'
    backends excluded), of Locust, and the machine's busy and I/O-wait time, sampled every
    `every` s per process (a backend that exits keeps what it used until its last sample)."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, server_pid: int, database: str, every: float = 0.5):
        self.server_pid, self.database, self.every = server_pid, database, every
        self.seen: dict[int, tuple[str, int]] = {}
        self.used = {"app": 0, "postgres (this db)": 0, "postgres (shared)": 0, "tick": 0,
                     "locust": 0}
        self._stop = threading.Event()
        self._start_stat = self._stat()
        self.history: list[tuple[float, dict, list[int]]] = []  # (time, used, /proc/stat)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _stat() -> list[int]:
        return [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]

    def _kind(self, pid: int, ppid: int, cmd: str) -> str | None:
        if pid == self.server_pid or ppid == self.server_pid:
            return "app"
        if "bench/locustfile.py" in cmd:
            return "locust"
        if "enforcement tick" in cmd:
            return "tick"
        if cmd.startswith("postgres:"):  # "postgres: 15/main: USER DB HOST(PORT) STATE"
            rest = cmd.split()[2:]
            if self.database in rest:
                return "postgres (this db)"
            shared = {"checkpointer", "walwriter", "background", "autovacuum", "logical",
                      "archiver", "stats", "walsender", "startup"}
            return "postgres (shared)" if rest and rest[0] in shared else None
        if cmd.split(" ", 1)[0].endswith("/bin/postgres"):
            return "postgres (shared)"
        return None

    def _sample(self) -> None:
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            pid = int(d)
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
                cmd = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                    "utf-8", "replace").strip()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            kind = self._kind(pid, int(fields[1]), cmd)
            if kind is None:
                continue
            ticks = int(fields[11]) + int(fields[12])
            old = self.seen.get(pid)
            # a process first seen during the run used its CPU during the run
            self.used[kind] += ticks - old[1] if old else (ticks if self._warm else 0)
            self.seen[pid] = (kind, ticks)

    _warm = False

    def _run(self) -> None:
        self._sample()
        self._warm = True
        self.history.append((time.time(), dict(self.used), self._stat()))
        while not self._stop.wait(self.every):
            self._sample()
            self.history.append((time.time(), dict(self.used), self._stat()))

    def stop(self, since: float = 0) -> dict[str, float]:
        """Seconds of CPU per kind from the first sample at or after `since` to now, plus the
        machine's busy and iowait, and those seconds ("wall")."""
        self._stop.set()
        self._thread.join()
        self._sample()
        end = self._stat()
        at, used0, stat0 = next((h for h in self.history if h[0] >= since), self.history[0])
        delta = [b - a for a, b in zip(stat0, end)]
        out = {k: (v - used0[k]) / self.TICK for k, v in self.used.items()}
        out["machine busy"] = (sum(delta) - delta[3] - delta[4]) / self.TICK
        out["others on the machine"] = max(0.0, out["machine busy"] - sum(
            v for k, v in out.items() if k in self.used))
        out["machine iowait"] = delta[4] / self.TICK
        out["wall"] = time.time() - at
        return out


class LockSampler(threading.Thread):
    """Every `every` s, how many of this database's sessions wait for a lock, and how many
    of those for the audit chain's (pg_advisory_xact_lock, inspector/audit.py)."""

    def __init__(self, url: str, database: str, every: float = 0.5):
        super().__init__(daemon=True)
        self.url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        self.database, self.every = database, every
        self.samples: list[tuple[float, int, int]] = []
        self._halt = threading.Event()
        self.start()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self._halt.wait(self.every):
                row = conn.execute(
                    "SELECT count(*), count(*) FILTER (WHERE wait_event = 'advisory') "
                    "FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
                    (self.database,)).fetchone()
                self.samples.append((time.time(), row[0], row[1]))

    def stop(self, since: float = 0) -> dict:
        """The samples taken at or after `since`, summed up."""
        self._halt.set()
        self.join()
        kept = [(a, b) for t, a, b in self.samples if t >= since]
        n = max(1, len(kept))
        return {"samples": len(kept),
                "waiting share": sum(1 for a, _ in kept if a) / n,
                "audit share": sum(1 for _, b in kept if b) / n,
                "most waiting": max((a for a, _ in kept), default=0)}


class Tick(threading.Thread):
    """`flask enforcement tick` every `every` seconds against the server's database."""

    def __init__(self, env: dict, every: float = 60):
        super().__init__(daemon=True)
        self.env, self.every = env, every
        self.runs: list[tuple[float, int]] = []
        self.proposed: list[int] = []  # inspections each run proposed acts for
        self.windows: list[tuple[float, float]] = []  # wall-clock start and end of each run
        self._halt = threading.Event()

    def run(self) -> None:
        while True:
            t0, wall = time.perf_counter(), time.time()
            done = subprocess.run([str(BIN / "flask"), "--app", "inspector", "enforcement",
                                   "tick", "--json"], cwd=ROOT, env=self.env,
                                  capture_output=True, text=True)
            rc = done.returncode
            self.runs.append((time.perf_counter() - t0, rc))
            try:
                self.proposed.append(len(json.loads(done.stdout.splitlines()[-1])["proposed"]))
            except (ValueError, IndexError, KeyError):
                self.proposed.append(-1)
            self.windows.append((wall, time.time()))
            if self._halt.wait(self.every):
                return

    def stop(self) -> None:
        self._halt.set()
        self.join()


def percentile(histogram: dict[str, int], p: float) -> float:
    """The p-th percentile (ms) of Locust's rounded response-time histogram."""
    total = sum(histogram.values())
    if not total:
        return 0.0
    rank, seen = p / 100 * total, 0
    for ms, n in sorted((float(k), v) for k, v in histogram.items()):
        seen += n
        if seen >= rank:
            return ms
    return max(float(k) for k in histogram)


def run_level(users: int, duration: int, host: str, env: dict, workdir: Path, url: str,
              server_pid: int, spawn_rate: float, tick: Tick) -> dict:
    """One Locust run; its figures."""
    out = workdir / f"u{users}"
    json_file = workdir / f"u{users}.json"
    ramp = users / spawn_rate
    # the locustfile resets the figures once every user is signed in and stops `duration` s
    # later; -t only bounds a run whose users never all sign in
    cmd = [str(BIN / "locust"), "-f", str(ROOT / "bench/locustfile.py"), "--headless",
           "-u", str(users), "-r", str(spawn_rate), "-t", f"{math.ceil(duration + ramp + 300)}s",
           "--host", host,
           "--csv", str(out), "--json-file", str(json_file.with_suffix("")),
           "--exit-code-on-error", "1", "--only-summary",
           "--stop-timeout", "10", "--loglevel", "WARNING"]
    trace_file = workdir / f"u{users}.trace.json"
    steady_file = workdir / f"u{users}.steady"
    env = dict(env, LOAD_TRACE=str(trace_file), LOAD_STEADY=str(steady_file),
               LOAD_DURATION=str(duration))
    database = url.rsplit("/", 1)[1].split("?")[0]
    cpu = CpuSampler(server_pid, database)
    locks = LockSampler(url, database)
    started = time.time()
    proc = subprocess.run(["timeout", str(int(duration + ramp + 420)), *cmd], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    # the figures' start: every user signed in (else the end of the ramp)
    steady = float(steady_file.read_text()) if steady_file.exists() else started + ramp + 2
    signing_in = steady - started
    used = cpu.stop(steady)
    wall = used.pop("wall")
    waits = locks.stop(steady)
    if not json_file.exists():
        raise SystemExit(f"locust wrote no figures (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    stats = json.loads(json_file.read_text())
    rows = {}
    for s in stats:
        span = max(1e-9, s["last_request_timestamp"] - s["start_time"]) if s["num_requests"] else 1
        rows[s["name"]] = {"n": s["num_requests"], "fail": s["num_failures"],
                           "span": span, "hist": s["response_times"]}
    measured = max((r["span"] for r in rows.values()), default=duration)
    errors = [line for line in proc.stderr.splitlines() if "Error" in line or "error" in line]
    trace = json.loads(trace_file.read_text()) if trace_file.exists() else []
    during, outside = {}, {}
    for start, ms, name, _ok in trace:
        if start < steady:
            continue
        busy = any(a <= start + ms / 1000 and start <= b for a, b in tick.windows)
        (during if busy else outside).setdefault(name, []).append(ms)
    return {"users": users, "rows": rows, "locks": waits, "during_tick": during, "outside_tick": outside,
            "seconds": measured, "wall": wall, "cpu": used,
            "exit": proc.returncode, "errors": errors[-5:], "ramp": ramp,
            "signing in": signing_in, "all signed in": steady_file.exists()}


# ------------------------------------------------------------------ report
# Locust request names -> the goal's kinds
KIND = {"PUT inspection": "inspection", "PUT photo": "photo", "GET /v/<token>": "scan"}


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, math.ceil(0.95 * len(values)) - 1)] if values else 0.0


def report(level: dict, cores: int) -> None:
    """One level's table, CPU split and comparison with the goal."""
    secs = level["seconds"]
    rows = level["rows"]
    total = sum(r["n"] for r in rows.values())
    fails = sum(r["fail"] for r in rows.values())
    print(f"\n{level['users']} simulated users: {total:,} requests in {secs:,.0f} s once all "
          f"were signed in ({level['signing in']:,.0f} s after the start"
          + ("" if level["all signed in"] else ", NOT all signed in: from the ramp's end")
          + f") = {total / secs:,.1f} req/s; {fails} failed; locust exit {level['exit']}")
    print(f"   {'request':<34}{'count':>8}{'fail':>6}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}"
          f"{'p99 ms':>9}")
    worst95 = 0.0
    for name, r in sorted(rows.items()):
        p = [percentile(r["hist"], q) for q in (50, 95, 99)]
        worst95 = max(worst95, p[1])
        print(f"   {name:<34}{r['n']:>8,}{r['fail']:>6}{r['n'] / secs:>8.1f}{p[0]:>9,.0f}"
              f"{p[1]:>9,.0f}{p[2]:>9,.0f}")
    used = level["cpu"]
    wall = level["wall"]
    print("   CPU over the run (" + f"{wall:,.0f} s wall, {cores} cores = {wall * cores:,.0f} "
          "core-s): " + ", ".join(f"{k} {v:,.0f} s ({v / wall:.0%} of a core)"
                                  for k, v in used.items()))
    per_hour = {k: sum(r["n"] for n, r in rows.items() if KIND.get(n) == k) / secs * 3600
                for k in GOAL}
    print("   per hour at this rate vs the goal's peak hour: " + "; ".join(
        f"{k} {per_hour[k]:,.0f} / {GOAL[k]:,} ({per_hour[k] / GOAL[k]:.2f}x)" for k in GOAL)
        + f"; worst p95 {worst95:,.0f} ms, {fails} failed: "
        + ("goal MET at this load" if worst95 < 1000 and not fails
           and all(per_hour[k] >= GOAL[k] for k in GOAL) else "goal not met at this load"))
    w = level["locks"]
    print(f"   lock waits (pg_stat_activity every 0.5 s, {w['samples']} samples): some session "
          f"waited in {w['waiting share']:.0%} of them, for the audit chain's lock in "
          f"{w['audit share']:.0%}; at most {w['most waiting']} waiting at once")
    during, outside = level["during_tick"], level["outside_tick"]
    if during:
        print("   while a tick ran vs not (p95 ms, count): " + "; ".join(
            f"{n} {_p95(during[n]):,.0f} ({len(during[n])}) vs {_p95(outside.get(n, [])):,.0f} "
            f"({len(outside.get(n, []))})" for n in sorted(during) if n in KIND or "revisao" in n))
    for line in level["errors"]:
        print(f"   locust: {line[:200]}")


def verdict(levels: list[dict], cores: int) -> None:
    """The goal's answer: the largest level that met p95 < 1 s with no failure, how many of
    the goal's peak hours an hour it carried, what ran out first, and what CPU per request
    says of a second app server (an extrapolation, labelled as one)."""
    def summary(level):
        rows, secs = level["rows"], level["seconds"]
        p95 = max((percentile(r["hist"], 95) for r in rows.values()), default=0)
        fails = sum(r["fail"] for r in rows.values())
        per_hour = {k: sum(r["n"] for n, r in rows.items() if KIND.get(n) == k) / secs * 3600
                    for k in GOAL}
        return p95, fails, min(per_hour[k] / GOAL[k] for k in GOAL), \
            sum(r["n"] for r in rows.values()) / secs
    print("\nverdict (goal: the peak hour at p95 under 1 s with 0 errors):")
    good = [(lv, summary(lv)) for lv in levels if summary(lv)[0] < 1000 and not summary(lv)[1]]
    for lv in levels:
        p95, fails, hours, rate = summary(lv)
        print(f"   {lv['users']:>4} users: {rate:,.1f} req/s, {hours:.2f} goal-hours an hour "
              f"(the scarcest kind), worst p95 {p95:,.0f} ms, {fails} failed")
    if good:
        lv, (_, _, hours, _) = max(good, key=lambda g: g[1][2])
        print(f"   best level within the limits: {lv['users']} users carrying {hours:.2f}x the "
              f"goal's peak hour: {'MET' if hours >= 1 else 'NOT met (too little load offered)'}")
    else:
        print("   no level stayed within p95 < 1 s and 0 errors: goal NOT met at any level run")
    top = max(levels, key=lambda lv: lv["users"])
    used, wall = top["cpu"], top["wall"]
    rate = summary(top)[3]
    app, pg = used["app"] / wall, (used["postgres (this db)"] + used["postgres (shared)"]) / wall
    others = used["others on the machine"] / wall
    first = "the app server's one process (Python: one core at most)" if app >= pg else \
        "PostgreSQL"
    print(f"   at {top['users']} users: app {app:.2f} cores, PostgreSQL {pg:.2f}, others on the "
          f"machine {others:.2f} (of {cores}); saturates first: {first}"
          + (" — while other work held the machine, so the app got less than it could"
             if others > 0.3 * cores else ""))
    if rate and app and pg:
        one = rate / app  # requests per core-second of the app process
        print(f"   per request: app {1000 * app / rate:.1f} ms CPU, PostgreSQL {1000 * pg / rate:.1f} "
              f"ms CPU; ceilings on an idle machine (extrapolated): one app process "
              f"{one:,.0f} req/s; this 2-core machine (app + PostgreSQL) "
              f"{rate * cores / (app + pg):,.0f} req/s; a second app node (its own cores, "
              f"RATELIMIT_STORAGE_URI=redis://) moves the app's part off this machine: up to "
              f"{min(2 * one, rate * cores / pg):,.0f} req/s before PostgreSQL's cores run out")


SCENARIOS = ("day", "tick-in-another-town")


def main() -> None:
    """Build, serve, load, print (or run the other scenario)."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--scenario", choices=SCENARIOS, default="day")
    known, rest = first.parse_known_args()
    if known.scenario == "tick-in-another-town":
        import audit_towns
        return audit_towns.main(rest, prog="load.py --scenario tick-in-another-town")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", choices=SCENARIOS, default="day",
                    help="day: the state-wide day below (default); tick-in-another-town: a "
                    "tick in one town vs another town's sync (bench/audit_towns.py, "
                    "its own options: --scenario tick-in-another-town --help)")
    ap.add_argument("--users", default="10,50,200",
                    type=lambda v: [int(x) for x in v.split(",")],
                    help="simulated users per level, comma-separated (default 10,50,200)")
    ap.add_argument("--duration", type=int, default=60, help="seconds per level after the ramp")
    ap.add_argument("--spawn-rate", type=float, help="users started per second (default: "
                    "a tenth of the level, at least 1)")
    ap.add_argument("--workers", type=int, default=1, help="gunicorn worker processes (1 as "
                    "`make serve`; 2 stands for a second app node's CPU, on this same machine)")
    ap.add_argument("--towns", type=int, default=4)
    ap.add_argument("--vehicles", type=int, default=500, help="moto-taxis per town")
    ap.add_argument("--photo-size", default="720x540",
                    type=lambda v: tuple(int(x) for x in v.split("x")),
                    help="evidence photos' pixels (720x540 noise: ~300 KB, bench/field.py's)")
    ap.add_argument("--pace", type=float, default=20, help="seconds between one simulated "
                    "agent's inspections (passengers scan every 0.08x that, supervisors open an "
                    "inspection every half; default 20: 50 users offer 2.25x the goal's hour)")
    ap.add_argument("--tick-every", type=float, default=60, help="seconds between the end of a "
                    "tick and the start of the next")
    ap.add_argument("--database-url", default=DEFAULT_DB,
                    help="a PostgreSQL server URL: the bench creates its own database there "
                    f"and drops it afterwards (default {DEFAULT_DB})")
    args = ap.parse_args()
    if not shutil.which("locust", path=str(BIN)):
        raise SystemExit("locust is missing: .venv/bin/pip install -e '.[bench]' (make bench)")
    load = os.getloadavg()[0]
    top = max(args.users)
    work = Path(tempfile.mkdtemp(prefix="inspector-load-"))
    try:
        rules = work / "rules"
        towns = towns_of(args.towns)
        _extra_rules(rules, [t for t in towns if t not in REAL_TOWNS])
        os.environ["RULES_EXTRA_DIR"] = str(rules)
        secret = secrets.token_hex(32)
        with throwaway_database(args.database_url) as url:
            database = url.rsplit("/", 1)[1].split("?")[0]
            t0 = time.perf_counter()
            plan = build(url, towns, args.vehicles, agents=top, supervisors=max(1, top // 5) + 2,
                         secret=secret)
            print(f"loaded {len(towns)} towns x {args.vehicles:,} moto-taxis (credentials, riders "
                  f"with photos), {top} agents and {max(1, top // 5) + 2} supervisors in "
                  f"{time.perf_counter() - t0:,.1f} s on PostgreSQL ({database})")
            env = dict(os.environ, INSPECTOR_ENV="production", DATABASE_URL=url,
                       SECRET_KEY=secret, PUBLIC_BASE_URL="https://fiscaliza.bench.invalid",
                       TRUSTED_PROXIES="1", LOG_LEVEL="WARNING")
            with Server(env, workers=args.workers, extra_args=(
                    "--config", "python:inspector.gunicorn_conf", "--preload",
                    "--forwarded-allow-ips", "127.0.0.1", "--timeout", "120")) as server:
                field_facts(server.port, plan)
                plan["photos"] = photo_bases(work, args.photo_size)
                plan["pace"] = args.pace
                (work / "plan.json").write_text(json.dumps(plan))
                tick = Tick(env, args.tick_every)
                tick.start()
                levels = []
                try:
                    for users in args.users:
                        rate = args.spawn_rate or max(1.0, users / 10)
                        levels.append(run_level(users, args.duration, server.base,
                                                dict(os.environ, LOAD_PLAN=str(work / "plan.json")),
                                                work, url, server.proc.pid, rate, tick))
                        report(levels[-1], os.cpu_count() or 1)
                    verdict(levels, os.cpu_count() or 1)
                finally:
                    tick.stop()
                    alive = server.proc.poll() is None
        bad = [f"{s:.1f} s rc {rc}" for s, rc in tick.runs if rc]
        print(f"\ntick: {len(tick.runs)} runs of " + ", ".join(
            f"{s:.1f} s ({n} inspections proposed)" for (s, _), n in zip(tick.runs, tick.proposed))
              + (f"; FAILED: {', '.join(bad)}" if bad else ", all exit 0")
              + f"; app server alive to the end: {'yes' if alive else 'NO'}")
        print(f"setup: gunicorn {args.workers} worker(s) x {os.environ.get('WEB_THREADS') or 8} threads "
              f"(inspector/gunicorn_conf.py), INSPECTOR_ENV=production, PostgreSQL on the same "
              f"machine; photos {args.photo_size[0]}x{args.photo_size[1]} "
              f"(~{os.path.getsize(plan['photos'][0]) // 1024} KB)")
        print(f"machine: {machine()}; load average {load:.2f} at the start, "
              f"{os.getloadavg()[0]:.2f} at the end")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.environ.pop("RULES_EXTRA_DIR", None)


if __name__ == "__main__":
    sys.exit(main())
