"""Benchmark: the plate search on a town with 10,000 vehicles, against a trivial route.

Run with `make bench` (or `.venv/bin/python bench/registry.py [--vehicles N] [--rounds N]`).
Prints figures; it is not a test and asserts nothing about speed.

What it does: builds a throwaway SQLite database in a temporary directory, migrates it,
loads N vehicles with their holders and licences into one town (bulk inserts: this data
bypasses the services and the audit log, which a benchmark database does not need),
starts the app under gunicorn with 2 workers on a free loopback port, signs in as the
town's admin, then times, after a warm-up, many requests of

    GET /cadastro/veiculos?q=<plate prefix>   with   HX-Request: true   (the htmx fragment)
    GET /healthz                                                        (one SELECT 1)

interleaved on the same server, one at a time, each on a new connection (gunicorn's sync
workers close it anyway). It prints the median and p90 latency of each and their ratio;
the goal is a search median at most 2x the trivial route's.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from _common import Client, Server, machine, pct

PASSWORD = "bench-password-123"


def build_database(url: str, vehicles: int, seed: int = 7) -> list[str]:
    """Migrate an empty database and load one town's fleet; returns the plates."""
    import flask_migrate
    from sqlalchemy import insert, select

    from inspector import create_app
    from inspector.accounts import create_user
    from inspector.extensions import db
    from inspector.identifiers import make_cpf
    from inspector.models import Holder, Licence, Municipality, Vehicle

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "TESTING": True,
                      "LOG_LEVEL": "WARNING"})
    rng = random.Random(seed)
    with app.app_context():
        flask_migrate.upgrade()
        town = Municipality(slug="sapezal", name="Sapezal", ibge_code="5107875",
                            population_seat=24602, population_interior=4342)
        db.session.add(town)
        db.session.flush()
        create_user(town_slug="sapezal", username="admin.bench", name="Admin Bench",
                    role="admin", password=PASSWORD)
        cpfs = rng.sample(range(100_000_000, 999_999_999), vehicles)
        db.session.execute(insert(Holder), [
            {"municipality_id": town.id, "kind": "person", "name": f"Titular {i:05d}",
             "tax_id": make_cpf(str(c)), "address": "Rua Bench, 1"}
            for i, c in enumerate(cpfs)])
        holder_ids = list(db.session.scalars(select(Holder.id).filter_by(municipality_id=town.id)))
        plates: set[str] = set()
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        while len(plates) < vehicles:
            head = "".join(rng.choice(letters) for _ in range(3))
            plates.add(f"{head}{rng.randint(0, 9)}{rng.choice(letters)}{rng.randint(0, 99):02d}"
                       if rng.random() < 0.6 else f"{head}{rng.randint(1000, 9999)}")
        plates_list = sorted(plates)
        rng.shuffle(plates_list)
        today = date.today()
        db.session.execute(insert(Vehicle), [
            {"municipality_id": town.id, "holder_id": h, "service": "taxi", "kind": "car",
             "plate": p, "make_model": "Chevrolet Onix Plus 1.0",
             "year_of_manufacture": today.year - rng.randint(0, 4), "engine_cc": 999,
             "colour": "Branca", "doors": 4, "prefix": f"TX{i:05d}", "is_trail": False}
            for i, (h, p) in enumerate(zip(holder_ids, plates_list))])
        vehicle_ids = list(db.session.scalars(select(Vehicle.id)))
        db.session.execute(insert(Licence), [
            {"municipality_id": town.id, "vehicle_id": v, "kind": "alvara_licenca",
             "number": f"AL-{i:05d}", "valid_from": today - timedelta(days=100),
             "valid_until": today + timedelta(days=265), "status": "active"}
            for i, v in enumerate(vehicle_ids)])
        db.session.commit()
        db.engine.dispose()
    return plates_list


def main() -> None:
    """Build, serve, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=500, help="measured pairs of requests")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="inspector-bench-"))
    url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    server = None
    try:
        t0 = time.perf_counter()
        plates = build_database(url, args.vehicles)
        print(f"loaded {args.vehicles:,} vehicles with holders and licences into one town "
              f"in {time.perf_counter() - t0:.1f} s ({url})")
        server = Server({"DATABASE_URL": url, "SECRET_KEY": "bench-" + os.urandom(8).hex(),
                         "LOG_LEVEL": "WARNING"}, workers=args.workers)
        client = Client(server.port)
        client.sign_in("admin.bench", PASSWORD)
        rng = random.Random(11)
        hx = {"HX-Request": "true", "Accept": "text/html"}

        by_length: dict[int, list[float]] = {}

        def search() -> float:
            prefix = rng.choice(plates)[:rng.choice((2, 3, 4, 5))]  # as a plate is typed
            status, body, took = client.request("GET", f"/cadastro/veiculos?q={prefix}",
                                                headers=hx)
            if status != 200 or prefix not in body:
                raise SystemExit(f"plate search for {prefix!r} answered {status} "
                                 "without that plate: is the route there?")
            by_length.setdefault(len(prefix), []).append(took)
            return took

        def trivial() -> float:
            status, _, took = client.request("GET", "/healthz")
            if status != 200:
                raise SystemExit(f"/healthz answered {status}")
            return took

        load_before = os.getloadavg()
        for _ in range(args.warmup):
            search(), trivial()
        by_length.clear()
        times = {"search": [], "healthz": []}
        for i in range(args.rounds):  # interleaved, alternating order: same conditions
            pair = (("search", search), ("healthz", trivial))
            for name, fn in (pair if i % 2 else pair[::-1]):
                times[name].append(fn())
        load_after = os.getloadavg()
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    p90 = {k: pct(v, 90) * 1000 for k, v in times.items()}
    print(f"machine: {machine()}; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after")
    print(f"server: gunicorn, {args.workers} sync workers, SQLite; one client, "
          f"{args.rounds} measured requests per route after {args.warmup} warm-up each")
    print(f"{'route':<44}{'median ms':>10}{'p90 ms':>10}")
    print(f"{'GET /cadastro/veiculos?q=<prefix> (htmx)':<44}{med['search']:>10.2f}"
          f"{p90['search']:>10.2f}")
    print(f"{'GET /healthz':<44}{med['healthz']:>10.2f}{p90['healthz']:>10.2f}")
    for length, values in sorted(by_length.items()):
        print(f"  {length}-character prefixes: median {statistics.median(values) * 1000:.2f} ms "
              f"({len(values)} requests)")
    ratio = med["search"] / med["healthz"]
    print(f"ratio search/healthz: median {ratio:.2f}x, p90 {p90['search'] / p90['healthz']:.2f}x "
          f"(goal: median at most 2x) -> {'met' if ratio <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
