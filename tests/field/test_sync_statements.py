"""How much database work one inspection's sync costs (the sync on
PostgreSQL at least 0.5x of the raw upload of the same bytes, bench/field.py). On
PostgreSQL every statement is a round trip to the server, so the count of statements per
request is what this guards: an inspection sent as the field app sends it (the body, then
its three photos one by one, docs/sync.md §2-3) answers the same as always, and the
statements each request runs may not grow past today's count without someone noticing.
The request that completes the inspection then makes its proposals in a second transaction,
after the evidence is committed: the two are bounded apart.

What is counted: every statement SQLAlchemy sends (the signed-in user's session look-up
included), every connection taken from the pool (with `pool_pre_ping` each costs a
`SELECT 1` round trip on PostgreSQL) and every commit. When a change adds a statement on
purpose, the failure lists the statements: lower nothing, raise the bound and say why in
the commit. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import uuid
from contextlib import contextmanager

from sqlalchemy import event

from inspector.extensions import db
from tests.support.field_api import body, jpeg, photos_of

# Statements per request (docs/figures.md, "Sync"): 12/7/9 on SQLite and 13/8/10 on PostgreSQL
# when this test came, then two to three fewer once a transaction's audit entries were
# written in one insert at its commit. PostgreSQL runs one more wherever the audit chain is
# locked (pg_advisory_xact_lock); SQLite's single writer needs none. With one audit chain per
# town, each commit that writes an entry reads the town chain's head apart from the entry's
# number (SQLite: the log's last number; PostgreSQL: the id's sequence): one more each.
# "proposals": the completing request's second transaction (three failed items, three acts,
# the supervisors told), as the enforcement tick would run it; the town's calendar (closures,
# entered years) is read once for all of them, not once per item and once per act signed on
# the street, and so are the town's values; the inspection is claimed and named by one
# UPDATE … RETURNING and read with its items, vehicle, agent and body in one SELECT, the
# offenders' rows (holder, permits, drivers, licences) in another, and the town's supervisors
# and admins in a third (docs/enforcement.md, "What a proposal costs").
BOUNDS = {
    "sqlite": {"inspection": 11, "photo": 6, "last photo": 7, "proposals": 27},
    "postgresql": {"inspection": 12, "photo": 7, "last photo": 8, "proposals": 28},
}


@contextmanager
def counting(app):
    """Statements, pool check-outs and commits of the requests made inside the block."""
    with app.app_context():
        engine = db.engine
    seen = {"statements": [], "checkouts": 0, "commits": 0, "committed_at": []}

    def statement(conn, cursor, text, params, context, executemany):
        seen["statements"].append(" ".join(text.split())[:160])

    def checkout(*_):
        seen["checkouts"] += 1

    def commit(_conn):
        seen["commits"] += 1
        seen["committed_at"].append(len(seen["statements"]))

    hooks = [(engine, "before_cursor_execute", statement), (engine.pool, "checkout", checkout),
             (engine, "commit", commit)]
    for target, name, fn in hooks:
        event.listen(target, name, fn)
    try:
        yield seen
    finally:
        for target, name, fn in hooks:
            event.remove(target, name, fn)


def _measured(app, request) -> tuple[object, dict]:
    with counting(app) as seen:
        answer = request()
    return answer, seen


def _bounded(kind: str, statements: list[str], bound: int) -> None:
    listing = "\n  ".join(statements)
    assert len(statements) <= bound, (
        f"{kind}: {len(statements)} statements, the bound is {bound}:\n  {listing}")


def _within(kind: str, seen: dict, bound: int, proposals: int | None = None) -> None:
    """One transaction (the evidence) within `bound`; with `proposals`, a second one (the
    completed inspection's proposals) within that."""
    evidence = seen["statements"][:seen["committed_at"][0]] if seen["committed_at"] else []
    _bounded(kind, evidence, bound)
    if proposals is None:
        assert seen["statements"] == evidence, f"{kind}: statements after the commit"
    else:
        _bounded("proposals", seen["statements"][len(evidence):], proposals)
    # one connection per transaction: a check-out more is a ping more; each commit is an
    # fsync of PostgreSQL's log
    transactions = 1 if proposals is None else 2
    assert seen["checkouts"] <= transactions, f"{kind}: {seen['checkouts']} connections taken"
    assert seen["commits"] == transactions, f"{kind}: {seen['commits']} commits"


def test_one_inspection_and_its_photos_sync_within_todays_statements(app, api, moto):
    v = moto()
    with app.app_context():
        bounds = BOUNDS[db.engine.dialect.name]
    pictures = [jpeg(n) for n in (11, 12, 13)]
    b = body(v.id, fail={"tank-sign": [pictures[0]], "mirrors": [pictures[1]],
                         "leg-guard": [pictures[2]]}, ok=("general-condition",))
    iid = str(uuid.uuid4())
    declared = [p["id"] for p in photos_of(b)]
    api.put_inspection(str(uuid.uuid4()), body(v.id))  # warm: the first request's look-ups

    got, seen = _measured(app, lambda: api.put_inspection(iid, b))
    assert got.status_code == 201, got.json
    assert got.json == {"id": iid, "complete": False, "missing_photos": declared,
                        "refused_photos": [], "status": "incomplete",
                        "registry_changed": False}
    _within("inspection", seen, bounds["inspection"])

    for n, (pid, data) in enumerate(zip(declared, pictures)):
        kind = "last photo" if n == len(declared) - 1 else "photo"
        got, seen = _measured(app, lambda pid=pid, data=data: api.put_photo(iid, pid, data))
        assert got.status_code == 201, got.json
        assert got.json == {"id": pid, "inspection": iid, "complete": kind == "last photo",
                            "missing_photos": declared[n + 1:], "refused_photos": [],
                            "status": "awaiting_review" if kind == "last photo"
                            else "incomplete", "registry_changed": False}
        _within(kind, seen, bounds[kind],
                bounds["proposals"] if kind == "last photo" else None)
