"""Redirects taken from input go only to this site.

One helper, `security.safe_redirect_target`, decides every redirect whose target comes from
a request or a stored link: the login's `next`, a notification's link. It is tried on the
known bypass corpus, then through the real login form, where the password is checked first:
whatever `next` says, the answer is a redirect to a path of this site, never a 5xx.
"""
from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import quote, unquote, urlsplit

import pytest

from inspector.extensions import db
from inspector.security import MAX_REDIRECT, safe_redirect_target
from tests import factories

HOME = "/inicio"

# Each of these, given as `next`, would send a browser to another site (or run script, or
# break the header) if it were followed as it is.
HOSTILE = [
    "//evil.example", "///evil.example", "/\\evil.example", "\\/evil.example",
    "\\\\evil.example", "/\t/evil.example", "/\n/evil.example", "/\r/evil.example",
    "/\r\nSet-Cookie: a=b", "\t//evil.example", " //evil.example", "/ /evil.example",
    "https://evil.example", "http://evil.example/", "HTTPS://evil.example", "http:evil.example",
    "http:/evil.example", "https:\\\\evil.example", "//user@evil.example", "//evil.example@ok",
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)", "evil.example",
    "inicio", "", "/%09/evil.example", "/%2F%2Fevil.example", "/%2f/evil.example",
    "/%5Cevil.example", "%2F%2Fevil.example", "/%0d%0aSet-Cookie:a=b", "/%00", "/\x00",
    "/\x7f/evil.example", "/\x0b/evil.example", "/\x0c/evil.example", "/\ud800",
    "/" + "a" * MAX_REDIRECT,
]
# A path that looks like a second slash but is a letter: followed only as a path
# (percent-encoded in the Location header), so the browser stays here.
LOOKALIKES = ["/\uff0fevil.example", "/\u2215evil.example", "/\u2044evil.example",
              "/\u29f8evil.example", "/\u3002evil.example", "/\u200b/evil.example"]
# Our own paths, as login_required writes them into `next`.
OURS = ["/inicio", "/cadastro/condutores?q=Jo%C3%A3o+Silva&pagina=2", "/revisao/atos/12",
        "/notificacoes/tapurah/NOT-2026/000001", "/revisao/vistorias/3#ato-4", "/"]


def _same_site(location: str) -> bool:
    parts = urlsplit(location)
    return (not parts.scheme and not parts.netloc and location.startswith("/")
            and not location.startswith("//") and "\\" not in location
            and location.isascii() and location.isprintable() and " " not in location)


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_targets_are_replaced_by_the_default(value):
    assert safe_redirect_target(value, HOME) == HOME


@pytest.mark.parametrize("value", LOOKALIKES)
def test_lookalike_slashes_stay_paths_of_this_site(value):
    got = safe_redirect_target(value, HOME)
    assert _same_site(got), got
    assert got == HOME or got.startswith("/%")


@pytest.mark.parametrize("value", OURS)
def test_our_own_paths_are_followed(value):
    assert safe_redirect_target(value, HOME) == value


@pytest.mark.parametrize("value", [None, 12, b"/inicio", ["/inicio"]])
def test_what_is_not_text_is_refused(value):
    assert safe_redirect_target(value, HOME) == HOME


@pytest.fixture
def user(make, app):
    """An agent whose password hash is Argon2id with light parameters: a hundred logins
    take seconds, not minutes (the hash's own parameters decide the cost of a check)."""
    from argon2 import PasswordHasher

    from inspector.models import User

    made = make(factories.user, "agent", "tapurah")
    with app.app_context():
        db.session.get(User, made.id).password_hash = PasswordHasher(
            time_cost=1, memory_cost=64, parallelism=1).hash(factories.PASSWORD)
        db.session.commit()
    return made


def _login(app, username: str, query: str):
    client = app.test_client()
    token = client.csrf_token("/entrar")
    return client.post(f"/entrar?{query}", data={"username": username,
                                                 "password": factories.PASSWORD,
                                                 "csrf_token": token})


def test_through_the_real_login_every_next_lands_on_this_site(app, user):
    """The password is right, so the login redirects: to `next` when it is one of ours, home
    otherwise; never elsewhere, never a 500 (a `next` with a newline used to answer 500)."""
    app.config["LOGIN_RATE_LIMIT"] = "1000 per minute"
    tried = 0
    for value in HOSTILE + LOOKALIKES + OURS:
        for query in (f"next={quote(value, safe='', errors='surrogatepass')}",
                      "next=" + value.encode("utf-8", "surrogatepass").decode("latin-1")
                      .replace("&", "%26").replace("#", "%23")):
            r = _login(app, user.username, query)
            tried += 1
            if "\x00" in unquote(query):  # refused at the door, before the password is checked
                assert r.status_code == 400 and "NUL" in r.get_data(as_text=True), query
                continue
            assert r.status_code == 302, f"{query!r}: {r.status_code}"
            location = r.headers["Location"]
            assert _same_site(location), f"{query!r} -> {location!r}"
    # raw bytes no browser would send: invalid percent-encoding, a huge value
    for query in ("next=/%E0%A4%A", "next=%", "next=/%ZZ", "next=/%ED%A0%80", "next=/%2500",
                  "next=/" + "%2F" * 20000, "next=" + "/" * 9000, "next=/ok&next=//evil"):
        r = _login(app, user.username, query)
        assert r.status_code == 302 and _same_site(r.headers["Location"]), query[:40]
        tried += 1
    assert tried > 90


def test_our_next_is_kept_through_the_login(app, client, user):
    """A signed-out person who opened a page signs in and lands on it."""
    r = client.get("/cadastro/condutores?q=Jo%C3%A3o&pagina=2")
    assert r.status_code == 302 and "/entrar?next=" in r.headers["Location"]
    r = client.post(r.headers["Location"], data={"username": user.username,
                                                 "password": factories.PASSWORD,
                                                 "csrf_token": client.csrf_token("/entrar")})
    assert r.status_code == 302
    assert r.headers["Location"] == "/cadastro/condutores?q=Jo%C3%A3o&pagina=2"


def test_a_notifications_stored_link_is_followed_only_to_this_site(app, client, user):
    """"Abrir" follows the notification's link through the same helper: a link that is not
    one of ours (a row written by hand, an old version) lands on the list instead."""
    from inspector.models import Notification

    client.login(user.username)
    with app.app_context():
        notes = [Notification(user_id=user.id, title="t", body="b", url=url,
                              kind="review_decided",
                              created_at=datetime.now(UTC))
                 for url in ("/revisao/atos/1", "//evil.example", "/\\evil.example",
                             "https://evil.example")]
        db.session.add_all(notes)
        db.session.commit()
        ids = [n.id for n in notes]
    got = [client.post_form("/notificacoes/ler", {"id": str(i), "abrir": "1"},
                            token_from="/notificacoes").headers["Location"] for i in ids]
    assert got == ["/revisao/atos/1", "/notificacoes", "/notificacoes", "/notificacoes"]
