"""Benchmark: one town's requests when the database holds 141 towns.
Prints figures; asserts nothing.

    .venv/bin/python bench/many_towns.py [--vehicles 300] [--inspections 3000] [--copies 100]
        [--towns 140] [--rounds 30] [--database-url postgresql+psycopg://user:pw@127.0.0.1:5432/any]

On a throwaway SQLite database (or a database of its own on the PostgreSQL server given,
dropped at the end) it bulk-loads Tapurah as bench/review.py does (bench/review_data.py: N
moto-taxis, two years of inspections by 12 agents, their acts, notices and fines) plus one
signed QR credential per vehicle, and makes a few registry changes through the services.
Then, twice — with Tapurah alone, and after --towns more towns were added of which --copies
hold a copy of every Tapurah row (registry, users, inspections, items, photos, acts,
notices, audit entries, credentials: together --copies x its data; the other towns hold
nothing yet, as a town being set up) — under gunicorn (2 sync workers) it measures:

- the field snapshot, full (`GET /api/field/snapshot`, as an agent) and the delta after
  the changes (`?since=<version before them>`),
- the supervisor's review queue (`GET /revisao`, default filter, and one agent's),
- the passenger page of one credential (`GET /v/<token>`),
- /healthz (one SELECT 1) for reference,

median and p90 over --rounds requests each after a warm-up, shuffled; per request the
ratio 141 towns / 1 town (goal at most 1.2x), raw and divided by /healthz's ratio (the
machine's drift between the two halves). Before each half, in one process, every SQL
statement those requests run is captured and its plan printed (EXPLAIN QUERY PLAN on
SQLite, EXPLAIN on PostgreSQL); a full scan of a table the other towns fill is flagged.

The copies are made in the database itself (INSERT ... SELECT per table, ids shifted, the
town replaced, globally unique strings made unique), then on PostgreSQL ANALYZE, as
autovacuum would within a minute of such a load; SQLite gets no ANALYZE (the app never
runs one).
"""
from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import time
from datetime import UTC, date, datetime, timedelta

from _common import Client, Server, machine, pct, throwaway_database
from review_data import ADMIN, PASSWORD, SECRET, SUPERVISOR, build

AGENT = "agente00.bench"
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


def town_tables(meta) -> list:
    """The tables whose rows belong to a town: a municipality_id, or a foreign key to such a
    table (inspection items, photos, the vehicle-driver links...), in dependency order. The
    others (municipalities, signing keys) are the deployment's and are never copied."""
    owned: set[str] = set()
    grew = True
    while grew:
        grew = False
        for t in meta.sorted_tables:
            if t.name in owned or t.name == "municipalities":
                continue
            if "municipality_id" in t.c or any(fk.column.table.name in owned
                                               for fk in t.foreign_keys):
                owned.add(t.name)
                grew = True
    return [t for t in meta.sorted_tables if t.name in owned]


# The queue's and the passenger page's rendered views are reused until the town changes
# (render_cache.py): off here, so every request runs its queries, as after a change.
NO_REUSE = {"RATELIMIT_ENABLED": False, "REVIEW_QUEUE_SIZE": 0, "VERIFY_CACHE_SIZE": 0,
            "COMPLIANCE_SIZE": 0}


def app_for(url: str):
    from inspector import create_app

    return create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SECRET, "TESTING": True,
                       "LOG_LEVEL": "WARNING", **NO_REUSE})


def credentials_and_changes(url: str) -> tuple[str, int, list[str]]:
    """One signed credential per vehicle of Tapurah (bulk), then a few registry changes
    through the services. Returns a token, the version before the changes and the changes."""
    from sqlalchemy import insert, select

    from inspector import audit
    from inspector.credentials import issuing, keys
    from inspector.credentials.tokens import encode
    from inspector.extensions import db
    from inspector.models import Credential, Municipality, User, Vehicle
    from inspector.registry import records

    app = app_for(url)
    with app.app_context():
        town = db.session.scalar(select(Municipality).filter_by(slug="tapurah"))
        key = keys.ensure_active_key()
        private = keys.private_key(key)
        expires = date.today() + timedelta(days=issuing.validity_days())
        now = datetime.now(UTC)
        rows, tokens = [], []
        for vid in db.session.scalars(select(Vehicle.id).where(
                Vehicle.municipality_id == town.id).order_by(Vehicle.id)):
            token = encode(private, key.kid, "vehicle", town.ibge_code, vid, expires)
            tokens.append(token)
            rows.append({"municipality_id": town.id, "kind": "vehicle", "vehicle_id": vid,
                         "token": token, "token_hash": issuing.token_hash(token),
                         "kid": key.kid, "issued_at": now, "expires_on": expires})
        db.session.execute(insert(Credential), rows)
        audit.record("bench_loaded", "municipality", town.id, after={"credentials": len(rows)},
                     municipality_id=town.id)
        db.session.commit()
        before = audit.town_version(town.id)
        admin = db.session.scalar(select(User).filter_by(username=ADMIN))
        ids = sorted(db.session.scalars(select(Vehicle.id).where(
            Vehicle.municipality_id == town.id)))
        done = []
        for v in [db.session.get(Vehicle, i) for i in random.Random(18).sample(ids, 4)]:
            records.save_vehicle(town.id, {"colour": "Azul"}, actor=admin, vehicle=v)
            done.append(f"vehicle {v.plate}: colour")
        for v in [db.session.get(Vehicle, i) for i in random.Random(19).sample(ids, 2)]:
            d = v.drivers[0]
            records.change_status(d, "suspended", "Bench: registro suspenso", actor=admin)
            done.append(f"driver {d.registration_number}: suspended")
        db.session.commit()
        db.engine.dispose()
    return tokens[len(tokens) // 2], before, done


# ------------------------------------------------------------------ the other towns
def _unique_strings(table) -> set[str]:
    """String columns unique across the whole table (not per town): they must change."""
    from sqlalchemy import String, UniqueConstraint

    names = {c.name for c in table.columns if c.unique}
    for con in table.constraints:
        if isinstance(con, UniqueConstraint) and len(con.columns) == 1:
            names |= {c.name for c in con.columns}
    for ix in table.indexes:
        if ix.unique and "municipality_id" not in {c.name for c in ix.columns}:
            names |= {c.name for c in ix.columns}
    return {n for n in names if isinstance(table.c[n].type, String)}


def add_towns(url: str, towns: int, copies: int) -> dict[str, int]:
    """`towns` more municipalities; the first `copies` get a copy of every row of Tapurah
    (ids shifted by k * offset, the town replaced, unique strings rewritten in place: fixed-
    length digests keep their length). One INSERT ... SELECT per table and copy."""
    from sqlalchemy import Integer, String, func, insert, literal, select, text

    from inspector.extensions import db
    from inspector.models import Municipality

    app = app_for(url)
    with app.app_context():
        meta = db.metadata
        pg = db.engine.dialect.name == "postgresql"
        tap = db.session.scalar(select(Municipality).filter_by(slug="tapurah"))
        tables = town_tables(meta)
        names = {t.name for t in tables}
        offset = 1
        for t in tables:
            for c in t.primary_key.columns:
                if isinstance(c.type, Integer):
                    offset = max(offset, db.session.scalar(select(func.max(c))) or 0)
            if "seq" in t.c:
                offset = max(offset, db.session.scalar(select(func.max(t.c.seq))) or 0)
        offset = 10 ** len(str(offset))
        new = []
        for k in range(1, towns + 1):
            m = Municipality(slug=f"cidade-{k:03d}", name=f"Cidade {k:03d}",
                             ibge_code=f"59{k:05d}", population_seat=8000,
                             population_interior=3000, fiscal_unit_name="UFM",
                             timezone=tap.timezone)
            db.session.add(m)
            new.append(m)
        db.session.flush()
        counts: dict[str, int] = {}
        for k, m in enumerate(new[:copies], start=1):
            shift = k * offset
            for t in tables:
                cols, exprs, own = [], [], None
                for c in t.columns:
                    if c.name == "municipality_id":
                        e = literal(m.id)
                    elif (c.primary_key and isinstance(c.type, Integer)) or \
                            (c.name == "seq" and c.unique):
                        e, own = c + shift, own if own is not None else c
                    elif c.foreign_keys and next(iter(c.foreign_keys)).column.table.name \
                            in names:
                        e, own = c + shift, own if own is not None else c
                    elif c.name in _unique_strings(t):
                        e = (literal(f"z{k:02x}").concat(func.substr(c, 4, type_=String))
                             if _digest(c) else literal(f"c{k:03d}-").concat(c))
                    else:
                        e = c
                    cols.append(c.name)
                    exprs.append(e.label(c.name))
                q = select(*exprs)
                # Tapurah's own rows only: its town, or (rows without one) the original ids
                q = q.where(t.c.municipality_id == tap.id) if "municipality_id" in t.c \
                    else q.where(own < offset)
                db.session.execute(insert(t).from_select(cols, q))
            if k == 1:
                for t in tables:
                    counts[t.name] = db.session.scalar(select(func.count()).select_from(t))
        db.session.commit()
        if not pg:   # the WAL the copy wrote folded back into the file, as a quiet hour would
            db.session.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
            db.session.commit()
        if pg:
            for t in tables:
                for c in t.primary_key.columns:
                    if isinstance(c.type, Integer) and c.autoincrement:
                        db.session.execute(text(
                            f"SELECT setval(pg_get_serial_sequence('{t.name}', '{c.name}'), "
                            f"COALESCE((SELECT max({c.name}) FROM {t.name}), 0) + 1, false)"))
            db.session.commit()
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("ANALYZE"))
        db.engine.dispose()
    return {name: n // 2 for name, n in counts.items() if n}  # Tapurah's own rows


def _digest(c) -> bool:
    """A fixed-length identifier (hash, uuid): its first 3 characters replaced by "z" and
    the copy's number in hex, its length kept; "z" is no hex digit, so a copy never meets
    an original that happened to start with the same digits."""
    return any(w in c.name for w in ("hash", "uuid", "sha")) or c.name == "token"


# ------------------------------------------------------------------ the plans
def requests(token: str, since: int, agent_id: int) -> dict[str, tuple[str, str]]:
    """name -> (user to sign in as, path)."""
    return {"snapshot (full)": (AGENT, "/api/field/snapshot"),
            "snapshot (delta)": (AGENT, f"/api/field/snapshot?since={since}"),
            "review queue (default)": (SUPERVISOR, "/revisao"),
            "review queue (one agent)": (SUPERVISOR, f"/revisao?agente={agent_id}"
                                         "&situacao=todas&de=&ate="),
            "passenger page": (None, f"/v/{token}")}


def plans(url: str, reqs: dict[str, tuple[str, str]], big: set[str]) -> list[str]:
    """Every statement each request runs (captured in one process), with its plan; returns
    the full scans of `big` tables found."""
    from sqlalchemy import event

    from inspector.extensions import db

    app = app_for(url)
    found: list[str] = []
    with app.app_context():
        engine = db.engine   # the requests below run outside it: each its own context (g)
    if True:
        pg = engine.dialect.name == "postgresql"
        seen: list[tuple[str, object]] = []

        def grab(conn, cursor, statement, parameters, context, executemany):
            if statement.lstrip().upper().startswith(("SELECT", "WITH")) and not executemany:
                seen.append((statement, parameters))

        clients = {}
        for name, (user, path) in reqs.items():
            c = clients.get(user)
            if c is None:
                c = clients[user] = app.test_client()
                if user:
                    page = c.get("/entrar").get_data(as_text=True)
                    c.post("/entrar", data={"username": user, "password": PASSWORD,
                                            "csrf_token": _TOKEN.search(page).group(1)})
            seen.clear()   # the first request: what a worker reads when nothing is cached
            event.listen(engine, "before_cursor_execute", grab)
            try:
                status = c.get(path).status_code
            finally:
                event.remove(engine, "before_cursor_execute", grab)
            firsts: dict[str, object] = {}
            for sql, params in seen:   # in order, repeats (chunks) dropped
                firsts.setdefault(sql, params)
            stmts = list(firsts.items())
            print(f"   {name} (HTTP {status}): {len(seen)} statements, {len(stmts)} distinct")
            raw = engine.raw_connection()
            try:
                cur = raw.cursor()
                for sql, params in stmts:
                    cur.execute(("EXPLAIN " if pg else "EXPLAIN QUERY PLAN ") + sql, params)
                    lines = [r[0] if pg else r[3] for r in cur.fetchall()]
                    scans = full_scans(lines, big | set(aliases(sql, big)), pg)
                    found += [f"{name}: {s}" for s in scans]
                    first = " ".join(sql.split())[:150]
                    print(f"     {'FULL SCAN ' + ', '.join(scans) + ' <- ' if scans else ''}"
                          f"{first}{'...' if len(' '.join(sql.split())) > 150 else ''}")
                    for line in lines:
                        print(f"        {line}")
            finally:
                raw.rollback()
                raw.close()
        engine.dispose()
    return found


def aliases(sql: str, big: set[str]) -> list[str]:
    """The aliases a statement gives to `big` tables ("permits AS hp")."""
    return [a for t, a in re.findall(r"\b(\w+) AS (\w+)", sql) if t in big]


def full_scans(lines: list[str], big: set[str], pg: bool) -> list[str]:
    """The tables of `big` a plan reads whole (SQLite: SCAN <table> [USING INDEX], which is
    still every row; PostgreSQL: Seq Scan, or a full index scan without an index condition
    is not told apart here)."""
    out = []
    for line in lines:
        m = (re.search(r"Seq Scan on (\w+)", line) if pg
             else re.search(r"\bSCAN (\w+)(?! VIRTUAL)", line))
        if m and m.group(1) in big:
            out.append(m.group(1))
    return out


# ------------------------------------------------------------------ the timing
def timed(url: str, reqs: dict[str, tuple[str, str]], rounds: int, warmup: int,
          workers: int) -> dict[str, list[float]]:
    """Each request `rounds` times after `warmup`, all shuffled together, one at a time."""
    with Server({"DATABASE_URL": url, "SECRET_KEY": SECRET, "LOG_LEVEL": "WARNING"},
                workers=workers, config=NO_REUSE,
                extra_args=("--timeout", "300")) as server:
        clients: dict[str | None, Client] = {}
        for user in {u for u, _ in reqs.values()}:
            clients[user] = Client(server.port)
            if user:
                clients[user].sign_in(user, PASSWORD)
        routes = {"GET /healthz": (None, "/healthz"), **reqs}
        for name, (user, path) in routes.items():
            got = clients[user].fetch("GET", path)
            if got.status != 200:
                raise SystemExit(f"{name}: HTTP {got.status}: {got.text[:300]}")
        jobs = [n for n in routes for _ in range(warmup + rounds)]
        random.Random(18).shuffle(jobs)
        done = dict.fromkeys(routes, 0)
        times: dict[str, list[float]] = {n: [] for n in routes}
        for name in jobs:
            user, path = routes[name]
            got = clients[user].fetch("GET", path, headers={"Accept-Encoding": "gzip"})
            if got.status != 200:
                raise SystemExit(f"{name}: HTTP {got.status}")
            done[name] += 1
            if done[name] > warmup:
                times[name].append(got.seconds)
    return times


def main() -> None:
    """Load one town, measure, add the others, measure, print the ratios."""
    from sqlalchemy import select

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vehicles", type=int, default=300)
    ap.add_argument("--inspections", type=int, default=3000)
    ap.add_argument("--towns", type=int, default=140, help="towns added (at most 255)")
    ap.add_argument("--copies", type=int, default=100,
                    help="of those, how many hold a copy of Tapurah's data")
    ap.add_argument("--rounds", type=int, default=30, help="measured requests per route")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    ap.add_argument("--quiet-plans", action="store_true", help="print only the flagged plans")
    ap.add_argument("--database-url", help="a PostgreSQL server URL: the bench creates its own "
                    "database there and drops it afterwards (default: a SQLite file)")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with throwaway_database(args.database_url) as url:
        engine = url.split(":", 1)[0].split("+")[0]
        t0 = time.perf_counter()
        loaded = build(url, args.inspections, args.vehicles, 0)
        token, since, changes = credentials_and_changes(url)
        print(f"loaded Tapurah ({engine}) in {time.perf_counter() - t0:,.1f} s: "
              f"{args.vehicles:,} moto-taxis with a credential each, {len(loaded.agents)} "
              f"agents, {loaded.inspections:,} inspections, {loaded.acts:,} acts, "
              f"{loaded.notices:,} notices; {len(changes)} changes through the services "
              f"after version {since} ({'; '.join(changes)})")
        from inspector.extensions import db
        from inspector.models import User
        with app_for(url).app_context():
            agent_id = db.session.scalar(select(User.id).filter_by(username=AGENT))
            tables = [t.name for t in town_tables(db.metadata)]
            db.engine.dispose()
        reqs = requests(token, since, agent_id)
        big = set(tables)
        halves = {}
        for half in ("1 town", f"{args.towns + 1} towns"):
            if half != "1 town":
                t0 = time.perf_counter()
                rows = add_towns(url, args.towns, args.copies)
                most = sorted(rows.items(), key=lambda x: -x[1])[:6]
                print(f"\nadded {args.towns} towns in {time.perf_counter() - t0:,.1f} s, "
                      f"{args.copies} of them with a copy of Tapurah's {sum(rows.values()):,} "
                      f"rows ({', '.join(f'{n:,} {k}' for k, n in most)}, ...)")
            print(f"\nPlans with {half} ({engine}; every SELECT the requests run, in order, "
                  f"repeats dropped)")
            import contextlib
            import io
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf) if args.quiet_plans else contextlib.nullcontext():
                scans = plans(url, reqs, big)
            print(f"   full scans of town tables: {len(scans)}" +
                  "".join(f"\n     {s}" for s in scans))
            halves[half] = timed(url, reqs, args.rounds, args.warmup, args.workers)
        one, many = halves.values()
        base = statistics.median(many["GET /healthz"]) / statistics.median(one["GET /healthz"])
        print(f"\nTimes under gunicorn ({args.workers} workers, {engine}): {args.rounds} requests "
              f"per route after {args.warmup} warm-up, shuffled, one at a time; ms")
        print(f"   {'request':<28}{'1 town med':>11}{'p90':>8}{str(args.towns + 1) + ' med':>10}{'p90':>8}"
              f"{'ratio':>8}{'/healthz':>10}")
        worst = 0.0
        for name in one:
            a, b = statistics.median(one[name]) * 1000, statistics.median(many[name]) * 1000
            ratio = b / a
            if name != "GET /healthz":
                worst = max(worst, ratio)
            print(f"   {name:<28}{a:>11.1f}{pct(one[name], 90) * 1000:>8.1f}{b:>10.1f}"
                  f"{pct(many[name], 90) * 1000:>8.1f}{ratio:>7.2f}x{ratio / base:>9.2f}x")
        print(f"   goal, every request at most 1.2x with {args.towns + 1} towns: worst "
              f"{worst:.2f}x -> {'met' if worst <= 1.2 else 'NOT met'} ('/healthz' column: "
              f"the ratio divided by /healthz's own, {base:.2f}x, the machine's drift)")
    print(f"\nmachine: {machine()}; load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
