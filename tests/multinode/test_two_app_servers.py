"""Two real app servers behind one deployment, started by conftest.py: two
gunicorn processes, each with its own instance folder, sharing one PostgreSQL database, one S3
bucket (LocalStack), one Redis and the SECRET_KEY. Through HTTP only:

- a session started on A works on B, and signing out on B ends it on A;
- an inspection sent to A and retried on B is stored once (B answers 200, the replay); the
  same PUT sent to both at once, too;
- a photo uploaded through A is served by B (original and gallery rendition) from the bucket;
- a login limit of N tries counts across both: N wrong passwords spread over A and B, the
  next one is refused on either (with memory:// each server counted alone: 2N got through);
- two enforcement ticks started at the same moment in two processes (one per node) do the
  work once (TickState's row lock: inspector/enforcement/tick.py).

Needs PostgreSQL (SQLite is one machine's file): skipped, saying so, without it. CI's
PostgreSQL pass (.ci/run) runs it.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import uuid
from datetime import date, timedelta
from urllib.parse import urlencode

from sqlalchemy import func, select

from inspector import audit, enforcement
from inspector.extensions import db
from inspector.models import AuditEntry, Fine, Inspection, Photo, Sanction, StatusChange
from tests import factories
from tests.multinode.nodes import ROOT, Node, anonymous, make, moto, needs_postgresql, on
from tests.support.enforcement import fleet, inspect, local
from tests.support.field_api import LiveClient, body, jpeg, photos_of, sha

LOGIN_LIMIT = 10  # config.defaults: LOGIN_RATE_LIMIT "10 per minute;50 per hour"
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')

pytestmark = needs_postgresql


def _count(app, model, **where) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model).filter_by(**where))


def test_a_session_started_on_one_server_works_on_the_other(cluster):
    a, b, app = cluster["a"], cluster["b"], cluster["app"]
    agent = make(app, factories.user, "agent", "tapurah")
    phone = LiveClient(f"http://127.0.0.1:{a.port}", agent.username)  # signed in on A
    status, _, payload = on(phone, b).request("GET", "/api/field/session")
    assert status == 200, payload
    assert json.loads(payload)["user"]["username"] == agent.username
    assert phone.request("GET", "/inicio")[0] == 200
    # B's CSRF token (signed with the shared SECRET_KEY, kept in the session) is A's too
    token = json.loads(phone.request("GET", "/api/field/session")[2])["csrf_token"]
    copied = phone.cookie
    status, headers, _ = phone.request(
        "POST", "/sair", urlencode({"csrf_token": token}).encode(),
        {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 302 and headers["Location"].endswith("/entrar")
    phone.cookie = copied  # the cookie as it was before signing out, replayed on A
    status, _, _ = on(phone, a).request("GET", "/api/field/session")
    assert status == 401  # ended on B, so ended on A: the session is a database row


def test_an_inspection_sent_to_one_server_and_retried_on_the_other_is_stored_once(cluster):
    a, b, app = cluster["a"], cluster["b"], cluster["app"]
    agent = make(app, factories.user, "agent", "tapurah")
    v = moto(app)
    p1 = jpeg(31)
    b1 = body(v.id, fail={"tank-sign": [p1]})
    iid, pid = str(uuid.uuid4()), photos_of(b1)[0]["id"]
    path = f"/api/field/inspections/{iid}"
    phone = LiveClient(f"http://127.0.0.1:{a.port}", agent.username)
    status, _, payload = phone.put_json(path, b1)
    assert status == 201, payload
    status, _, payload = on(phone, b).put_json(path, b1)  # A's answer was lost: retried on B
    assert status == 200, payload
    assert _count(app, Inspection, uuid=iid) == 1
    # the same inspection sent to both at the same moment: one stores it, the other replays
    b2 = body(v.id, ok=("general-condition", "mirrors", "tank-sign"))
    iid2 = str(uuid.uuid4())
    path2 = f"/api/field/inspections/{iid2}"
    phones = [LiveClient(f"http://127.0.0.1:{n.port}", agent.username) for n in (a, b)]
    barrier, statuses = threading.Barrier(2), []

    def send(client):
        barrier.wait()
        statuses.append(client.put_json(path2, b2)[0])
    threads = [threading.Thread(target=send, args=(c,)) for c in phones]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(statuses) == [200, 201]
    assert _count(app, Inspection, uuid=iid2) == 1
    # the photo, sent to A then retried on B: one row, one object
    status, _, payload = on(phone, a).put_bytes(f"{path}/photos/{pid}", p1)
    assert status == 201, payload
    status, _, payload = on(phone, b).put_bytes(f"{path}/photos/{pid}", p1)
    assert status == 200 and json.loads(payload)["complete"] is True, payload
    assert _count(app, Photo, uuid=pid) == 1
    with app.app_context():  # the package's other tests' inspections are not counted
        actions = db.session.scalars(select(AuditEntry.action).where(
            AuditEntry.entity_id.in_([iid, iid2, pid]))).all()
        assert actions.count("inspection_received") == 2
        assert actions.count("photo_received") == 1
        assert audit.verify()[1] is None


def test_a_photo_uploaded_through_one_server_is_served_by_the_other(cluster):
    a, b, app, bucket = cluster["a"], cluster["b"], cluster["app"], cluster["bucket"]
    agent = make(app, factories.user, "agent", "tapurah")
    supervisor = make(app, factories.user, "supervisor", "tapurah")
    v = moto(app)
    p1 = jpeg(32, size=(640, 480))
    b1 = body(v.id, fail={"tank-sign": [p1]})
    iid, pid = str(uuid.uuid4()), photos_of(b1)[0]["id"]
    phone = LiveClient(f"http://127.0.0.1:{a.port}", agent.username)
    assert phone.put_json(f"/api/field/inspections/{iid}", b1)[0] == 201
    assert phone.put_bytes(f"/api/field/inspections/{iid}/photos/{pid}", p1)[0] == 201
    keys = [o["Key"] for o in bucket["client"].list_objects_v2(
        Bucket=bucket["name"]).get("Contents", [])]
    assert any(k.endswith(sha(p1)) for k in keys), keys  # in the shared bucket
    with app.app_context():
        photo_id = db.session.scalar(select(Photo.id).where(Photo.sha256 == sha(p1)))
    desk = LiveClient(f"http://127.0.0.1:{b.port}", supervisor.username)  # signed in on B
    status, headers, data = desk.request("GET", f"/revisao/fotos/{photo_id}/original")
    assert status == 200 and data == p1
    status, headers, data = desk.request("GET", f"/revisao/fotos/{photo_id}/mini.jpg")
    assert status == 200 and headers["Content-Type"].startswith("image/jpeg")
    assert data[:3] == b"\xff\xd8\xff"
    assert not any((b.folder / "evidence").rglob("*.pack")), "B kept no local copy"


def test_a_login_limit_counts_across_both_servers(cluster):
    """N wrong passwords spread over A and B: all checked (401); the next try is refused (429)
    on both, the right password too. Counted per client address in Redis."""
    import redis

    a, b, app = cluster["a"], cluster["b"], cluster["app"]
    user = make(app, factories.user, "agent", "tapurah")
    store = redis.Redis.from_url(cluster["redis"])
    store.flushall()  # the other tests' sign-ins counted too
    browser = anonymous(a)
    token = _TOKEN.search(browser.request("GET", "/entrar")[2].decode()).group(1)

    def attempt(node: Node, password: str = "errada-000") -> int:
        return on(browser, node).request(
            "POST", "/entrar", urlencode({"username": user.username, "password": password,
                                          "csrf_token": token}).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"})[0]
    statuses = [attempt(a if i % 2 else b) for i in range(LOGIN_LIMIT)]
    assert statuses == [401] * LOGIN_LIMIT
    assert attempt(a) == 429 and attempt(b) == 429
    assert attempt(b, factories.PASSWORD) == 429
    assert store.dbsize() > 0  # the counts are in the shared store
    store.close()


TICK = """
import json, sys, time
from datetime import datetime
from inspector import create_app, enforcement
from inspector.cli.enforcement import record_fleet_days
app = create_app()
now = datetime.fromisoformat(sys.argv[1])
with app.app_context():
    from inspector.extensions import db
    db.session.execute(db.text("SELECT 1"))  # connected before the start line
    db.session.commit()
    print("ready", flush=True)
    sys.stdin.readline()  # the start line: both nodes are ready
    began = time.time()
    report = enforcement.tick(now)
    print(json.dumps(report.as_dict() | {"fleet_days": record_fleet_days(now), "began": began}))
"""


def test_two_ticks_started_at_the_same_moment_on_two_nodes_do_the_work_once(cluster):
    """A notice confirmed at T0 whose deadline passed: 12 days on, the tick converts it into
    the daily fine (Tapurah Art. 29 § ú). Two processes, each with its node's settings,
    tick at the same wall-clock instant: one converts it, and no piece of work is done twice."""
    a, b, app = cluster["a"], cluster["b"], cluster["app"]
    t0 = local(2026, 3, 2, 10)
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, t0)
        [act] = enforcement.acts_of(insp)
        enforcement.confirm(act, sup, t0 + timedelta(hours=1))
        for _i in range(3):  # registrations not revalidated: cancelled (Nortelândia Art. 8 § ú)
            factories.driver("nortelandia", "autonomo", registration_expiry=date(2026, 1, 1))
        db.session.commit()
        act_id = act.id
    now = (t0 + timedelta(days=12)).isoformat()
    procs = [subprocess.Popen([sys.executable, "-c", TICK, now], cwd=ROOT, env=n.env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for n in (a, b)]
    for p in procs:
        assert p.stdout.readline().strip() == b"ready", p.stderr.read()[-2000:]
    for p in procs:
        p.stdin.write(b"go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    reports = [json.loads(o[0].decode().strip().splitlines()[-1]) for o in outs]
    assert abs(reports[0]["began"] - reports[1]["began"]) < 0.2, reports  # at the same moment
    assert sorted(r["converted"] for r in reports) == [[], [act_id]], reports
    assert sorted(len(r["automatic"]) for r in reports) == [0, 3], reports
    # each phase commits on its own, so the two may share the phases out: never one piece twice
    for key in ("proposed", "converted", "accrued", "reminders", "windows_closed", "effects",
                "lifted", "closed", "automatic"):
        done = reports[0][key] + reports[1][key]
        assert len(done) == len(set(done)), (key, reports)
    days = reports[0]["fleet_days"] + reports[1]["fleet_days"]
    assert len(days) == len(set(days)), reports  # each town's day written by one of them
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Sanction).where(
            Sanction.parent_id == act_id)) == 1
        assert db.session.scalar(select(func.count()).select_from(Fine)) == 1
        actions = db.session.scalars(select(AuditEntry.action)).all()
        assert actions.count("sanction_converted") == 1
        assert db.session.scalar(select(func.count()).select_from(StatusChange)) == 3
        assert audit.verify()[1] is None
