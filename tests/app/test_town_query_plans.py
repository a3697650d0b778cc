"""One deployment for many towns: every query of one town's field snapshot
(full and delta), review queue and passenger page reaches the town's rows through an index,
never by reading a table that holds every town's rows. The plans are the database's own
(EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL with sequential scans priced out, so
that a tiny test table still shows whether an index could serve the query). The figures
with 141 towns are bench/many_towns.py's."""
from __future__ import annotations

import re

from sqlalchemy import event, select

from inspector import audit
from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import Municipality, User, Vehicle
from inspector.registry import records
from tests import factories
from tests.support.enforcement import fleet

# the tables the snapshot sends whole for a town: each read by its municipality_id index
TOWN_WIDE = ("vehicles", "drivers", "holders", "licences", "permits", "insurance_policies",
             "stands", "credentials")


def _town_tables() -> set[str]:
    """Tables whose rows belong to a town: a municipality_id, or a key to such a table."""
    owned: set[str] = set()
    for _ in range(5):
        for t in db.metadata.sorted_tables:
            if t.name != "municipalities" and ("municipality_id" in t.c or any(
                    fk.column.table.name in owned for fk in t.foreign_keys)):
                owned.add(t.name)
    return owned


def _plan(raw, sql: str, params, pg: bool) -> list[str]:
    cur = raw.cursor()
    cur.execute(("EXPLAIN " if pg else "EXPLAIN QUERY PLAN ") + sql, params)
    return [r[0] if pg else r[3] for r in cur.fetchall()]


def _full_scans(sql: str, plan: list[str], big: set[str], pg: bool) -> list[str]:
    names = big | {a for t, a in re.findall(r"\b(\w+) AS (\w+)", sql) if t in big}
    pattern = r"Seq Scan on (\w+)" if pg else r"\bSCAN (\w+)"
    return [m.group(1) for line in plan for m in [re.search(pattern, line)]
            if m and m.group(1) in names]


def test_one_towns_requests_never_read_every_towns_rows(app):
    app.config.update(REVIEW_QUEUE_SIZE=0, VERIFY_CACHE_SIZE=0, COMPLIANCE_SIZE=0)
    with app.app_context():
        tokens = {}
        for slug in ("tapurah", "sapezal"):   # two towns, each with a fleet and its users
            f = fleet(slug, "mototaxi")
            fleet(slug, "mototaxi")
            tokens[slug] = issuing.issue(f["vehicle"], actor="test").token
            issuing.issue(f["vehicle"].drivers[0], actor="test")
            factories.user("agent", slug, username=f"agente.{slug}")
            factories.user("supervisor", slug, username=f"supervisor.{slug}")
        db.session.commit()
        tap = db.session.scalar(select(Municipality.id).filter_by(slug="tapurah"))
        car = db.session.scalar(select(Vehicle).filter_by(municipality_id=tap))
        agent = db.session.scalar(select(User.id).filter_by(username="agente.tapurah"))
        admin = factories.user("admin", "tapurah")
        version = audit.town_version(tap)   # then a change: the delta has something to send
        records.save_vehicle(tap, {"colour": "Azul"}, actor=admin, vehicle=car)
        db.session.commit()
        engine, big = db.engine, _town_tables()
        pg = engine.dialect.name == "postgresql"

    seen: list[tuple[str, str, object]] = []
    where = {"name": ""}

    def grab(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):
            seen.append((where["name"], statement, parameters))

    requests = [("agente.tapurah", "snapshot", "/api/field/snapshot"),
                ("agente.tapurah", "delta", f"/api/field/snapshot?since={version}"),
                ("supervisor.tapurah", "queue", "/revisao"),
                ("supervisor.tapurah", "queue, one agent", f"/revisao?situacao=todas&agente={agent}"),
                (None, "passenger page", f"/v/{tokens['tapurah']}")]
    event.listen(engine, "before_cursor_execute", grab)
    try:
        clients = {}
        for user, name, path in requests:
            if user not in clients:
                clients[user] = app.test_client()
                if user:
                    assert clients[user].login(user).status_code == 302
            client = clients[user]
            where["name"] = name
            assert client.get(path).status_code == 200, name
    finally:
        event.remove(engine, "before_cursor_execute", grab)

    firsts: dict[str, tuple[str, object]] = {}
    for name, sql, params in seen:
        firsts.setdefault(sql, (name, params))
    scans, by_town = [], set()
    raw = engine.raw_connection()
    try:
        if pg:
            raw.cursor().execute("SET enable_seqscan = off")
        for sql, (name, params) in firsts.items():
            plan = _plan(raw, sql, params, pg)
            scans += [f"{name}: {t} <- {' '.join(sql.split())[:120]}"
                      for t in _full_scans(sql, plan, big, pg)]
            text = "\n".join(plan)
            for t in TOWN_WIDE:   # SQLite: SEARCH t USING INDEX x (municipality_id=?)
                if re.search(rf"^SELECT {t}\.id\b.* FROM {t} WHERE {t}\.municipality_id = ",
                             " ".join(sql.split())) and (
                        re.search(rf"SEARCH {t} USING (COVERING )?INDEX \w+ \(municipality_id=",
                                  text) or re.search(rf"Index (Only )?Scan using \w+ on {t}\b"
                                                     rf"[^\n]*\n\s+Index Cond: \(.*municipality_id",
                                                     text)
                        # PostgreSQL may read the same index range through a bitmap
                        or re.search(rf"Bitmap Heap Scan on {t}\b[^\n]*\n(\s+Recheck[^\n]*\n)?"
                                     rf"\s+->\s+Bitmap Index Scan on \w+[^\n]*\n"
                                     rf"\s+Index Cond: \(.*municipality_id", text)):
                    by_town.add(t)
    finally:
        raw.rollback()
        raw.close()
    assert {n for n, _, _ in seen} - {""} == {r[1] for r in requests}   # "": signing in
    assert scans == [], "full scans of tables every town fills:\n" + "\n".join(scans)
    assert by_town == set(TOWN_WIDE)
