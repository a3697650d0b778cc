"""Benchmark: the town's dashboard (/painel) on 100,000 inspections against
/healthz in the same run. Prints figures; asserts nothing.

    .venv/bin/python bench/dashboard.py [--inspections 100000] [--vehicles 4000] [--rounds 100]
        [--clients 2] [--database-url postgresql+psycopg://user:pw@127.0.0.1:5432/any]

On a throwaway SQLite database (or a database of its own on the PostgreSQL server given,
dropped at the end) it bulk-loads Tapurah as bench/review.py does (bench/review_data.py: N
moto-taxis, two years of inspections by 12 agents with every checklist answer, the acts,
notices, fines and appeals the enforcement services would have made), plus a payment for
some of the decided fines and a passenger report a day. Then:

1. in one process, each of the dashboard's queries (inspections per day and agent, failed
   items, acts by kind and state, fines, passenger reports, the fleet's standing) for the
   default period (12 weeks), 12 months and two years: what a view costs when the town has
   just changed and nothing is reused;
2. under gunicorn (2 sync workers), signed in as a supervisor: `GET /painel` as a full page
   and as the htmx fragment the period form asks for, for 12 weeks (the default), 30 days,
   12 months and two years, against `GET /healthz` (one SELECT 1) and `/inicio`: median and
   p90 over --rounds requests after a warm-up, the routes shuffled, --clients side by side,
   each median as a ratio to /healthz's (goal: at most 2x). The figures of a town and period
   are rendered once per audit version and reused until the town changes.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from _common import Client, Server, machine, pct, served_bench_args, throwaway_database
from review_data import PASSWORD, SECRET, SUPERVISOR, build

HX = {"HX-Request": "true", "Accept": "text/html"}


def extras(url: str, seed: int = 19) -> tuple[int, int]:
    """Payments for a third of the decided fines (a day after their decision) and one
    passenger report a day over the two years; Core inserts."""
    from sqlalchemy import insert, select

    from inspector import create_app
    from inspector.extensions import db
    from inspector.models import (
        Fine,
        FinePayment,
        Municipality,
        PassengerReport,
        Sanction,
        SanctionStatus,
    )
    from inspector.models.enforcement import EFFECTIVE

    rng = random.Random(seed)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SECRET, "TESTING": True,
                      "LOG_LEVEL": "WARNING"})
    with app.app_context():
        town = db.session.scalar(select(Municipality.id).filter_by(slug="tapurah"))
        fines = db.session.execute(
            select(Fine.id, Fine.amount_brl, Sanction.decided_at)
            .join(Sanction, Sanction.id == Fine.sanction_id)
            .where(Sanction.status.in_(EFFECTIVE), Sanction.status != SanctionStatus.PROPOSED,
                   Fine.amount_brl.is_not(None), Sanction.decided_at.is_not(None))).all()
        now = datetime.now(UTC)
        pays = [{"municipality_id": town, "fine_id": f.id, "amount_brl": f.amount_brl,
                 "paid_on": min((f.decided_at.replace(tzinfo=UTC) + timedelta(days=1)), now).date(),
                 "receipt": f"DAM-{f.id}", "recorded_at": now}
                for f in fines if rng.random() < 0.33]
        if pays:
            db.session.execute(insert(FinePayment.__table__), pays)
        reports = [{"municipality_id": town, "category": rng.choice(
            ("fare", "conduct", "driving", "vehicle", "other")), "text": "Relato",
            "contact": "", "seen_status": "regular", "status": rng.choice(("new", "done")),
            "created_at": now - timedelta(days=d, hours=rng.randrange(24))}
            for d in range(730)]
        db.session.execute(insert(PassengerReport.__table__), reports)
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            from sqlalchemy import text
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("ANALYZE fine_payments; ANALYZE passenger_reports"))
        db.engine.dispose()
    return len(pays), len(reports)


def in_process(url: str) -> None:
    """Each query of the dashboard, timed, nothing reused (a view right after a change)."""
    from sqlalchemy import select

    from inspector import clock, create_app
    from inspector.extensions import db
    from inspector.models import Municipality
    from inspector.stats import dashboard, fleet, period

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SECRET, "TESTING": True,
                      "LOG_LEVEL": "WARNING"})
    with app.app_context(), app.test_request_context():
        town = db.session.scalar(select(Municipality.id).filter_by(slug="tapurah"))
        t0 = time.perf_counter()
        fleet.fleet_today(town)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        fleet.fleet_today(town)
        again = time.perf_counter() - t0
        db.session.rollback()
        print("\n1. The dashboard's queries in one process, nothing reused (a view right after a "
              "change of the town); median of 5 runs, ms")
        print(f"   fleet standing today: first of the day {first * 1000:,.0f} ms (every vehicle "
              f"judged by the rules engine, once per process and day), then {again * 1000:,.1f} ms")
        queries = {"inspections per day and agent": dashboard.inspection_figures,
                   "failed items": dashboard.failed_items, "acts by kind and state": dashboard.act_figures,
                   "fines issued, paid, open": dashboard.fine_figures,
                   "passenger reports": dashboard.report_figures, "fleet trend": fleet.fleet_trend}
        today = clock.today(db.session.get(Municipality, town))
        spans = {"12 weeks": period.preset_period("12s", today),
                 "12 months": period.preset_period("12m", today),
                 "two years": period.Period(today - timedelta(days=729), today)}
        print(f"   {'query':<34}" + "".join(f"{k:>12}" for k in spans))
        total = dict.fromkeys(spans, 0.0)
        for name, fn in queries.items():
            cells = []
            for label, p in spans.items():
                times = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    fn(town, p)
                    times.append(time.perf_counter() - t0)
                med = statistics.median(times)
                total[label] += med
                cells.append(f"{med * 1000:>12.1f}")
            print(f"   {name:<34}" + "".join(cells))
        print(f"   {'all of them':<34}" + "".join(f"{v * 1000:>12.1f}" for v in total.values()))
        db.engine.dispose()


def served(client: Client, rounds: int, warmup: int, clients: int) -> None:
    """/painel's variants as page and fragment against /healthz, shuffled, side by side."""
    today = datetime.now(UTC).date()
    variants = {"12 weeks (default)": "", "30 days": "?periodo=30d", "12 months": "?periodo=12m",
                "two years": f"?de={(today - timedelta(days=729)).isoformat()}&ate={today.isoformat()}"}
    routes = {"GET /healthz": ("/healthz", None), "GET /inicio (signed in)": ("/inicio", None)}
    for name, query in variants.items():
        routes[f"page: {name}"] = ("/painel" + query, None)
        routes[f"htmx: {name}"] = ("/painel" + query, HX)
    first: dict[str, float] = {}
    for name, (path, headers) in routes.items():   # every variant once: what it shows
        got = client.fetch("GET", path, headers=headers)
        if got.status != 200:
            raise SystemExit(f"{name}: HTTP {got.status}: {got.text[:300]}")
        first[name] = got.seconds
    lock, local = threading.Lock(), threading.local()
    times: dict[str, list[float]] = {name: [] for name in routes}

    def one(job: tuple[str, bool]) -> None:
        name, measured = job
        if not hasattr(local, "client"):
            local.client = Client(client.port)
            local.client.cookies = dict(client.cookies)
        path, headers = routes[name]
        got = local.client.fetch("GET", path, headers=headers)
        if got.status != 200:
            raise SystemExit(f"{name}: HTTP {got.status}")
        if measured:
            with lock:
                times[name].append(got.seconds)

    rng = random.Random(19)
    jobs = [(n, False) for n in routes for _ in range(warmup)]
    rng.shuffle(jobs)
    measured = [(n, True) for n in routes for _ in range(rounds)]
    rng.shuffle(measured)
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, jobs))
        t0 = time.perf_counter()
        list(pool.map(one, measured))
        took = time.perf_counter() - t0
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    base = med["GET /healthz"]
    print(f"\n2. GET /painel as {SUPERVISOR} under gunicorn: {rounds} requests per route after "
          f"{warmup} warm-up, shuffled, {clients} clients side by side "
          f"({len(measured) / took:,.0f} requests/s overall)")
    print(f"   {'route':<34}{'first ms':>10}{'median ms':>11}{'p90 ms':>9}{'ratio':>8}")
    worst = (0.0, "")
    for name, values in times.items():
        ratio = med[name] / base
        if name.startswith(("page", "htmx")):
            worst = max(worst, (ratio, name))
        print(f"   {name:<34}{first[name] * 1000:>10.1f}{med[name]:>11.2f}"
              f"{pct(values, 90) * 1000:>9.2f}{ratio:>7.2f}x")
    default = med["page: 12 weeks (default)"] / base
    print(f"   goal, the dashboard as a supervisor opens it, at most 2x /healthz's median: "
          f"{default:.2f}x -> {'met' if default <= 2 else 'NOT met'}; every variant: "
          f"{'met' if worst[0] <= 2 else 'NOT met'} (worst {worst[0]:.2f}x: {worst[1]}). "
          f"'first' is the first request of each variant (the fleet judged once per worker "
          f"and day, then the figures computed once per town version and reused).")


def main() -> None:
    """Build, measure, serve, measure, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    served_bench_args(ap, rounds=100, warmup=5)
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with throwaway_database(args.database_url) as url:
        engine = url.split(":", 1)[0].split("+")[0]
        t0 = time.perf_counter()
        loaded = build(url, args.inspections, args.vehicles, 0)
        paid, reports = extras(url)
        print(f"loaded Tapurah ({engine}) in {time.perf_counter() - t0:,.1f} s: "
              f"{args.vehicles:,} moto-taxis, {len(loaded.agents)} agents, "
              f"{loaded.inspections:,} inspections over {len(loaded.days)} days, "
              f"{loaded.acts:,} acts, {loaded.notices:,} notices, {paid:,} fine payments, "
              f"{reports:,} passenger reports")
        in_process(url)
        with Server({"DATABASE_URL": url, "SECRET_KEY": SECRET, "LOG_LEVEL": "WARNING"},
                    workers=args.workers, extra_args=("--timeout", "300")) as server:
            client = Client(server.port)
            client.sign_in(SUPERVISOR, PASSWORD)
            served(client, args.rounds, args.warmup, args.clients)
    print(f"\nmachine: {machine()}; load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
