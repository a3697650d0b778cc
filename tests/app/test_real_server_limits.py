"""The real server, started as `make run` starts it (inspector/devserver.py: gunicorn with
inspector/gunicorn_conf.py), holds the limits as configured.

- N login tries per window are N for the whole server: the (N+1)th is refused (429), whatever
  X-Forwarded-For the client writes (TRUSTED_PROXIES is 0: the header is never read). Under
  two gunicorn workers, each counting alone, up to 2N got through.
- What gunicorn answers itself (a request line over 4 KB, a header over 8 KB, 101 headers,
  a request that is not HTTP) carries the same security headers as the application's pages.
- A keep-alive connection is closed by the client, not by gunicorn as a request arrives on it
  (gunicorn_conf.keepalive; bench/keepalive.py shows the requests lost otherwise).
"""
from __future__ import annotations

import http.client
import re
import select
import socket
import time
from pathlib import Path

import pytest

from inspector import gunicorn_conf
from tests import factories
from tests.support.devserver import Browser, devserver

ROOT = Path(__file__).resolve().parents[2]
LOGIN_LIMIT = 10  # config.defaults: LOGIN_RATE_LIMIT "10 per minute;50 per hour"


@pytest.fixture
def real_server(app, schema, tmp_path):
    """The real server on the test database (tests/support/devserver.py)."""
    with devserver(schema, tmp_path) as port:
        yield port


def test_n_login_tries_are_n_for_the_whole_server_whatever_x_forwarded_for_says(
        real_server, make):
    """Eleven wrong passwords, each claiming another address in X-Forwarded-For: ten are
    checked (401), the eleventh is refused (429); so is the right password right after."""
    user = make(factories.user, "agent", "tapurah")
    browser = Browser(real_server)
    token = browser.token()
    statuses = []
    for i in range(LOGIN_LIMIT + 1):
        r = browser.send("POST", "/entrar",
                         {"username": user.username, "password": "errada-000",
                          "csrf_token": token},
                         headers={"X-Forwarded-For": f"203.0.113.{i + 1}",
                                  "X-Real-IP": f"198.51.100.{i + 1}"})
        statuses.append(r.status)
    assert statuses == [401] * LOGIN_LIMIT + [429], statuses
    r = browser.send("POST", "/entrar", {"username": user.username,
                                         "password": factories.PASSWORD, "csrf_token": token})
    assert r.status == 429
    assert "Muitas tentativas" in r.text


SECURITY = {"content-security-policy": "frame-ancestors 'none'",
            "x-content-type-options": "nosniff", "referrer-policy": "same-origin",
            "x-frame-options": "DENY"}


def _raw(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are; the status, headers (lower-case) and body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
            head, sep, body = b"".join(chunks).partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            if sep and length and len(body) >= int(length.group(1)):
                break
    answer = b"".join(chunks)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1."), answer[:200]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


HOSTILE_REQUESTS = {
    "request line over 4 KB": b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    "header over 8 KB": b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
    "101 headers": b"GET / HTTP/1.1\r\nHost: x\r\n"
                   + b"".join(b"X-H%d: v\r\n" % i for i in range(101)) + b"\r\n",
    "not HTTP": b"HELLO THERE\r\n\r\n",
    "bad method": b"G(T / HTTP/1.1\r\nHost: x\r\n\r\n",
    "bad version": b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    "header without a colon": b"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
    "NUL in the path": b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    "bad header name": b"GET / HTTP/1.1\r\nHost: x\r\nX(Y): z\r\n\r\n",
    "two Content-Length": b"POST /entrar HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                          b"Content-Length: 2\r\n\r\nab",
    "unknown transfer coding": b"POST /entrar HTTP/1.1\r\nHost: x\r\n"
                               b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    # these reach the application
    "a long URL under the limit": b"GET /" + b"a" * 4000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    "percent-encoded NUL": b"GET /v/%00 HTTP/1.1\r\nHost: x\r\n\r\n",
    "invalid UTF-8 in the path": b"GET /v/%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n",
}


def test_every_answer_of_the_real_server_carries_the_security_headers(real_server):
    """Whether gunicorn refused the request itself or the application answered it: a 4xx
    (never a 5xx), CSP with frame-ancestors 'none', nosniff, Referrer-Policy, X-Frame-Options."""
    seen = {}
    for name, data in HOSTILE_REQUESTS.items():
        status, headers, body = _raw(real_server, data)
        seen[name] = status
        assert 400 <= status < 500 or (status == 501 and "coding" in name), (name, status)
        for header, value in SECURITY.items():
            assert value in headers.get(header, ""), (name, status, header, headers)
        if status == 400 and "gunicorn" not in headers.get("server", "x"):
            assert "O pedido não pôde ser entendido." in body.decode("utf-8", "replace")
    assert seen["request line over 4 KB"] == 400 and seen["header over 8 KB"] == 431


def test_a_connection_idle_past_gunicorns_default_keep_alive_still_gets_its_answer(real_server):
    """An idle keep-alive connection is still open after 4 s and answers its next request on
    the same socket. With gunicorn's default keep-alive (2 s, looked at once a second) it was
    closed by then, and a request sent as it closed got no answer at all."""
    conn = http.client.HTTPConnection("127.0.0.1", real_server, timeout=10)
    conn.request("GET", "/healthz")
    first = conn.getresponse()
    first.read()
    assert first.status == 200 and not first.will_close
    sock = conn.sock
    time.sleep(4)
    assert not select.select([sock], [], [], 0)[0], "the server closed the idle connection"
    conn.request("GET", "/healthz")  # sent without looking, as a proxy's pooled connection is
    again = conn.getresponse()
    again.read()
    assert again.status == 200 and conn.sock is sock
    conn.close()


def test_gunicorn_keeps_an_idle_connection_longer_than_nginx_in_front_of_it():
    """deploy/nginx.conf's upstream keeps idle connections `keepalive_timeout` (nginx's
    default 60 s when not written): gunicorn must keep them longer, or it closes one just as
    nginx sends a request on it; a photo PUT, its body not buffered (proxy_request_buffering
    off), cannot be resent: the phone would get a 502."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    upstream = re.search(r"upstream\s+inspector\s*\{([^}]*)\}", conf).group(1)
    assert re.search(r"^\s*keepalive\s+\d+;", upstream, re.M), "nginx reuses connections"
    written = re.search(r"^\s*keepalive_timeout\s+(\d+)s?;", upstream, re.M)
    nginx_idle = int(written.group(1)) if written else 60
    assert gunicorn_conf.keepalive > nginx_idle
