"""When the shared store for rate limits (RATELIMIT_STORAGE_URI=redis://...) stops answering,
sign-in still works and is still limited, counted by each process alone until the store is
back (config: RATELIMIT_IN_MEMORY_FALLBACK_ENABLED); never a 500, never a wait of more than
a moment (extensions.STORE_TIMEOUT). Then the counts are shared again.

- In one process, a store nobody listens on (SQLite and PostgreSQL).
- With real processes, the two app servers of conftest.py (PostgreSQL only) while their Redis
  stops, starts again, freezes and thaws.
"""
from __future__ import annotations

import http.client
import json
import re
import time
import uuid
from urllib.parse import urlencode

from inspector import create_app
from inspector.extensions import db, limiter
from tests import factories
from tests.multinode import nodes
from tests.multinode.nodes import Node, anonymous, needs_postgresql, on
from tests.support.config import app_config
from tests.support.field_api import LiveClient, body
from tests.support.localstack import free_port

_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')
LOGIN_LIMIT = 10  # config.defaults: LOGIN_RATE_LIMIT "10 per minute;50 per hour"
WAIT = 3.0  # seconds an answer may take while the store is away (it is waited on 0.5 s at most)
BACK = 75.0  # Flask-Limiter tries a dead store again after 1, 2, 4 ... 32 s, then from 1 again


def test_sign_in_is_limited_in_memory_while_redis_is_unreachable(schema, make, tmp_path):
    user = make(factories.user, "agent", "tapurah")
    nobody = f"redis://127.0.0.1:{free_port()}"  # nothing listens there
    app = create_app(app_config(schema) | {"RATELIMIT_STORAGE_URI": nobody,
                                           "EVIDENCE_DIR": str(tmp_path / "evidence")})
    client = app.test_client()
    try:
        token = _TOKEN.search(client.get("/entrar").get_data(as_text=True)).group(1)
        statuses = [client.post("/entrar", data={"username": user.username,
                                                 "password": "errada",
                                                 "csrf_token": token}).status_code
                    for _ in range(LOGIN_LIMIT + 1)]
        assert statuses == [401] * LOGIN_LIMIT + [429]
        r = client.post("/entrar", data={"username": user.username,
                                         "password": factories.PASSWORD, "csrf_token": token})
        assert r.status_code == 429 and "Muitas tentativas" in r.get_data(as_text=True)
    finally:
        # the Limiter is one object per process: the next test's app must not inherit the
        # dead store's flag and this test's in-memory counts
        limiter._storage_dead = False
        limiter._fallback_storage.reset()
        with app.app_context():
            db.engine.dispose()


def _timed(node: Node, method: str, path: str, data: bytes | None = None, headers=None):
    """One request on a new connection: (status, seconds, headers); status None when no
    answer came within 15 s."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=15)
    try:
        conn.request(method, path, body=data, headers=headers or {})
        r = conn.getresponse()
        r.read()
        return r.status, time.monotonic() - started, dict(r.getheaders())
    except OSError:
        return None, time.monotonic() - started, {}
    finally:
        conn.close()


def _round(cluster, phone: LiveClient, vehicle_id: int) -> dict:
    """What people do on both servers: the health check, a public page under a limit (open
    data), the phone's session and a sync of an inspection, the sign-in page. Each answer as
    (status, seconds)."""
    answers = {}
    cookie = {"Cookie": phone.cookie}
    sync = {"Content-Type": "application/json", "X-CSRFToken": phone.csrf}
    for node in (cluster["a"], cluster["b"]):
        answers[f"{node.name} /healthz"] = _timed(node, "GET", "/healthz")
        answers[f"{node.name} /transparencia"] = _timed(node, "GET", "/transparencia")
        answers[f"{node.name} session"] = _timed(node, "GET", "/api/field/session", None, cookie)
        answers[f"{node.name} sync"] = _timed(
            node, "PUT", f"/api/field/inspections/{uuid.uuid4()}",
            json.dumps(body(vehicle_id)).encode(), cookie | sync)
        answers[f"{node.name} /entrar"] = _timed(node, "GET", "/entrar")
    return {k: v[:2] for k, v in answers.items()}


def _answered(answers: dict) -> bool:
    return all(s is not None and s < 500 and t < WAIT for s, t in answers.values())


def _attempt(browser: LiveClient, node: Node, token: str, username: str,
             password: str = "errada-000") -> int:
    return on(browser, node).request(
        "POST", "/entrar", urlencode({"username": username, "password": password,
                                      "csrf_token": token}).encode(),
        {"Content-Type": "application/x-www-form-urlencoded"})[0]


def _shared_again(cluster, store) -> float:
    """Seconds until both servers count in Redis again: a limited page opened on A then on B
    leaves 2 in each of the store's counters of it, and B's X-RateLimit-Remaining is one below
    A's."""
    a, b = cluster["a"], cluster["b"]
    started, seen = time.monotonic(), None
    while time.monotonic() - started < BACK:
        store.flushall()
        _, _, ha = _timed(a, "GET", "/transparencia")
        _, _, hb = _timed(b, "GET", "/transparencia")
        counts = [int(store.get(k)) for k in store.scan_iter("LIMITS:*open_data*")]
        seen = (counts, ha.get("X-RateLimit-Remaining"), hb.get("X-RateLimit-Remaining"))
        if counts and all(c == 2 for c in counts) and int(seen[2]) == int(seen[1]) - 1:
            return time.monotonic() - started
        time.sleep(0.5)
    raise AssertionError(f"limits not shared {BACK:.0f} s after Redis came back: {seen}")


def _login_limit_counts_across_both(cluster, store, username: str) -> None:
    """N wrong passwords spread over A and B, then the next is refused on both (429), the
    right password too: one count, in the shared store."""
    a, b = cluster["a"], cluster["b"]
    store.flushall()
    browser = anonymous(a)
    token = _TOKEN.search(browser.request("GET", "/entrar")[2].decode()).group(1)
    statuses = [_attempt(browser, a if i % 2 else b, token, username)
                for i in range(LOGIN_LIMIT)]
    assert statuses == [401] * LOGIN_LIMIT
    assert _attempt(browser, a, token, username) == 429
    assert _attempt(browser, b, token, username) == 429
    assert _attempt(browser, b, token, username, factories.PASSWORD) == 429


@needs_postgresql
def test_redis_stopped_and_frozen_under_two_servers_then_back(cluster):
    """Redis stops while both servers run: every request still gets its answer in a moment
    (no 5xx; a sync is stored), sign-in is still limited, by each server alone (in memory, as
    designed). Redis starts again: both servers count in it again and a login limit counts
    across both. Then Redis freezes (SIGSTOP: connections accepted, nothing answered, as a
    hung store or a network that drops packets): answers still come within WAIT s (redis-py's
    default, no timeout, hung them); thawed, the limits are shared again."""
    a, b, app, redis_server = cluster["a"], cluster["b"], cluster["app"], cluster["redis_server"]
    user = nodes.make(app, factories.user, "agent", "tapurah")
    agent = nodes.make(app, factories.user, "agent", "tapurah")
    vehicle = nodes.moto(app)
    phone = LiveClient(f"http://127.0.0.1:{a.port}", agent.username)  # signed in beforehand
    store = redis_server.client()
    try:
        # 1. stopped
        redis_server.stop()
        answers = _round(cluster, phone, vehicle.id)
        assert _answered(answers), answers
        assert answers["a sync"][0] == 201 and answers["b sync"][0] == 201, answers
        browser = anonymous(a)
        token = _TOKEN.search(browser.request("GET", "/entrar")[2].decode()).group(1)
        statuses = [_attempt(browser, a, token, user.username) for _ in range(LOGIN_LIMIT + 1)]
        assert statuses == [401] * LOGIN_LIMIT + [429]  # still limited, counted by A alone
        assert _attempt(browser, b, token, user.username) == 401  # B has its own count

        # 2. started again, empty, on the same address
        redis_server.start()
        print(f"shared again {_shared_again(cluster, store):.1f} s after Redis started")
        _login_limit_counts_across_both(cluster, store, user.username)

        # 3. frozen
        redis_server.freeze()
        answers = _round(cluster, phone, vehicle.id)
        assert _answered(answers), answers
        assert answers["a sync"][0] == 201 and answers["b sync"][0] == 201, answers
        for node in (a, b):  # each server's own count, from step 1 on: 401 or 429
            assert _attempt(browser, node, token, user.username) in (401, 429)

        # 4. thawed
        redis_server.thaw()
        print(f"shared again {_shared_again(cluster, store):.1f} s after Redis thawed")
        other = nodes.make(app, factories.user, "agent", "tapurah")
        _login_limit_counts_across_both(cluster, store, other.username)
    finally:
        redis_server.thaw()
        if redis_server.proc is None or redis_server.proc.poll() is not None:
            redis_server.start()  # the package's other tests share it...
        store.flushall()  # ...and sign in: this test's wrong passwords are not theirs
        store.close()
