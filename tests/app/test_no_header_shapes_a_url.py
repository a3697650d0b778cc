"""No request header shapes a URL the server writes: every absolute link comes from
PUBLIC_BASE_URL (or, in development and tests, its default), never from the Host header,
which anyone can write. The open data said `"dicionario": "https://evil.example/..."` to a
request with `Host: evil.example`, with `Cache-Control: public`: a cache in between would have
served that link to every citizen."""
from __future__ import annotations

import json

import pytest
from flask import url_for

from inspector import credentials
from inspector.extensions import db
from tests import factories

EVIL = "evil.example"
FORGED = {"Host": EVIL, "X-Forwarded-Host": EVIL, "X-Forwarded-Server": EVIL,
          "X-Original-URL": f"https://{EVIL}/", "Forwarded": f"host={EVIL};proto=https",
          "X-Forwarded-Proto": "https", "X-Forwarded-Prefix": f"//{EVIL}"}
BASE = "https://fiscaliza.tapurah.example.gov.br"


@pytest.fixture
def town(app):
    """Tapurah with a licensed vehicle and its QR credential; the credential's token."""
    app.config["PUBLIC_BASE_URL"] = BASE
    with app.app_context():
        factories.town("tapurah")
        v = factories.vehicle("tapurah", "mototaxi")
        factories.licence(v)
        token = credentials.issue(v, actor="teste").token
        db.session.commit()
        return token


def _no_evil(r, where: str) -> None:
    body = r.get_data()
    assert EVIL.encode() not in body, (where, r.status_code, body[:300])
    for name, value in r.headers.items():
        assert EVIL not in value, (where, name, value)
    assert r.status_code < 500, (where, r.status_code)


def _plain_get_routes(app) -> list[str]:
    """Every GET route without arguments."""
    with app.test_request_context():
        return sorted({url_for(rule.endpoint) for rule in app.url_map.iter_rules()
                       if "GET" in rule.methods and not rule.arguments
                       and not rule.endpoint.startswith(("static", "bench."))})


def test_open_data_links_come_from_public_base_url(client, town):
    r = client.get("/transparencia/dados/tapurah.json", headers=FORGED)
    _no_evil(r, "json")
    assert r.headers["Cache-Control"].startswith("public")
    assert json.loads(r.get_data())["dicionario"] == f"{BASE}/transparencia/dados"
    for dataset in ("frota", "vistorias"):
        _no_evil(client.get(f"/transparencia/dados/tapurah/{dataset}.csv", headers=FORGED),
                 dataset)


def test_no_page_anyone_can_open_carries_the_forged_host(app, client, town):
    for path in _plain_get_routes(app) + [f"/v/{town}", "/transparencia/dados/tapurah.json",
                                          "/nao-existe", "/api/nao-existe"]:
        _no_evil(client.get(path, headers=FORGED), path)


def test_no_page_an_admin_opens_carries_the_forged_host(app, client, make, town):
    client.login(make(factories.user, "admin", "tapurah").username)
    for path in _plain_get_routes(app) + [f"/v/{town}"]:
        _no_evil(client.get(path, headers=FORGED), path)


def test_the_app_never_sends_hsts_itself(client):
    """Strict-Transport-Security is the TLS proxy's (deploy/nginx.conf), so an answer carries
    exactly one: the app adds none, even to a request that came over https."""
    r = client.get("/entrar", headers={"X-Forwarded-Proto": "https"}, base_url="https://localhost")
    assert "Strict-Transport-Security" not in r.headers
