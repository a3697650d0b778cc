"""Every 405 says which methods the address takes (`Allow`, RFC 9110 §15.5.6), as HTML for a
person and as JSON for the API alike: a client (or a fuzzer) learns what to send instead of
guessing. The app's own error pages used to drop the header werkzeug sets."""
from __future__ import annotations

from flask import url_for

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "TRACE")


def _addresses(app) -> dict[str, set[str]]:
    """{url: the methods its routes take} for every route (placeholders filled)."""
    out: dict[str, set[str]] = {}
    with app.test_request_context():
        adapter = app.url_map.bind("localhost")
        for rule in app.url_map.iter_rules():
            if rule.endpoint == "static":
                continue
            values = {}
            for name, conv in rule._converters.items():
                kind = type(conv).__name__
                values[name] = (1 if kind == "IntegerConverter" else
                                "00000000-0000-4000-8000-000000000001" if kind == "UUIDConverter"
                                else sorted(conv.items)[0] if kind == "AnyConverter" else "x")
            url = url_for(rule.endpoint, **values)
            out[url] = set(adapter.allowed_methods(url.split("?")[0]))
    return out


def test_every_405_carries_allow_with_the_methods_the_address_takes(app, client):
    seen = 0
    for url, allowed in _addresses(app).items():
        for method in METHODS:
            if method in allowed:
                continue
            for accept in ("text/html", "application/json"):
                r = client.open(url, method=method, headers={"Accept": accept})
                assert r.status_code == 405, (method, url, r.status_code)
                got = {m.strip() for m in r.headers.get("Allow", "").split(",") if m.strip()}
                assert got == allowed, (method, url, got, allowed)
                if url.startswith("/api/") or accept == "application/json":
                    assert r.is_json and r.json["status"] == 405, (method, url)
                seen += 1
    assert seen > 100
