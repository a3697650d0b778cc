"""The benchmark's trivial upload route exists only when the app is built for the bench."""
from __future__ import annotations

from inspector import create_app


def test_no_bench_route_by_default(client, app):
    assert not app.config["BENCH_ENDPOINTS"]
    assert not any(r.rule.startswith("/_bench") for r in app.url_map.iter_rules())
    assert client.put("/_bench/upload", data=b"x" * 100).status_code == 404


def test_the_bench_upload_reads_and_discards_the_body(schema):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": schema, "SECRET_KEY": "t",
                      "LOG_LEVEL": "WARNING", "BENCH_ENDPOINTS": True})
    answer = app.test_client().put("/_bench/upload", data=b"\xff" * 300_000,
                                   content_type="image/jpeg")
    assert answer.status_code == 201 and answer.get_json() == {"received": 300_000}
