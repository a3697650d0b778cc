"""Benchmark: does one town's tick slow another town's sync? Prints figures; asserts nothing.

    .venv/bin/python bench/audit_towns.py [--rounds 3] [--inspections 60] [--entries 500]
        [--pause 0.2] [--database-url postgresql+psycopg://inspector:inspector@127.0.0.1:5432/x]

On a PostgreSQL database of its own (created, dropped at the end) it loads Tapurah
(bench/field_data.py: vehicles, an agent) and a second town, Sapezal. Tapurah's agent syncs
inspections (PUT /api/field/inspections/<uuid>, every item passed, Flask's test client
in this process, one at a time) and each request is timed, in three configurations that
alternate round after round:

- alone: nothing else runs (the same-run baseline);
- tick, lock per town: another process plays Sapezal's tick as the audit log sees it, a
  transaction that writes --entries audit entries for Sapezal and commits, again and again
  with --pause seconds between commits (the tick's own reading between phases), with the
  chain's lock per town (inspector/audit.py as it is);
- tick, one lock for all towns: the same, with both processes taking the single advisory
  lock 1.0.0 took for every audited commit (`pg_advisory_xact_lock(4242001)`), put in place
  of `audit._lock_chains` for the round.

For each: p50, p95 and max of a sync request, the ratio of its p95 to the baseline's, the
time a sync spent waiting for a chain's lock (measured around `audit._lock_chains`: free of
the CPU the two processes share), medians over the rounds, and how many commits Sapezal's
stand-in made. The stand-in is
not the tick itself: it is what the tick does to the audit log (hundreds of entries in one
commit), the one thing the two towns share besides the machine.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import pct, throwaway_database
from field import _inspection
from field_data import AGENT, PASSWORD, SECRET, build

BASE = "https://localhost"  # the session cookie is Secure
DEFAULT_DB = "postgresql+psycopg://inspector:inspector@127.0.0.1:5432/inspector_test"


WAITED: list[float] = []  # seconds this process spent taking a chain's lock


def use_lock(mode: str) -> None:
    """Put the 1.0.0 lock (one for every town) in place of the per-town one, or back; either
    way the time spent taking it is added to WAITED."""
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


def worker(url: str, town_id: int, mode: str, entries: int, pause: float) -> None:
    """Sapezal's tick as the audit log sees it, until SIGTERM; prints its commit count."""
    os.environ.update(DATABASE_URL=url, SECRET_KEY=SECRET, LOG_LEVEL="WARNING")
    from inspector import audit, create_app
    from inspector.extensions import db

    app = create_app({})
    use_lock(mode)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    commits = 0
    with app.app_context():
        while not stop:
            for i in range(entries):
                audit.record("fine_accrued", "fine", i, actor="enforcement-tick",
                             municipality_id=town_id, after={"days": commits, "n": i})
            db.session.commit()
            commits += 1
            if commits == 1:
                print("committing", flush=True)
            time.sleep(pause)
    print(commits, flush=True)


def second_town() -> int:
    """Sapezal, the ticking town; its id."""
    from sqlalchemy import select, update

    from inspector import create_app
    from inspector.extensions import db
    from inspector.models import Municipality, User

    app = create_app({})
    with app.app_context():
        # the bench's agent signs in with the password it was given, as a real one would
        # after choosing their own
        db.session.execute(update(User).where(User.username == AGENT)
                           .values(must_change_password=False))
        town = Municipality(slug="sapezal", name="Sapezal", ibge_code="5107875",
                            population_seat=20000, population_interior=5000)
        db.session.add(town)
        db.session.commit()
        town_id = db.session.scalar(select(Municipality.id).filter_by(slug="sapezal"))
        db.engine.dispose()
    return town_id


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--inspections", type=int, default=60, help="syncs timed per round")
    ap.add_argument("--entries", type=int, default=500, help="entries per tick commit")
    ap.add_argument("--pause", type=float, default=0.2, help="seconds between tick commits")
    ap.add_argument("--vehicles", type=int, default=100)
    ap.add_argument("--database-url", default=DEFAULT_DB)
    ap.add_argument("--worker", nargs=3, metavar=("URL", "TOWN", "LOCK"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        url, town, mode = args.worker
        return worker(url, int(town), mode, args.entries, args.pause)
    if not args.database_url.startswith("postgresql"):
        sys.exit("the chains' locks are PostgreSQL's: give a PostgreSQL --database-url")
    with throwaway_database(args.database_url) as url:
        build(url, args.vehicles)
        os.environ.update(DATABASE_URL=url, SECRET_KEY=SECRET, LOG_LEVEL="WARNING")
        sapezal = second_town()
        from inspector import create_app
        app = create_app({})
        client = app.test_client()
        page = client.get("/entrar", base_url=BASE).get_data(as_text=True)
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
        client.post("/entrar", base_url=BASE, data={
            "username": AGENT, "password": PASSWORD, "csrf_token": token})
        csrf = client.get("/api/field/session", base_url=BASE).get_json()["csrf_token"]
        headers = {"X-CSRFToken": csrf, "Accept": "application/json",
                   "Content-Type": "application/json"}
        snap = client.get("/api/field/snapshot", base_url=BASE).get_json()
        items = next(c for c in snap["checklists"] if c["service"] == "mototaxi")["items"]
        vehicles = [v["id"] for v in snap["vehicles"]]
        count = [0]

        def sync_round(n: int) -> list[float]:
            """Milliseconds of each of n inspection syncs."""
            WAITED.clear()
            out = []
            for _ in range(n):
                count[0] += 1
                iid, body, _photos = _inspection(vehicles[count[0] % len(vehicles)], items, [],
                                                 snap["version"])
                t0 = time.perf_counter()
                got = client.put(f"/api/field/inspections/{iid}", data=body, base_url=BASE,
                                 headers=headers)
                out.append((time.perf_counter() - t0) * 1000)
                if got.status_code != 201:
                    sys.exit(f"PUT: {got.status_code} {got.get_data(as_text=True)[:200]}")
            return out

        configs = [("alone", None), ("tick, lock per town", "town"),
                   ("tick, one lock for all towns", "global")]
        results: dict[str, list[tuple[float, float, float, float]]] = {c: [] for c, _ in configs}
        commits: dict[str, list[int]] = {c: [] for c, _ in configs}
        sync_round(10)  # warm up
        script = Path(__file__).resolve()
        for _ in range(args.rounds):
            for label, mode in configs:
                use_lock(mode or "town")
                proc = None
                if mode is not None:
                    proc = subprocess.Popen(
                        [sys.executable, str(script), "--worker", url, str(sapezal), mode,
                         "--entries", str(args.entries), "--pause", str(args.pause)],
                        stdout=subprocess.PIPE, text=True)
                    assert proc.stdout.readline().strip() == "committing"
                times = sync_round(args.inspections)
                results[label].append((pct(times, 50), pct(times, 95), max(times),
                                       1000 * sum(WAITED) / len(times)))
                if proc is not None:
                    proc.send_signal(signal.SIGTERM)
                    out, _ = proc.communicate(timeout=60)
                    commits[label].append(int(out.strip() or 0))
        use_lock("town")
        print(f"One town's tick vs another town's sync (PostgreSQL; Tapurah syncs "
              f"{args.inspections} inspections a round, one at a time; Sapezal's tick stand-in "
              f"commits {args.entries} audit entries every {args.pause} s; {args.rounds} rounds, "
              f"medians)")
        base_p95 = statistics.median(r[1] for r in results["alone"])
        for label, _mode in configs:
            p50 = statistics.median(r[0] for r in results[label])
            p95 = statistics.median(r[1] for r in results[label])
            top = statistics.median(r[2] for r in results[label])
            waited = statistics.median(r[3] for r in results[label])
            done = (f"; tick commits in the round: {statistics.median(commits[label]):.0f}"
                    if commits[label] else "")
            print(f"  {label:30s} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  max {top:6.1f} ms  "
                  f"p95/baseline {p95 / base_p95:.2f}; waited for a chain lock "
                  f"{waited:.2f} ms a sync{done}")


if __name__ == "__main__":
    main()
