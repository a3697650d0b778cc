"""No route answers 5xx to any id or query.

Walks the URL map as tests/app/test_every_route_declares_access.py does and, for every route and method, as an
anonymous visitor and as each role of Tapurah, sends ids no row has (25 digits, past the
database's integer, negative, zero, not a number, unicode digits) and absurd query values
and form fields (pages of twenty digits, `1e400`, dates like 2026-13-45, NUL bytes, 10 KB of
text) under the name of every query argument and form field the views read. Any 5xx fails.
POSTs carry the CSRF token. Rate limits are off meanwhile: a 429 would hide the view.
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

from inspector.extensions import db, limiter
from inspector.models import Role
from tests import factories

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
SKIP = {"static"}

# in place of an <int:...>: too big for any integer column, negative, zero, not numbers
INT_VALUES = ["9" * 25, str(2**31), "0", "-1", "abc", "%C2%B2", "1%00", "%00"]
# in place of any other argument (a token, a document number, a path, a UUID)
TEXT_VALUES = ["9" * 25, "%00", "%FF%FE", "%ED%A0%80", "..%2F..%2Fetc%2Fpasswd", "x" * 3000,
               "00000000-0000-0000-0000-000000000000", "-1"]
# every query argument / form field the views read gets each of these
ABSURD = ["-1", "9" * 25, "1e400", "nan", "abc", "\u00b2", "2026-13-45", "9999-12-31",
          "a\x00b", "\ud800", "x" * 10_000]
# names the views read that the scan below cannot see (read by helpers through a variable)
ALSO = {"page", "pagina", "since", "q", "de", "ate", "on", "agente", "situacao", "tipo",
        "titular", "condutor", "next", "id", "numero", "codigo", "texto", "contato",
        "categoria", "t", "folha"}
_READ = re.compile(r"""(?:request\.(?:args|form|values|files)\.get(?:list)?\(|request\."""
                   r"""(?:args|form|values|files)\[|_(?:int|day|date)_arg\()\s*["']([\w-]+)["']""")


# one field at a time: a view that reads field A first and refuses never reads field B when
# both are absurd; alone, each field its body reads meets these
ALONE = ["9" * 25, "\u00b2"]


def field_names() -> list[str]:
    """Every query argument and form field named in the web layer's source, and ALSO."""
    names = set(ALSO)
    for path in (ROOT / "inspector" / "blueprints").rglob("*.py"):
        names |= set(_READ.findall(path.read_text(encoding="utf-8")))
    return sorted(names)


def own_fields(view) -> list[str]:
    """The names read in the view function's own body."""
    return sorted(set(_READ.findall(inspect.getsource(inspect.unwrap(view)))))


def _placeholder(conv) -> str:
    kind = type(conv).__name__
    if kind == "IntegerConverter":
        return "1"
    if kind == "UUIDConverter":
        return "00000000-0000-4000-8000-000000000001"
    if kind == "AnyConverter":
        return sorted(conv.items)[0]
    return "x"


def _url(rule, value_of) -> str:
    """The rule's path with each <converter:name> replaced by value_of(converter)."""
    def sub(m):
        return value_of(rule._converters[m.group(2)])
    return re.sub(r"<(?:([a-zA-Z_]+)(?:\([^)]*\))?:)?([a-zA-Z_]+)>", sub, rule.rule)


def routes(app) -> list[tuple]:
    """(rule, access, method, the view's own fields) for every route."""
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in SKIP:
            continue
        view = app.view_functions[rule.endpoint]
        access = getattr(view, "access", None)
        for method in sorted(set(rule.methods) & set(METHODS)):
            out.append((rule, access, method, own_fields(view)))
    return out


def requests_for(rule, method, names, fields=True, own=()) -> list[tuple[str, dict | None]]:
    """(url, form) pairs to try on one route: hostile path arguments, then (with `fields`)
    absurd values of every named argument (in the query for GET, in the form otherwise)."""
    out = []
    for i in range(len(INT_VALUES) if rule.arguments else 0):
        def hostile(conv, i=i):
            kind = type(conv).__name__
            if kind == "AnyConverter":
                return sorted(conv.items)[0]
            values = INT_VALUES if kind == "IntegerConverter" else TEXT_VALUES
            return values[i % len(values)]
        out.append((_url(rule, hostile), None))
    base = _url(rule, _placeholder)
    for value in ABSURD if fields else ():
        out.append((base, {name: value for name in names}))
    for name in own if fields else ():
        out += [(base, {name: value}) for value in ALONE]
    return out


def _allowed(access, role: str | None) -> bool:
    if role is None:
        return True  # anonymous: every route (a private one must refuse, never crash)
    if access in ("public", "login"):
        return True
    return isinstance(access, tuple) and role in access


@pytest.fixture
def quick(app, monkeypatch):
    """Limits off for the sweep (each 429 would hide what the view does with the input), and
    secrets checked against light Argon2 hashes (an unknown username at the suite's own cost),
    the holder's code without its 0.5 s floor: the sweep sends a few hundred wrong passwords
    and codes."""
    from argon2 import PasswordHasher

    from inspector.blueprints.notifications import holder

    light = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1).hash("x")
    monkeypatch.setattr(holder, "DUMMY_HASH", light)
    app.config["HOLDER_CODE_MIN_SECONDS"] = 0
    was = limiter.enabled
    limiter.enabled = False
    yield light
    limiter.enabled = was


def _encode(fields: dict) -> str:
    """Form encoding that lets a lone surrogate through as the bytes a client could send."""
    return urlencode(fields, encoding="utf-8", errors="surrogatepass")


def _send(client, method, url, fields, token):
    headers = {"X-CSRFToken": token, "Accept": "text/html"}
    if method == "GET":
        return client.open(url + ("?" + _encode(fields) if fields else ""), method=method,
                           headers=headers)
    body = _encode(dict(fields or {}, csrf_token=token))
    return client.open(url, method=method, data=body, headers=headers,
                       content_type="application/x-www-form-urlencoded")


@pytest.mark.parametrize("role", [None] + [r.value for r in Role])
def test_no_route_answers_5xx_to_hostile_ids_and_queries(app, make, registry_rows_in, quick, role):
    from inspector.models import User

    registry_rows_in("tapurah")     # rows of the signed-in town for lists, searches and forms
    names = field_names()
    client = app.test_client()
    if role is not None:
        user = make(factories.user, role, "tapurah")
        with app.app_context():
            db.session.get(User, user.id).password_hash = quick  # the password is "x"
            db.session.commit()
        assert client.login(user.username, "x").status_code == 302
    token = client.csrf_token("/inicio" if role else "/entrar")
    failures, tried = [], 0
    for rule, access, method, own in routes(app):
        if not _allowed(access, role) or (role and rule.endpoint == "auth.logout"):
            continue
        # anonymous: a private route must refuse before reading anything; its ids are tried
        for url, fields in requests_for(rule, method, names, own=own,
                                        fields=role is not None or access == "public"):
            r = _send(client, method, url, fields, token)
            tried += 1
            if r.status_code >= 500:
                shown = {k: (v[:20] if isinstance(v, str) else v)
                         for k, v in list((fields or {}).items())[:1]}
                failures.append(f"{method} {url[:80]} {shown} -> {r.status_code}")
    assert not failures, f"{len(failures)} of {tried}:\n" + "\n".join(sorted(set(failures))[:80])
    assert tried > 300
