"""When the shared store for rate limits (RATELIMIT_STORAGE_URI=redis://...) stops answering,
sign-in still works and is still limited, counted by this process alone until the store is
back (config: RATELIMIT_IN_MEMORY_FALLBACK_ENABLED); never a 500. SQLite and PostgreSQL."""
from __future__ import annotations

import re

from inspector import create_app
from inspector.extensions import db, limiter
from tests import factories
from tests.support.config import app_config
from tests.support.localstack import free_port

_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')
LOGIN_LIMIT = 10  # config.defaults: LOGIN_RATE_LIMIT "10 per minute;50 per hour"


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
