"""The benchmark's trivial upload route exists only when the app is built for the bench."""
from __future__ import annotations

from inspector import create_app
from tests.support.field_api import jpeg


def test_no_bench_route_by_default(client, app):
    assert not app.config["BENCH_ENDPOINTS"]
    assert not any(r.rule.startswith("/_bench") for r in app.url_map.iter_rules())
    assert client.put("/_bench/upload", data=b"x" * 100).status_code == 404


def _bench_app(schema):
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": schema, "SECRET_KEY": "t",
                       "LOG_LEVEL": "WARNING", "BENCH_ENDPOINTS": True})


def test_the_bench_upload_reads_and_discards_the_body(schema):
    answer = _bench_app(schema).test_client().put("/_bench/upload", data=b"\xff" * 300_000,
                                                  content_type="image/jpeg")
    assert answer.status_code == 201 and answer.get_json() == {"received": 300_000}


def test_the_checked_bench_upload_refuses_what_the_sync_refuses(schema):
    """?check=photo runs the sync's whole-photo check alone: bench/field.py's ceiling must
    pay for the same decode the sync pays for, and refuse what it refuses."""
    photo, client = jpeg(size=(320, 240)), _bench_app(schema).test_client()
    whole = client.put("/_bench/upload?check=photo", data=photo, content_type="image/jpeg")
    assert whole.status_code == 201 and whole.get_json() == {"received": len(photo)}
    cut = client.put("/_bench/upload?check=photo", data=photo[: len(photo) // 2],
                     content_type="image/jpeg", headers={"Accept": "application/json"})
    assert cut.status_code == 422 and cut.get_json()["problem"] == "damaged"
    # without the flag the same cut bytes are only counted
    assert client.put("/_bench/upload", data=photo[: len(photo) // 2],
                      content_type="image/jpeg").status_code == 201
