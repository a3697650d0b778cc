"""Walk the URL map: every route declares who may use it, and refuses everyone else.

A route without an access declaration fails the test, so a new view cannot be added
unprotected by accident.
"""
from __future__ import annotations

import uuid

import pytest
from flask import url_for

from inspector.extensions import db
from inspector.models import Role

from .. import factories

SKIP_ENDPOINTS = {"static"}
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _fill(rule) -> dict:
    """Values for a rule's arguments: id 1 (a row of the *other* town), or placeholders."""
    values = {}
    for name, conv in rule._converters.items():
        kind = type(conv).__name__
        if kind == "IntegerConverter":
            values[name] = 1
        elif kind == "UUIDConverter":
            values[name] = uuid.UUID(int=1)
        elif kind == "AnyConverter":
            values[name] = sorted(conv.items)[0]
        else:
            values[name] = "x"
    return values


def _routes(app) -> list:
    """(rule, view, method, url) for every route; built before any request is made."""
    out = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if rule.endpoint in SKIP_ENDPOINTS:
                continue
            view = app.view_functions[rule.endpoint]
            url = url_for(rule.endpoint, **_fill(rule))
            for method in sorted(set(rule.methods) & set(METHODS)):
                out.append((rule, view, method, url))
    return out


def _request(client, method, url, token):
    return client.open(url, method=method, data={"csrf_token": token},
                       headers={"X-CSRFToken": token, "Accept": "text/html"})


@pytest.fixture
def other_town_rows(app):
    """One row of every registry table, all in Sapezal, created first so each has id 1."""
    with app.app_context():
        v = factories.vehicle("sapezal", "taxi")
        d = factories.driver("sapezal", "autonomo", holder=v.holder)
        d.vehicles.append(v)
        p = factories.permit(v.holder, "taxi")
        factories.licence(v, permit_id=p.id)
        factories.insurance(v)
        factories.stand("sapezal")
        factories.user("admin", "sapezal")
        db.session.commit()


def test_every_route_declares_its_access(app):
    missing = sorted({rule.rule for rule, view, _, _ in _routes(app)
                      if not hasattr(view, "access")})
    assert not missing, f"routes without @public/@login_required/@roles_required: {missing}"


def test_anonymous_requests_are_refused_on_every_private_route(app, client, other_town_rows):
    checked = 0
    for rule, view, method, url in _routes(app):
        token = client.csrf_token("/entrar")  # fresh: /sair clears the session
        r = _request(client, method, url, token)
        assert r.status_code < 500, f"{method} {url} -> {r.status_code}"
        if getattr(view, "access", None) == "public":
            continue
        checked += 1
        if r.status_code == 302:
            assert "/entrar" in r.headers["Location"], f"{method} {url} redirects elsewhere"
        else:
            assert r.status_code == 401, f"{method} {url} answered {r.status_code} to anonymous"
    assert checked >= 3


@pytest.mark.parametrize("role", [r.value for r in Role])
def test_wrong_role_is_refused(app, make, other_town_rows, role):
    user = make(factories.user, role, "tapurah")
    client = app.test_client()
    assert client.login(user.username).status_code == 302
    token = client.csrf_token("/inicio")
    for rule, view, method, url in _routes(app):
        access = getattr(view, "access", None)
        if not isinstance(access, tuple) or role in access:
            continue
        r = _request(client, method, url, token)
        assert r.status_code == 403, f"{role}: {method} {url} -> {r.status_code}"


@pytest.mark.parametrize("role", [r.value for r in Role])
def test_another_towns_rows_are_out_of_reach(app, make, other_town_rows, role):
    """A Tapurah user asking for Sapezal's row #1 gets 403/404, never the row or a 5xx."""
    user = make(factories.user, role, "tapurah")
    client = app.test_client()
    client.login(user.username)
    token = client.csrf_token("/inicio")
    for rule, view, method, url in _routes(app):
        access = getattr(view, "access", None)
        if access == "public" or not any(
                type(c).__name__ == "IntegerConverter" for c in rule._converters.values()):
            continue
        if isinstance(access, tuple) and role not in access:
            continue
        r = _request(client, method, url, token)
        assert r.status_code in (403, 404), f"{role}: {method} {url} -> {r.status_code}"
