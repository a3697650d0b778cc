"""Every review page (GET) only reads: opening the queue, an inspection, its photos, the acts,
the deadlines or the fines writes nothing to the database, not even for an inspection the
sync completed whose proposals are still to be made (the tick makes those)."""
from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest
from flask import url_for
from sqlalchemy import event, func, select
from sqlalchemy.exc import OperationalError

from inspector import enforcement
from inspector.extensions import db
from inspector.models import AuditEntry, Inspection, Sanction, User
from tests.support.field_api import Api, body, jpeg
from tests.support.review import inspection_ids, send_inspection

WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|MERGE|CREATE|DROP|ALTER)\b", re.I)


@pytest.fixture
def reviewed_town(app, town, monkeypatch):
    """Tapurah with a proposed act, a confirmed one (a notice), and an inspection the sync
    completed while the database was held, so that its proposals still wait for the tick."""
    iid = send_inspection(app, town["agent"], town["vehicle_id"],
                          {"mirrors": [jpeg(3)], "tank-sign": [jpeg(4)]})
    insp, acts, photos = inspection_ids(app, iid)
    assert len(acts) >= 2 and photos
    with app.app_context():
        boss = db.session.scalar(select(User).filter_by(username=town["supervisor"]))
        enforcement.confirm(db.session.get(Sanction, acts[0]), boss, datetime.now(UTC))
        db.session.commit()

    def held(*_a, **_kw):
        raise OperationalError("UPDATE inspections", {}, Exception("database is locked"))
    monkeypatch.setattr(enforcement, "propose_pending", held)
    c = app.test_client()
    c.login(town["agent"])
    waiting = str(uuid.uuid4())
    assert Api(c).put_inspection(waiting, body(town["vehicle_id"])).status_code == 201
    monkeypatch.undo()
    with app.app_context():
        left = db.session.scalar(select(Inspection).filter_by(uuid=waiting))
        assert left.completed_at is not None and left.proposed_at is None
    return {"inspection": insp, "act": acts[0], "photo": photos[0], "waiting": left.id}


def _review_urls(app, ids: dict) -> list[str]:
    """Every GET route of the review blueprint, with the records above as its arguments."""
    urls = []
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("review.") or "GET" not in rule.methods:
            continue
        path = rule.rule
        kind = ("photo" if "/fotos/" in path else "act" if "/atos/" in path
                else "inspection" if "/vistorias/" in path else None)
        args = {"ident": ids[kind]} if kind else {}
        if "size" in rule.arguments:
            args["size"] = "mini"
        with app.test_request_context():
            urls.append(url_for(rule.endpoint, **args))
    with app.test_request_context():   # the one whose proposals wait for the tick
        urls.append(url_for("review.inspection", ident=ids["waiting"]))
    return urls


def _counts(app) -> tuple[int, int, int]:
    with app.app_context():
        return (db.session.scalar(select(func.count(AuditEntry.seq))),
                db.session.scalar(select(func.count(Sanction.id))),
                db.session.scalar(select(func.count(Inspection.id))
                                  .where(Inspection.proposed_at.is_not(None))))


def test_no_review_page_writes_to_the_database(app, town, reviewed_town):
    sup = app.test_client()
    sup.login(town["supervisor"])
    urls = _review_urls(app, reviewed_town)
    assert len(urls) >= 12   # queue, inspections, signature, acts, act, deadlines, fines, photos
    before = _counts(app)
    with app.app_context():
        engine = db.engine
    written: list[str] = []

    def statement(conn, cursor, text, params, context, executemany):
        if WRITES.match(text):
            written.append(" ".join(text.split())[:120])

    event.listen(engine, "before_cursor_execute", statement)
    try:
        for url in urls:
            for headers in ({}, {"HX-Request": "true"}):   # the page and its htmx fragment
                r = sup.get(url, headers=headers)
                assert r.status_code == 200, (url, r.status_code)
                assert written == [], (url, written)
    finally:
        event.remove(engine, "before_cursor_execute", statement)
    assert _counts(app) == before  # no audit entry, no act, no inspection claimed
    with app.app_context():
        assert db.session.get(Inspection, reviewed_town["waiting"]).proposed_at is None
