"""Benchmark: one record's audit entries in a town log of 200,000, by the (entity, entity_id,
seq) index (migration 0016) vs the OR statements it replaced.

Run with `.venv/bin/python bench/audit_lookups.py [--entries N] [--rounds N]
        [--database-url postgresql+psycopg://user:pw@127.0.0.1:5432/any]`.
Prints figures; it is not a test and asserts nothing about speed.

What it does: builds a throwaway database (SQLite file in a temporary directory, or a new
database on the given PostgreSQL server), migrates it, bulk-loads Tapurah with 2,000
moto-taxis (bench/_common.py) and N audit entries for that town (unique hashes; half about
inspections, the rest about its vehicles, drivers, licences, insurance, holders, permits
and credentials, spread at random, so a vehicle and its records have a few dozen entries
among the town's N). PostgreSQL gets ANALYZE, as autovacuum would within a minute; SQLite
none, as the app never runs one. Then, in one process, for one vehicle, after checking
that each new statement returns the same rows as its baseline (the OR statement as it was
before 0016, rebuilt here), it times in 4 blocks: the baselines with the index dropped (the
schema before 0016), then, with the index created again, the new statements interleaved
with the baselines (what the index alone does for the old statements):

    history, vehicle page   the newest 100 entries about the vehicle, its licences and its
                            insurance (registry/history.py `audit_query`)
    history, driver page    the same for one driver
    registry changes        inspections/records.py `_REGISTRY_CHANGES`: entries about the
                            vehicle and its records after the phone's snapshot version, one
                            day (3,000 entries) and 20,000 entries behind

It prints each one's median and p90 in ms before and after, their ratio (after / before),
the old statement's median with the index, and the plan each engine chose for the new
statements (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN).
"""
from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from _common import load_mototaxi_town, machine, pct, throwaway_database

VEHICLES = 2_000
SHARES = [("inspection", 0.50), ("vehicle", 0.10), ("driver", 0.10), ("licence", 0.12),
          ("insurance", 0.10), ("holder", 0.02), ("permit", 0.02), ("credential", 0.04)]


def load_audit(app, entries: int, seed: int = 16) -> int:
    """Bulk-insert `entries` audit entries for the town; returns its id."""
    from sqlalchemy import insert, select, text

    from inspector.extensions import db
    from inspector.models import (
        AuditEntry,
        Driver,
        Holder,
        InsurancePolicy,
        Licence,
        Municipality,
        Permit,
        Vehicle,
    )

    rng = random.Random(seed)
    with app.app_context():
        town = db.session.scalar(select(Municipality.id))
        pools = {"vehicle": Vehicle, "driver": Driver, "licence": Licence,
                 "insurance": InsurancePolicy, "holder": Holder, "permit": Permit}
        ids = {k: [str(i) for i in db.session.scalars(select(m.id))] for k, m in pools.items()}
        ids["credential"] = [str(i) for i in range(1, VEHICLES * 2)]
        kinds = [k for k, _ in SHARES]
        weights = [w for _, w in SHARES]
        start = datetime(2025, 12, 1, tzinfo=UTC)
        prev = "0" * 64
        batch = []
        for seq in range(1, entries + 1):
            entity = rng.choices(kinds, weights)[0]
            entity_id = (f"{rng.getrandbits(128):032x}" if entity == "inspection"
                         else rng.choice(ids[entity]))
            digest = hashlib.sha256(f"bench-{seq}".encode()).hexdigest()
            batch.append({"seq": seq, "at": start + timedelta(seconds=seq * 150),
                          "actor_id": None, "actor": "bench", "municipality_id": town,
                          "action": f"{entity}_updated", "entity": entity,
                          "entity_id": entity_id, "before": '{"status":"active"}',
                          "after": '{"colour":"Vermelha"}', "prev_hash": prev, "hash": digest})
            prev = digest
            if len(batch) == 10_000:
                db.session.execute(insert(AuditEntry), batch)
                batch = []
        if batch:
            db.session.execute(insert(AuditEntry), batch)
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("ANALYZE"))
        db.engine.dispose()
    return town


def old_history(town: int, subjects: list[tuple[str, int]], limit: int = 100):
    """The history's audit statement before migration 0016: one OR, ordered by seq."""
    from sqlalchemy import and_, or_, select

    from inspector.models import AuditEntry

    return (select(AuditEntry).where(
        AuditEntry.municipality_id == town,
        or_(*[and_(AuditEntry.entity == e, AuditEntry.entity_id == str(i)) for e, i in subjects]))
        .order_by(AuditEntry.seq.desc()).limit(limit))


def old_registry_changes():
    """`_REGISTRY_CHANGES` before migration 0016: one OR over the same conditions."""
    from sqlalchemy import bindparam, or_, select

    from inspector.inspections.records import registry_change_conditions
    from inspector.models import AuditEntry

    a = AuditEntry.__table__.c
    return (select(a.seq, a.at, a.action, a.entity, a.entity_id)
            .where(a.municipality_id == bindparam("town"), a.seq > bindparam("since"),
                   or_(*registry_change_conditions()))
            .order_by(a.seq).limit(50))


def plan(statement, params: dict | None = None) -> str:
    """The engine's plan for a statement, one line per node."""
    from inspector.extensions import db

    compiled = statement.compile(dialect=db.engine.dialect)
    values = {**compiled.params, **(params or {})}
    conn = db.session.connection()
    if db.engine.dialect.name == "sqlite":
        rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}",
                                    tuple(values[k] for k in compiled.positiontup)).all()
        return "\n".join(f"      {r[3]}" for r in rows)
    rows = conn.exec_driver_sql(f"EXPLAIN {compiled}", values).all()
    return "\n".join(f"      {r[0]}" for r in rows)


INDEX = "ix_audit_entries_entity_entity_id_seq"


def timed(calls: dict, rounds: int, warmup: int, times: dict[str, list[float]]) -> None:
    """Interleaved calls of every function, `rounds` measured times each after a warm-up."""
    for r in range(warmup + rounds):
        for name, fn in calls.items():
            t0 = time.perf_counter()
            fn()
            took = time.perf_counter() - t0
            if r >= warmup:
                times.setdefault(name, []).append(took)


def set_index(present: bool) -> None:
    """Create or drop the (entity, entity_id, seq) index: the schema after or before 0016."""
    from sqlalchemy import text

    from inspector.extensions import db

    db.session.commit()
    db.session.execute(text(f"CREATE INDEX {INDEX} ON audit_entries (entity, entity_id, seq)"
                            if present else f"DROP INDEX {INDEX}"))
    db.session.commit()


def main() -> None:
    """Build, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL server to create the bench's database on")
    args = parser.parse_args()
    with throwaway_database(args.database_url) as url:
        t0 = time.perf_counter()
        app = load_mototaxi_town(url, VEHICLES)
        town = load_audit(app, args.entries)
        print(f"loaded {VEHICLES:,} moto-taxis and {args.entries:,} audit entries into one "
              f"town in {time.perf_counter() - t0:.1f} s ({url.split('://')[0]}); {machine()}")
        measure(app, town, args)


def measure(app, town: int, args) -> None:
    """Time the new statements against the old ones on one vehicle and one driver."""
    from sqlalchemy import func, select

    from inspector.extensions import db
    from inspector.inspections.records import _REGISTRY_CHANGES
    from inspector.models import AuditEntry, Vehicle, vehicle_drivers
    from inspector.registry.history import audit_entries, audit_query

    with app.app_context():
        v = db.session.get(Vehicle, VEHICLES // 2)
        subjects = [("vehicle", v.id)] + [("licence", x.id) for x in v.licences]
        subjects += [("insurance", p.id) for p in v.insurance_policies]
        driver = db.session.scalar(select(vehicle_drivers.c.driver_id)
                                   .where(vehicle_drivers.c.vehicle_id == v.id))
        top = db.session.scalar(select(func.max(AuditEntry.seq)))
        old_rc = old_registry_changes()

        def rc_params(behind: int) -> dict:
            return {"vid": v.id, "vid_s": str(v.id), "hid": v.holder_id,
                    "hid_s": str(v.holder_id), "town": town, "since": top - behind}

        def rows(statement, params=None):
            return db.session.execute(statement, params or {}).all()

        def page(records: list) -> tuple:
            return (lambda: [e.id for e in audit_entries(town, records, 100)],
                    lambda: [e.id for e in db.session.scalars(old_history(town, records))])

        cases = {
            "history, vehicle page": page(subjects),
            "history, driver page": page([("driver", driver)]),
            "registry changes, 1 day behind": (
                lambda: rows(_REGISTRY_CHANGES, rc_params(3_000)),
                lambda: rows(old_rc, rc_params(3_000))),
            "registry changes, 20,000 behind": (
                lambda: rows(_REGISTRY_CHANGES, rc_params(20_000)),
                lambda: rows(old_rc, rc_params(20_000))),
        }
        for name, (new, old) in cases.items():
            got, want = new(), old()
            if got != want:
                raise SystemExit(f"{name}: the new statement answers differently "
                                 f"({len(got)} rows vs {len(want)})")
            print(f"{name}: {len(got)} rows")
        # before: the OR statements without the index; then with it; after: the new ones
        times: dict = {}
        blocks = 4
        for _ in range(blocks):
            set_index(False)
            timed({(n, "before"): old for n, (new, old) in cases.items()},
                  args.rounds // blocks, args.warmup, times)
            set_index(True)
            timed({(n, k): fn for n, (new, old) in cases.items()
                   for k, fn in (("after", new), ("old+index", old))},
                  args.rounds // blocks, args.warmup, times)
        print(f"\n{db.engine.dialect.name}, {args.rounds} calls each (in {blocks} blocks without "
              f"and with the index, interleaved within a block), one process, ms per call:")
        print(f"   {'statement':<34}{'before':>8}{'p90':>8}{'after':>8}{'p90':>8}{'ratio':>8}"
              f"   {'OR + index':>10}")
        for name in cases:
            old, new = times[(name, "before")], times[(name, "after")]
            mo, mn = statistics.median(old) * 1000, statistics.median(new) * 1000
            print(f"   {name:<34}{mo:8.2f}{pct(old, 90) * 1000:8.2f}{mn:8.2f}"
                  f"{pct(new, 90) * 1000:8.2f}{mn / mo:8.3f}"
                  f"   {statistics.median(times[(name, 'old+index')]) * 1000:10.2f}")
        print("\nplans of the new statements:")
        print("   history, vehicle page")
        print(plan(*audit_query(town, subjects, 100)))
        print("   registry changes")
        print(plan(_REGISTRY_CHANGES, rc_params(20_000)))
        db.session.remove()
        db.engine.dispose()


if __name__ == "__main__":
    main()
