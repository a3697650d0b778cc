"""Compression on the wire (inspector/compression.py): the phone downloads the app shell and
the town snapshot compressed, a client that does not ask gets the plain bytes, caches are
told the answer depends on Accept-Encoding, and pages carrying a CSRF token are never
compressed (BREACH)."""
from __future__ import annotations

import gzip
import json

from tests import factories

GZIP = {"Accept-Encoding": "gzip"}
PLAIN = {"Accept-Encoding": "identity"}


def _vary(response) -> set[str]:
    return {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}


def test_htmx_is_sent_gzip_compressed_when_asked_and_plain_when_not(client, app):
    with open(f"{app.static_folder}/vendor/htmx.min.js", "rb") as f:
        original = f.read()
    zipped = client.get("/static/vendor/htmx.min.js", headers=GZIP)
    plain = client.get("/static/vendor/htmx.min.js", headers=PLAIN)
    none = client.get("/static/vendor/htmx.min.js")

    assert zipped.status_code == plain.status_code == none.status_code == 200
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.get_data()) == original
    assert len(zipped.get_data()) < len(original) / 2
    for answer in (plain, none):
        assert "Content-Encoding" not in answer.headers
        assert answer.get_data() == original
    for answer in (zipped, plain, none):
        assert "accept-encoding" in _vary(answer)


def test_etags_differ_by_encoding_and_still_answer_304(client):
    zipped = client.get("/static/vendor/htmx.min.js", headers=GZIP)
    plain = client.get("/static/vendor/htmx.min.js", headers=PLAIN)
    assert zipped.headers["ETag"] and plain.headers["ETag"]
    assert zipped.headers["ETag"] != plain.headers["ETag"]  # two representations, two validators

    again = client.get("/static/vendor/htmx.min.js",
                       headers={**GZIP, "If-None-Match": zipped.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    again = client.get("/static/vendor/htmx.min.js",
                       headers={**PLAIN, "If-None-Match": plain.headers["ETag"]})
    assert again.status_code == 304
    # a cache holding the gzip bytes, revalidating for a client that cannot read gzip,
    # is not told to serve them: it gets the plain bytes
    other = client.get("/static/vendor/htmx.min.js",
                       headers={**PLAIN, "If-None-Match": zipped.headers["ETag"]})
    assert other.status_code == 200 and "Content-Encoding" not in other.headers


def test_a_range_request_gets_plain_bytes(client, app):
    with open(f"{app.static_folder}/vendor/htmx.min.js", "rb") as f:
        original = f.read()
    part = client.get("/static/vendor/htmx.min.js", headers={**GZIP, "Range": "bytes=0-99"})
    assert part.status_code == 206
    assert "Content-Encoding" not in part.headers and part.get_data() == original[:100]


def test_the_snapshot_is_gzip_compressed_when_asked_and_plain_when_not(client, make):
    agent = make(factories.user, "agent", "tapurah")
    make(factories.vehicle, "tapurah", service="mototaxi")
    client.login(agent.username)

    zipped = client.get("/api/field/snapshot", headers=GZIP)
    plain = client.get("/api/field/snapshot", headers=PLAIN)
    assert zipped.status_code == plain.status_code == 200
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Content-Encoding" not in plain.headers
    assert "accept-encoding" in _vary(zipped) and "accept-encoding" in _vary(plain)
    unzipped = json.loads(gzip.decompress(zipped.get_data()))
    as_is = json.loads(plain.get_data())
    assert unzipped["full"] is as_is["full"] is True
    assert [v["plate"] for v in unzipped["vehicles"]] == [v["plate"] for v in as_is["vehicles"]]
    assert len(zipped.get_data()) < len(plain.get_data())


def test_the_field_shell_is_compressed_but_pages_with_a_csrf_token_never_are(client, make):
    shell = client.get("/campo", headers=GZIP)
    assert shell.headers["Content-Encoding"] == "gzip"  # the same bytes for everyone, no token

    # the login page carries a CSRF token and reflects ?next=: BREACH material
    login = client.get("/entrar?next=/campo" + "x" * 1500, headers=GZIP)
    assert login.status_code == 200 and 'name="csrf-token"' in login.get_data(as_text=True)
    assert "Content-Encoding" not in login.headers

    agent = make(factories.user, "agent", "tapurah")
    client.login(agent.username)
    session = client.get("/api/field/session", headers=GZIP)
    assert session.status_code == 200 and session.get_json()["csrf_token"]
    assert "Content-Encoding" not in session.headers


def test_the_service_worker_and_the_decoder_wasm_are_compressed(client):
    for path in ("/sw.js", "/static/vendor/zxing_reader.wasm", "/static/css/field.css",
                 "/static/js/field/app.js"):
        answer = client.get(path, headers=GZIP)
        assert answer.status_code == 200, path
        assert answer.headers.get("Content-Encoding") == "gzip", path
        gzip.decompress(answer.get_data())
    icon = client.get("/static/icons/icon-512.png", headers=GZIP)  # PNG is compressed already
    assert "Content-Encoding" not in icon.headers


def test_a_static_file_is_compressed_once_and_served_alike_after(client, app, monkeypatch):
    """The shell's files are compressed once per encoding: the QR decoder (1 MB) is not
    compressed again for every phone that installs the app."""
    import brotli
    from flask_compress import flask_compress

    calls = []  # each compression of a body, whole or streamed, by encoding
    for name in ("_compress_data", "_compress_chunks"):
        real = getattr(flask_compress, name)
        monkeypatch.setattr(flask_compress, name,
                            lambda *a, real=real: calls.append(a[2]) or real(*a))
    path = "/static/vendor/zxing_reader.wasm"
    with open(f"{app.static_folder}/vendor/zxing_reader.wasm", "rb") as f:
        original = f.read()
    answers = [client.get(p, headers={"Accept-Encoding": "gzip, deflate, br"})
               for p in (path, path, "/static/vendor//zxing_reader.wasm",
                         "/static/vendor/./zxing_reader.wasm")]
    assert calls.count("br") <= 1  # compressed at most once (an earlier test may have done it)
    for answer in answers:
        assert answer.status_code == 200
        assert answer.headers["Content-Encoding"] == "br"
        assert brotli.decompress(answer.get_data()) == original
        assert int(answer.headers["Content-Length"]) == len(answer.get_data())
        assert answer.headers["ETag"] == answers[0].headers["ETag"]
        assert "accept-encoding" in _vary(answer)
    again = client.get(path, headers={"Accept-Encoding": "br",
                                      "If-None-Match": answers[0].headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    gz = client.get(path, headers=GZIP)  # another encoding: its own bytes
    assert gz.headers["Content-Encoding"] == "gzip" and gzip.decompress(gz.get_data()) == original
    kept = {key for key in app.extensions["compressed_static"]
            if key[0] == "vendor/zxing_reader.wasm"}
    assert kept == {("vendor/zxing_reader.wasm", "br"), ("vendor/zxing_reader.wasm", "gzip")}


def test_an_edited_static_file_is_compressed_anew(client, app, tmp_path, monkeypatch):
    """The kept bytes belong to one version of a file (its ETag: mtime and size)."""
    import os

    monkeypatch.setattr(app, "static_folder", str(tmp_path))
    (tmp_path / "css").mkdir()
    target = tmp_path / "css" / "app.css"
    original = b"a{color:blue}" * 200
    target.write_bytes(original)
    first = client.get("/static/css/app.css", headers=GZIP)
    assert gzip.decompress(first.get_data()) == original
    edited = original + b"a{color:red}" * 200
    target.write_bytes(edited)
    mtime = os.stat(target).st_mtime + 5
    os.utime(target, (mtime, mtime))
    second = client.get("/static/css/app.css", headers=GZIP)
    assert gzip.decompress(second.get_data()) == edited
    assert second.headers["ETag"] != first.headers["ETag"]
