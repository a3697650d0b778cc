"""The field API behind a real threaded server: answers lost after commit, concurrent
identical requests, photos completing an inspection at once. SQLite and PostgreSQL."""
from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy import select

from inspector import audit
from inspector.extensions import db
from inspector.inspections import records
from inspector.models import AuditEntry, Inspection, InspectionStatus, Photo
from tests import factories
from tests.support.field_api import body, count, jpeg, photos_of


class DropAfterCommit:
    """WSGI middleware: for the first request of each listed (method, path), run the app to
    the end (it commits), then cut the connection before the answer leaves."""

    def __init__(self, inner, targets: set[tuple[str, str]]):
        self.inner, self.targets, self.dropped = inner, set(targets), []

    def __call__(self, environ, start_response):
        key = (environ["REQUEST_METHOD"], environ["PATH_INFO"])
        if key not in self.targets:
            return self.inner(environ, start_response)
        self.targets.discard(key)
        result = self.inner(environ, lambda *a, **k: None)
        b"".join(result)
        if hasattr(result, "close"):
            result.close()
        self.dropped.append(key)
        import socket

        environ["werkzeug.socket"].shutdown(socket.SHUT_RDWR)
        start_response("502 Bad Gateway", [("Content-Length", "0")])
        return [b""]


def _live_setup(make, moto):
    agent = make(factories.user, "agent", "tapurah")
    return agent, moto()


def test_lost_acknowledgement_on_a_real_server(app, live_server, make, moto):
    import http.client

    from tests.support.field_api import LiveClient

    agent, v = _live_setup(make, moto)
    p1 = jpeg(5)
    b = body(v.id, fail={"tank-sign": [p1]})
    iid, pid = str(uuid.uuid4()), photos_of(b)[0]["id"]
    ipath = f"/api/field/inspections/{iid}"
    ppath = f"{ipath}/photos/{pid}"
    client = LiveClient(live_server.url, agent.username)
    app.wsgi_app = drop = DropAfterCommit(app.wsgi_app, {("PUT", ipath), ("PUT", ppath)})
    for send in (lambda: client.put_json(ipath, b), lambda: client.put_bytes(ppath, p1)):
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            send()  # the server committed; the phone saw the network fail
        status, _, payload = send()
        assert status == 200, payload
    assert len(drop.dropped) == 2
    assert json.loads(payload)["complete"] is True
    assert count(app, Inspection) == 1 and count(app, Photo) == 1
    with app.app_context():
        assert records.photo_bytes(db.session.scalar(select(Photo))) == p1


def test_concurrent_identical_puts_make_one_row(app, live_server, make, moto):
    import threading

    from tests.support.field_api import LiveClient

    agent, v = _live_setup(make, moto)
    p1 = jpeg(6)
    b = body(v.id, fail={"tank-sign": [p1]})
    iid, pid = str(uuid.uuid4()), photos_of(b)[0]["id"]
    client = LiveClient(live_server.url, agent.username)
    n = 8

    def together(send) -> list[int]:
        barrier, out = threading.Barrier(n), []

        def run():
            barrier.wait()
            out.append(send()[0])
        threads = [threading.Thread(target=run) for _ in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        return sorted(out)

    ipath = f"/api/field/inspections/{iid}"
    assert together(lambda: client.put_json(ipath, b)) == [200] * (n - 1) + [201]
    assert together(lambda: client.put_bytes(f"{ipath}/photos/{pid}", p1)) == \
        [200] * (n - 1) + [201]
    assert count(app, Inspection) == 1 and count(app, Photo) == 1
    with app.app_context():
        actions = db.session.scalars(select(AuditEntry.action)).all()
        assert actions.count("inspection_received") == 1
        assert actions.count("photo_received") == 1
        assert actions.count("inspection_completed") == 1
        assert audit.verify()[1] is None


def test_photos_arriving_at_once_complete_the_inspection_exactly_once(app, live_server, make,
                                                                      moto):
    import threading

    from tests.support.field_api import LiveClient

    agent, v = _live_setup(make, moto)
    data = [jpeg(20 + i) for i in range(4)]
    b = body(v.id, fail={"tank-sign": data[:2], "mirrors": data[2:]}, ok=("general-condition",))
    iid = str(uuid.uuid4())
    client = LiveClient(live_server.url, agent.username)
    assert client.put_json(f"/api/field/inspections/{iid}", b)[0] == 201
    barrier, answers = threading.Barrier(4), []

    def send(decl, raw):
        barrier.wait()
        answers.append(client.put_bytes(f"/api/field/inspections/{iid}/photos/{decl['id']}",
                                        raw))
    threads = [threading.Thread(target=send, args=pair) for pair in zip(photos_of(b), data)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(a[0] for a in answers) == [201] * 4
    assert sum(json.loads(a[2])["complete"] for a in answers) >= 1
    with app.app_context():
        insp = db.session.scalar(select(Inspection))
        assert insp.status == InspectionStatus.AWAITING_REVIEW
        assert db.session.scalars(select(AuditEntry.action)).all().count(
            "inspection_completed") == 1
