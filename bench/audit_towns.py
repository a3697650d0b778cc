"""Benchmark: does a tick in one town slow another town's sync? Prints figures; asserts nothing.

    .venv/bin/python bench/load.py --scenario tick-in-another-town [--rounds 5]
        [--inspections 8000] [--days 10] [--ahead 4] [--syncs 100] [--vehicles 1000]
        [--database-url postgresql+psycopg://inspector:inspector@127.0.0.1:5432/x]

(`bench/audit_towns.py` with the same options runs the same thing.) On a PostgreSQL database
of its own (created, dropped at the end) it loads two towns:

- Tapurah, the ticking town (bench/review_data.py): --inspections inspections over the last
  --days days with their legal acts as the services and the minute's tick would have left
  them at the load (bench/review_acts.py: notices, daily fines, appeal windows, closed
  acts). Its law turns a missed notice into a daily fine (Lei 406/2001 Art. 29).
- Nortelândia, the syncing town (bench/_common.py's loader, --vehicles moto-taxis, an agent),
  its riders' registrations renewed so that the tick finds nothing to do there.

Each round works on a fresh copy of that database (CREATE DATABASE ... TEMPLATE), so every
round's tick does the same work, in one of four configurations that alternate:

- alone: Nortelândia's agent syncs --syncs inspections; nothing else runs (the baseline);
- tick, lock per town: the real `flask enforcement tick --now <load + --ahead days> --json`
  runs in a process of its own (FLASK_DEBUG=1, which lets it take --now) and does what those
  days brought: notices missed become daily fines, running daily fines accrue, appeal
  windows close, acts close, Tapurah's law revokes permits whose insurance lapsed. Meanwhile
  the agent syncs inspections one after another; the syncs that start after the tick's work
  starts and end before it ends are counted (the audit chain's lock per town, as the code is);
- tick, lock per town, Nice=10: the same, the tick's process at the priority
  deploy/inspector-tick.service gives it (its PostgreSQL backend keeps the server's);
- tick, one lock for all towns: the same, with the single advisory lock 1.0.0 took
  (`pg_advisory_xact_lock(4242001)`) in place of `audit._lock_chains` in both processes.

The tick runs through this script (`--tick-process`), which puts the configuration's lock in
place, times it, counts the entries each commit chains, then runs the flask CLI. A sync is
PUT /api/field/inspections/<uuid> with every item passed, through Flask's test client in this
process, one at a time, each timed.

Printed, medians over the rounds: p50, p95 and max of a sync, the ratio of its p95 to the
baseline's, the time a sync waited for an audit chain's lock (measured around
`audit._lock_chains`: the wait and the statement's round trip, which a busy CPU delays too) on
average and at the longest, the syncs counted; the tick's duration (its work, the process's
start-up excluded), what it changed, the audit entries it wrote, its commits with entries and
the largest, and its own wait for the lock; the time from chaining a commit's entries to
the commit's end (while a lock for all towns is held), and the syncs that ran meanwhile:
their times and lock waits.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _common import load_mototaxi_town, machine, pct, throwaway_database
from field import _inspection
from review_data import SECRET, build

BASE = "https://localhost"  # the session cookie is Secure
DEFAULT_DB = "postgresql+psycopg://inspector:inspector@127.0.0.1:5432/inspector_test"
SYNCING = ("nortelandia", "Nortelândia", "5105903")
AGENT, PASSWORD = "agente.nortelandia", "bench-password-123"
# (label, lock, the tick process's nice value): deploy/inspector-tick.service runs the tick at
# Nice=10, below the web server, so that a sync gets the CPU first
CONFIGS = [("alone", None, 0), ("tick, lock per town", "town", 0),
           ("tick, lock per town, Nice=10", "town", 10),
           ("tick, one lock for all towns", "global", 0)]
# Tapurah's work; "proposed" is left out: a tick may make the proposals of an inspection
# Nortelândia's sync has just stored (pending.py: whichever claims it first), and does in some rounds
REPORT_KEYS = ("converted", "accrued", "reminders", "windows_closed", "effects", "lifted",
               "closed", "automatic")

WAITED: list[float] = []  # seconds this process spent taking a chain's lock
CHAINED: list[int] = []   # entries each commit chained (the tick's process)


def use_lock(mode: str) -> None:
    """Put 1.0.0's lock (one for every town) in place of the per-town one ("global"), or the
    per-town one back ("town"); either way the time spent taking it goes to WAITED."""
    from sqlalchemy import text

    from inspector import audit

    real = getattr(audit, "_bench_real_lock", audit._lock_chains)
    audit._bench_real_lock = real

    def one_lock(session, towns):
        session.execute(text("SELECT pg_advisory_xact_lock(4242001)"))

    chosen = one_lock if mode == "global" else real

    def timed(session, towns):
        t0 = time.perf_counter()
        chosen(session, towns)
        WAITED.append(time.perf_counter() - t0)
    audit._lock_chains = timed


def tick_process(mode: str, now: str, out: str) -> None:
    """The tick, as `flask --app inspector enforcement tick --now NOW --json` runs it, with
    `mode`'s lock; its start and end (wall clock), lock waits and commits go to `out`."""
    from flask.cli import cli
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    from inspector import audit, enforcement

    use_lock(mode)
    sequence = audit.sequence
    spans: list[list[float]] = []  # wall clock from the chaining's start to the commit's end

    def counted(session):
        start = time.time()
        n = sequence(session)
        if n:
            CHAINED.append(n)
            spans.append([start, start])
        return n

    def committed(session):
        if spans and spans[-1][0] == spans[-1][1]:
            spans[-1][1] = time.time()
    audit.sequence = counted  # the one create_app's audit.install() registers
    event.listen(Session, "after_commit", committed)

    real_tick, started = enforcement.tick, []

    def tick(moment):
        started.append(time.time())  # the app is up: the tick's work starts
        return real_tick(moment)

    enforcement.tick = tick
    rc = 0
    try:
        cli.main(["--app", "inspector", "enforcement", "tick", "--now", now, "--json"],
                 prog_name="flask")
    except SystemExit as done:
        rc = done.code or 0
    Path(out).write_text(json.dumps({"start": started[0] if started else None,
                                     "end": time.time(), "rc": rc, "waited": sum(WAITED),
                                     "chained": CHAINED, "spans": spans}))


def syncing_town(url: str, vehicles: int) -> int:
    """Nortelândia with `vehicles` moto-taxis and an agent; its riders' registrations renewed
    (its law cancels one not renewed in time by itself: the tick would have work there)."""
    from datetime import date

    from sqlalchemy import update

    from inspector import audit
    from inspector.accounts import create_user
    from inspector.extensions import db
    from inspector.models import Driver

    app = load_mototaxi_town(url, vehicles, seed=127, secret_key=SECRET, town=SYNCING)
    with app.app_context():
        agent = create_user(town_slug=SYNCING[0], username=AGENT, name="Agente Bench",
                            role="agent", password=PASSWORD)
        agent.must_change_password = False  # as after choosing their own
        town_id = agent.municipality_id
        db.session.execute(update(Driver).where(Driver.municipality_id == town_id)
                           .values(registration_expiry=date.today() + timedelta(days=800)))
        # the snapshot's version is not 0 (a bulk load bypasses the audited services)
        audit.record("bench_loaded", "municipality", town_id, after={"vehicles": vehicles},
                     municipality_id=town_id)
        db.session.commit()
        db.engine.dispose()
    return town_id


class Agent:
    """Nortelândia's agent on one round's copy of the database: signed in, syncing."""

    def __init__(self, url: str):
        from inspector import create_app

        os.environ["DATABASE_URL"] = url
        self.app = create_app({})
        self.client = self.app.test_client()
        page = self.client.get("/entrar", base_url=BASE).get_data(as_text=True)
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
        self.client.post("/entrar", base_url=BASE, data={
            "username": AGENT, "password": PASSWORD, "csrf_token": token})
        csrf = self.client.get("/api/field/session", base_url=BASE).get_json()["csrf_token"]
        self.headers = {"X-CSRFToken": csrf, "Accept": "application/json",
                        "Content-Type": "application/json"}
        snap = self.client.get("/api/field/snapshot", base_url=BASE).get_json()
        self.items = next(c for c in snap["checklists"] if c["service"] == "mototaxi")["items"]
        self.vehicles = [v["id"] for v in snap["vehicles"]]
        self.version = snap["version"]
        self.count = 0

    def sync(self) -> tuple[float, float, float, float]:
        """One inspection synced: (wall start, wall end, ms, ms waited for a chain lock)."""
        self.count += 1
        iid, body, _photos = _inspection(self.vehicles[self.count % len(self.vehicles)],
                                         self.items, [], self.version)
        before = len(WAITED)
        wall, t0 = time.time(), time.perf_counter()
        got = self.client.put(f"/api/field/inspections/{iid}", data=body, base_url=BASE,
                              headers=self.headers)
        ms = (time.perf_counter() - t0) * 1000
        if got.status_code != 201:
            sys.exit(f"PUT: {got.status_code} {got.get_data(as_text=True)[:200]}")
        return wall, time.time(), ms, 1000 * sum(WAITED[before:])

    def close(self) -> None:
        from inspector.extensions import db

        with self.app.app_context():
            db.engine.dispose()


def copy_database(base_url: str, name: str, drop: bool = False) -> str:
    """A new database `name`, a copy of `base_url`'s (or, `drop`, that copy removed)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = make_url(base_url)
    admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        if not drop:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{base.database}"'))
    admin.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


def one_round(base_url: str, label: str, mode: str | None, args, now: str, work: Path,
              nice: int = 0) -> dict:
    """One configuration on a fresh copy of the loaded database; its figures."""
    from sqlalchemy import create_engine, text

    url = copy_database(base_url, f"{base_url.rsplit('/', 1)[1]}_round")
    agent = None
    try:
        use_lock(mode or "town")
        agent = Agent(url)
        for _ in range(5):  # warm up on this copy
            agent.sync()
        WAITED.clear()
        CHAINED.clear()
        out: dict = {"label": label}
        if mode is None:
            syncs = [agent.sync() for _ in range(args.syncs)]
        else:
            engine = create_engine(url)
            with engine.connect() as conn:
                before = conn.execute(text("SELECT coalesce(max(seq), 0) FROM audit_entries"))\
                    .scalar()
            result = work / "tick.json"
            result.unlink(missing_ok=True)
            proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--tick-process", mode, now,
                 str(result)], env=dict(os.environ, DATABASE_URL=url, FLASK_DEBUG="1",
                                        SECRET_KEY=SECRET, LOG_LEVEL="ERROR"),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                preexec_fn=(lambda: os.nice(nice)) if nice else None)
            syncs = []
            while proc.poll() is None:
                syncs.append(agent.sync())
            stdout, stderr = proc.communicate()
            tick = json.loads(result.read_text())
            if tick["rc"] or tick["start"] is None:
                sys.exit(f"tick failed ({tick['rc']}):\n{stderr[-2000:]}")
            report = json.loads(stdout.strip().splitlines()[-1])
            syncs = [s for s in syncs if s[0] >= tick["start"] and s[1] <= tick["end"]]
            # the syncs that ran while the tick chained and committed its entries: the only
            # moments a lock shared by the towns can hold them up
            out["at_commit"] = [(s[2], s[3]) for s in syncs
                                if any(s[0] <= b and s[1] >= a for a, b in tick["spans"])]
            with engine.connect() as conn:
                written = conn.execute(text(
                    "SELECT count(*) FROM audit_entries WHERE seq > :s AND "
                    "municipality_id IS DISTINCT FROM :a"),
                    {"s": before, "a": args.syncing_town}).scalar()
            engine.dispose()
            out["tick"] = {"seconds": tick["end"] - tick["start"], "written": written,
                           "commits": len(tick["chained"]),
                           "largest": max(tick["chained"], default=0),
                           "waited": tick["waited"],
                           "held": [b - a for a, b in tick["spans"]],
                           "changes": {k: len(report[k]) for k in REPORT_KEYS},
                           "proposed": len(report["proposed"])}
        if not syncs:
            sys.exit(f"{label}: no sync fitted inside the tick; give it more work (--ahead)")
        times = [s[2] for s in syncs]
        out.update(p50=pct(times, 50), p95=pct(times, 95), max=max(times),
                   waited=statistics.mean(s[3] for s in syncs),
                   most=max(s[3] for s in syncs), n=len(syncs))
        return out
    finally:
        if agent is not None:
            agent.close()
        copy_database(base_url, url.rsplit("/", 1)[1], drop=True)


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the four configurations")
    ap.add_argument("--syncs", type=int, default=100, help="syncs timed in an alone round")
    ap.add_argument("--inspections", type=int, default=8000,
                    help="Tapurah's inspections (the tick's backlog grows with them)")
    ap.add_argument("--days", type=int, default=10, help="the days they are spread over")
    ap.add_argument("--ahead", type=float, default=4,
                    help="days after the load at which the tick runs (--now)")
    ap.add_argument("--vehicles", type=int, default=1000, help="moto-taxis per town")
    ap.add_argument("--database-url", default=DEFAULT_DB)
    ap.add_argument("--tick-process", nargs=3, metavar=("LOCK", "NOW", "OUT"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.tick_process:
        return tick_process(*args.tick_process)
    if not args.database_url.startswith("postgresql"):
        sys.exit("the chains' locks are PostgreSQL's: give a PostgreSQL --database-url")
    load = os.getloadavg()[0]
    os.environ.update(SECRET_KEY=SECRET, LOG_LEVEL="ERROR")
    with throwaway_database(args.database_url) as url, \
            tempfile.TemporaryDirectory(prefix="inspector-ticktown-") as work:
        t0 = time.perf_counter()
        loaded = build(url, args.inspections, args.vehicles, pdfs=0, days=args.days)
        now = (datetime.now(UTC) + timedelta(days=args.ahead)).isoformat(timespec="seconds")
        args.syncing_town = syncing_town(url, args.vehicles)
        print(f"loaded in {time.perf_counter() - t0:,.0f} s: Tapurah {args.inspections:,} "
              f"inspections over {args.days} days, {loaded.acts:,} acts, {loaded.notices:,} "
              f"notices; Nortelândia {args.vehicles:,} moto-taxis; the tick runs at --now {now} "
              f"({args.ahead:g} days after the load)", flush=True)
        rounds = []
        for r in range(args.rounds):
            for label, mode, nice in CONFIGS:
                got = one_round(url, label, mode, args, now, Path(work), nice)
                rounds.append(got)
                tick = got.get("tick")
                print(f"  round {r + 1} {label:30s} syncs {got['n']:4d}  p50 {got['p50']:6.1f}  "
                      f"p95 {got['p95']:6.1f}  max {got['max']:7.1f} ms  lock wait "
                      f"{got['waited']:.2f} ms (most {got['most']:.1f})" + (
                          f"; tick {tick['seconds']:.1f} s, {tick['written']} entries in "
                          f"{tick['commits']} commits" if tick else ""), flush=True)
    print(f"\nA tick in Tapurah vs Nortelândia's sync (PostgreSQL; {args.rounds} rounds, each "
          f"configuration on a fresh copy of the database; medians over the rounds)")
    base_p95 = statistics.median(r["p95"] for r in rounds if r["label"] == "alone")
    for label, mode, _nice in CONFIGS:
        mine = [r for r in rounds if r["label"] == label]

        def med(key, rows=mine):
            return statistics.median(r[key] for r in rows)
        print(f"  {label:30s} p50 {med('p50'):6.1f} ms  p95 {med('p95'):6.1f} ms  "
              f"max {med('max'):7.1f} ms  p95/baseline {med('p95') / base_p95:.2f}; "
              f"waited for a chain lock {med('waited'):.2f} ms a sync, the longest wait "
              f"{med('most'):.1f} ms; {med('n'):.0f} syncs a round")
        if mode is not None:
            ticks = [r["tick"] for r in mine]
            same = all(t["changes"] == ticks[0]["changes"] and t["written"] == ticks[0]["written"]
                       for t in ticks)
            print(f"      tick: {statistics.median(t['seconds'] for t in ticks):.1f} s of work, "
                  f"{statistics.median(t['written'] for t in ticks):.0f} audit entries in "
                  f"{statistics.median(t['commits'] for t in ticks):.0f} commits (largest "
                  f"{statistics.median(t['largest'] for t in ticks):.0f}), waited for the lock "
                  f"{1000 * statistics.median(t['waited'] for t in ticks):.0f} ms; "
                  + ", ".join(f"{k} {v}" for k, v in ticks[0]["changes"].items() if v)
                  + ("; the same work every round" if same else "; NOT the same work every "
                     f"round: {[(t['written'], t['changes']) for t in ticks]}")
                  + f"; proposals made for Nortelândia's inspections: "
                    f"{sum(t['proposed'] for t in ticks)} in all")
            held = [h for t in ticks for h in t["held"]]
            hit = [x for r in mine for x in r["at_commit"]]
            print(f"      the tick's commits with entries took {1000 * statistics.median(held):.0f} ms "
                  f"(median; longest {1000 * max(held):.0f} ms) from chaining to commit; the "
                  f"{len(hit)} syncs that ran meanwhile (all rounds): median "
                  + (f"{statistics.median(m for m, _ in hit):.1f} ms, longest "
                     f"{max(m for m, _ in hit):.1f} ms, waited for a chain lock median "
                     f"{statistics.median(w for _, w in hit):.1f} ms, longest "
                     f"{max(w for _, w in hit):.1f} ms" if hit else "-"))
    print(f"machine: {machine()}; load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
