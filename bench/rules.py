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
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build_database(url: str, vehicles: int, seed: int = 406) -> None:
    """Migrate and bulk-load one town with `vehicles` moto-taxis and their documents."""
    import flask_migrate
    from sqlalchemy import insert, select

    from inspector import create_app
    from inspector.extensions import db
    from inspector.models import (DatedValue, Driver, Holder, InsurancePolicy, Licence,
                                  Municipality, Permit, Vehicle)
    from inspector.services.documents import make_cnpj, make_cpf

    rng = random.Random(seed)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench", "TESTING": True,
                      "LOG_LEVEL": "WARNING"})
    today = date.today()
    with app.app_context():
        flask_migrate.upgrade()
        town = Municipality(slug="tapurah", name="Tapurah", ibge_code="5108006",
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
        holder_ids = list(db.session.scalars(select(Holder.id)))
        db.session.execute(insert(Permit), [
            {"municipality_id": town.id, "holder_id": h, "kind": "autorizacao",
             "service": "mototaxi", "number": f"AUT-{i:05d}", "valid_from": date(2024, 1, 1),
             "status": "active"} for i, h in enumerate(holder_ids)])
        db.session.execute(insert(Vehicle), [
            {"municipality_id": town.id, "holder_id": holder_ids[i % companies],
             "service": "mototaxi", "kind": "motorcycle", "plate": f"QB{i:05d}",
             "make_model": "Honda CG 160", "year_of_manufacture": today.year - rng.randint(0, 7),
             "engine_cc": rng.choice([125, 150, 160, 160, 190, 250]), "colour": "Vermelha",
             "prefix": f"{i:05d}", "is_trail": rng.random() < 0.02,
             "last_vistoria_on": today - timedelta(days=rng.randint(0, 240))}
            for i in range(vehicles)])
        vehicle_ids = list(db.session.scalars(select(Vehicle.id)))
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
        driver_ids = list(db.session.scalars(select(Driver.id)))
        from inspector.models import vehicle_drivers
        db.session.execute(insert(vehicle_drivers), [
            {"vehicle_id": v, "driver_id": d} for v, d in zip(vehicle_ids, driver_ids)])
        db.session.commit()
        db.engine.dispose()


def measure(url: str, rounds: int) -> list[tuple[float, float, float, int, int]]:
    """(load, facts, engine) seconds per round, plus violation and warning counts."""
    from sqlalchemy import select
    from sqlalchemy.orm import selectinload

    from inspector import create_app
    from inspector import rules
    from inspector.extensions import db
    from inspector.models import Driver, Holder, Licence, Municipality, Vehicle
    from inspector.services import compliance

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
