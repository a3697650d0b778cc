"""N people signed in to the app behind a real server, sending one request each at the same
moment: for the tests that of simultaneous decisions on one object exactly one is taken."""
from __future__ import annotations

import http.client
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode, urlsplit

from inspector.extensions import db
from tests import factories

N = 8
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


class Session:
    """A client of the real server with its session cookie kept by hand (it is Secure, and the
    server is plain http)."""

    def __init__(self, base_url: str):
        parts = urlsplit(base_url)
        self.host, self.port, self.cookie = parts.hostname, parts.port, ""

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> tuple[int, str]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        h = dict(headers or {}) | ({"Cookie": self.cookie} if self.cookie else {})
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        text = r.read().decode()
        for name, value in r.getheaders():
            if name.lower() == "set-cookie" and value.startswith("inspector_session="):
                self.cookie = value.split(";", 1)[0]
        conn.close()
        return r.status, text



class Person(Session):
    """One signed-in browser, the form's CSRF token read from a page."""

    def __init__(self, base_url: str, username: str):
        super().__init__(base_url)
        status, _ = self.post("/entrar", {"username": username, "password": factories.PASSWORD},
                              token_from="/entrar")
        assert status == 302, status

    def token(self, path: str) -> str:
        status, page = self.request("GET", path)
        assert status == 200, (path, status)
        return _TOKEN.search(page).group(1)

    def post(self, path: str, form: dict, *, token_from: str = "/inicio") -> tuple[int, str]:
        data = dict(form) | {"csrf_token": self.token(token_from)}
        return self.request("POST", path, urlencode(data).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})


def people(live_server, app, role: str, town: str) -> list[Person]:
    """N people of `role` in `town`, each signed in as themselves."""
    with app.app_context():
        names = [factories.user(role, town, name=f"{role.title()} {i}").username
                 for i in range(N)]
        db.session.commit()
    return [Person(live_server.url, name) for name in names]


def at_once(requests: list[tuple[Person, str, dict]]) -> list[tuple[int, str]]:
    """Send every request at the same moment (each thread waits for all to be ready)."""
    start = threading.Barrier(len(requests))
    prepared = [(p, path, form | {"csrf_token": p.token("/inicio")}) for p, path, form in requests]

    def send(item):
        person, path, form = item
        start.wait()
        return person.request("POST", path, urlencode(form).encode(),
                              {"Content-Type": "application/x-www-form-urlencoded"})

    with ThreadPoolExecutor(len(prepared)) as pool:
        return list(pool.map(send, prepared))


def one_winner(answers: list[tuple[int, str]], *, won=(303,), lost=(409,)) -> str:
    """Exactly one answer is a success, every other one a refusal; the refusals' text."""
    codes = sorted(status for status, _ in answers)
    assert sum(1 for c in codes if c in won) == 1, codes
    assert all(c in won or c in lost for c in codes), codes
    return next(body for status, body in answers if status in lost)
