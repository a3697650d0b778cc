"""A rate-limited request is told in Portuguese what happened and when to try again, as a page
or as JSON, never with Flask-Limiter's English ("10 per 1 minute")."""
from __future__ import annotations

import pytest

from inspector.errors import wait_text
from tests import factories

ENGLISH = ("per 1 minute", "per minute", "per 1 hour", "Too Many Requests")


def _burst(client, username: str, n: int, **kw):
    token = client.csrf_token()
    last = None
    for _ in range(n):
        last = client.post("/entrar", data={"username": username, "password": "errada-00000",
                                            "csrf_token": token}, **kw)
    return last


def test_the_eleventh_login_in_a_minute_gets_a_portuguese_page(client, make):
    u = make(factories.user, "agent")
    r = _burst(client, u.username, 11)
    assert r.status_code == 429
    html = r.get_data(as_text=True)
    assert "<h1>Muitas tentativas em pouco tempo. Tente de novo em um minuto.</h1>" in html
    for english in ENGLISH:
        assert english not in html
    assert 0 < int(r.headers["Retry-After"]) <= 61


def test_a_program_gets_the_same_message_as_json(client, make):
    u = make(factories.user, "agent")
    r = _burst(client, u.username, 11, headers={"Accept": "application/json"})
    assert r.status_code == 429
    assert r.json == {"error": "Muitas tentativas em pouco tempo. Tente de novo em um minuto.",
                      "status": 429}


def test_the_wait_is_the_limit_that_was_hit(app, client, make):
    """Past the hourly limit, waiting a minute would not do: the page says the hour."""
    app.config["LOGIN_RATE_LIMIT"] = "100 per minute;3 per hour"
    u = make(factories.user, "agent")
    r = _burst(client, u.username, 4)
    assert r.status_code == 429
    html = r.get_data(as_text=True)
    assert "Muitas tentativas em pouco tempo. Tente de novo em uma hora." in html
    assert "per 1 hour" not in html


@pytest.mark.parametrize("seconds, text", [(5, "em um minuto"), (61, "em um minuto"),
                                           (300, "em 5 minutos"), (3601, "em uma hora"),
                                           (86401, "em 24 horas")])
def test_wait_text(seconds, text):
    assert wait_text(seconds) == text
