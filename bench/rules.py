"""Benchmark: the rules engine over a town registry of 10,000 moto-taxis, against loading them.

Run with `.venv/bin/python bench/rules.py [--vehicles N] [--rounds N]`. Prints figures;
it is not a test and asserts nothing about speed.

What it does: builds a throwaway SQLite database in a temporary directory, migrates it,
bulk-loads one town (Tapurah, Lei 406/2001) with N moto-taxis: holders (companies and
riders), permits, licences (a few expired or suspended), insurance policies (a few
lapsed) and one rider per vehicle. Then, in each round, in a fresh session:

    load    the ORM rows the compliance check needs (vehicles with licences, permits,
            insurance, riders; holders; drivers), the database alone
    facts   turning those rows into the engine's frozen dataclasses (the adapter)
    engine  `rules.town_report(registry, day)`: caps, quota, shares and every vehicle's
            and driver's violations, pure Python

and prints the medians and the ratio engine / load (the goal is under 0.5) and
(facts + engine) / load.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from _common import load_mototaxi_town


def build_database(url: str, vehicles: int, seed: int = 406) -> None:
    """Migrate and bulk-load one town with `vehicles` moto-taxis and their documents."""
    load_mototaxi_town(url, vehicles, seed)


def measure(url: str, rounds: int) -> list[tuple[float, float, float, int, int]]:
    """(load, facts, engine) seconds per round, plus violation and warning counts."""
    from sqlalchemy import select
    from sqlalchemy.orm import selectinload

    from inspector import create_app, rules
    from inspector.extensions import db
    from inspector.laws import compliance
    from inspector.models import Driver, Holder, Licence, Municipality, Vehicle

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "TESTING": True,
                      "LOG_LEVEL": "WARNING"})
    day = date.today()
    rules.load_all()  # packs load at startup, not per request
    out = []
    with app.app_context():
        for _ in range(rounds):
            db.session.remove()
            t0 = time.perf_counter()
            town = db.session.scalar(select(Municipality).filter_by(slug="tapurah"))
            _ = town.dated_values
            decree_rows = []
            holders = list(db.session.scalars(select(Holder).where(
                Holder.municipality_id == town.id).options(selectinload(Holder.permits))))
            vehicles = list(db.session.scalars(select(Vehicle).where(
                Vehicle.municipality_id == town.id, Vehicle.service == "mototaxi").options(
                selectinload(Vehicle.licences).selectinload(Licence.permit),
                selectinload(Vehicle.insurance_policies), selectinload(Vehicle.drivers),
                selectinload(Vehicle.holder).selectinload(Holder.permits))))
            drivers = list(db.session.scalars(select(Driver).where(
                Driver.municipality_id == town.id)))
            t1 = time.perf_counter()
            registry = rules.Registry(
                town=compliance.town_facts(town, decree_rows), service="mototaxi",
                holders=tuple(rules.HolderFacts(h.id, h.kind.value, h.name) for h in holders),
                vehicles=tuple(compliance.vehicle_facts(v) for v in vehicles),
                drivers=tuple(compliance.driver_facts(d) for d in drivers))
            t2 = time.perf_counter()
            report = rules.town_report(registry, day)
            t3 = time.perf_counter()
            out.append((t1 - t0, t2 - t1, t3 - t2, len(report.violations),
                        len(report.warnings)))
        db.engine.dispose()
    return out


def main() -> None:
    """Build, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="inspector-bench-rules-"))
    url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    try:
        t0 = time.perf_counter()
        build_database(url, args.vehicles)
        print(f"built a registry of {args.vehicles:,} moto-taxis (Tapurah) in "
              f"{time.perf_counter() - t0:.1f} s")
        runs = measure(url, args.rounds)
        load = statistics.median(r[0] for r in runs)
        facts = statistics.median(r[1] for r in runs)
        engine = statistics.median(r[2] for r in runs)
        print(f"median of {args.rounds} rounds: load {load * 1000:.0f} ms, facts "
              f"{facts * 1000:.0f} ms, engine {engine * 1000:.0f} ms "
              f"({runs[-1][3]:,} violations, {runs[-1][4]:,} warnings)")
        print(f"engine / load = {engine / load:.2f}  (goal < 0.5)")
        print(f"(facts + engine) / load = {(facts + engine) / load:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
