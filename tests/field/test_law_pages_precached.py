"""The law pages in the agent's pocket: the service worker precaches the five law pages and
the style sheets they load, its version covers their rendered bytes (a changed law text makes
a new worker), and the shell stays under its 200 KB gzip goal without the QR decoder's wasm.
The offline opening itself is in tests/browser/field/test_law_pages_offline.py."""
from __future__ import annotations

import dataclasses
import gzip
import json
import re

from inspector import laws

SLUGS = ["nortelandia-lei-030-1998-mototaxi", "nortelandia-lei-127-2009-taxi",
         "nova-santa-helena-lei-535-2013-taxi", "sapezal-lei-060-1998-taxi",
         "tapurah-lei-406-2001-mototaxi"]
VERSION = re.compile(r'const VERSION = "([0-9a-f]{16})";')


def _worker(client) -> tuple[str, list[str]]:
    source = client.get("/sw.js").get_data(as_text=True)
    urls = json.loads(re.search(r"const PRECACHE_URLS = (\[.*?\]);", source).group(1))
    return VERSION.search(source).group(1), urls


def test_the_worker_precaches_every_law_page_and_what_it_loads(client):
    _, urls = _worker(client)
    for slug in SLUGS:
        assert f"/leis/{slug}" in urls
    page = client.get("/leis/tapurah-lei-406-2001-mototaxi").get_data(as_text=True)
    for sheet in re.findall(r'<link rel="stylesheet" href="([^"]+)"', page):
        assert sheet in urls  # offline, the page keeps its look and its :target highlight
    assert "<script" not in page  # nothing else to fetch
    assert 'id="art-15-i"' in page


def test_law_pages_are_sent_compressed_and_the_same_for_everyone(client, make):
    from tests import factories

    anonymous = client.get("/leis/sapezal-lei-060-1998-taxi", headers={"Accept-Encoding": "gzip"})
    assert anonymous.headers["Content-Encoding"] == "gzip"
    agent = make(factories.user, "agent", "tapurah")
    client.login(agent.username)
    signed_in = client.get("/leis/sapezal-lei-060-1998-taxi", headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(signed_in.data) == gzip.decompress(anonymous.data)
    assert b"csrf" not in gzip.decompress(signed_in.data).lower()
    missing = client.get("/leis/nao-existe", headers={"Accept-Encoding": "gzip"})
    assert missing.status_code == 404 and "Content-Encoding" not in missing.headers


def test_a_changed_law_page_makes_a_new_worker(client, monkeypatch):
    before, _ = _worker(client)
    assert _worker(client)[0] == before  # nothing changed: no needless update
    real = laws.law_summary

    def amended(slug):
        summary = real(slug)
        if slug == "tapurah-lei-406-2001-mototaxi":
            summary = dataclasses.replace(summary, title=summary.title + " (texto consolidado)")
        return summary

    monkeypatch.setattr(laws, "law_summary", amended)  # the face both blueprints call
    after, _ = _worker(client)
    assert after != before
    page = client.get("/leis/tapurah-lei-406-2001-mototaxi").get_data(as_text=True)
    assert "(texto consolidado)" in page  # what the new worker will fetch


def test_the_shell_with_the_laws_stays_under_200_kb_gzip_without_the_wasm(client):
    _, urls = _worker(client)
    wire = {}
    for url in ["/sw.js"] + urls:
        r = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert r.status_code == 200, url
        wire[url] = len(r.get_data())
    laws = sum(size for url, size in wire.items() if url.startswith("/leis/"))
    shell = sum(size for url, size in wire.items() if not url.endswith(".wasm"))
    assert laws < 50 * 1024        # five laws, about 37 KB gzip
    assert shell < 200 * 1024      # bench/field.py part 1's goal
