"""The field app's shell, manifest and service worker as the server sends them."""
from __future__ import annotations

import json
import re
import shutil

from inspector.blueprints.field import routes
from tests import factories


def test_the_shell_is_the_same_for_everyone_and_names_nobody(client, make):
    anonymous = client.get("/campo")
    agent = make(factories.user, "agent", "tapurah", name="Ana Fiscal de Souza")
    client.login(agent.username)
    signed_in = client.get("/campo")
    assert anonymous.status_code == signed_in.status_code == 200
    assert anonymous.data == signed_in.data  # one cached copy serves every agent
    html = signed_in.get_data(as_text=True)
    assert "Ana Fiscal" not in html and agent.username not in html
    assert "csrf" not in html.lower()  # tokens come from /api/field/session, never the cache
    assert signed_in.headers["Cache-Control"] == "no-cache"
    assert "<script>" not in html and "style=" not in html  # CSP: no inline script or style
    assert 'rel="manifest" href="/manifest.webmanifest"' in html


def test_the_manifest_makes_the_app_installable(client):
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    m = json.loads(r.data)
    assert (m["start_url"], m["scope"], m["display"], m["lang"]) == ("/campo", "/", "standalone",
                                                                    "pt-BR")
    purposes = {(i["sizes"], i["purpose"]) for i in m["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("192x192", "maskable"),
            ("512x512", "maskable")} <= purposes
    for icon in m["icons"]:
        assert client.get(icon["src"]).status_code == 200


def test_the_worker_is_served_for_the_whole_site_with_its_version_and_shell(client):
    r = client.get("/sw.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    assert r.headers["Service-Worker-Allowed"] == "/"
    assert r.headers["Cache-Control"] == "no-cache"
    source = r.get_data(as_text=True)
    version = re.search(r'const VERSION = "([0-9a-f]{16})";', source).group(1)
    shell = json.loads(re.search(r"const PRECACHE_URLS = (\[.*?\]);", source).group(1))
    assert "/campo" in shell and "/static/vendor/zxing_reader.wasm" in shell
    assert not any(u.startswith("/api/") for u in shell)
    for url in shell:
        assert client.get(url).status_code == 200, url
    assert version != "dev"


def test_changing_any_shell_file_makes_a_new_worker_version(client, app, tmp_path, monkeypatch):
    static = tmp_path / "static"
    shutil.copytree(app.static_folder, static)
    monkeypatch.setattr(routes, "_static_dir", lambda: static)
    first = client.get("/sw.js").get_data(as_text=True)
    again = client.get("/sw.js").get_data(as_text=True)
    assert first == again  # nothing changed: the same worker, no needless update
    css = static / "css" / "field.css"
    css.write_text(css.read_text() + "\n/* changed */\n")
    changed = client.get("/sw.js").get_data(as_text=True)
    version = re.compile(r'const VERSION = "([0-9a-f]+)";')
    assert version.search(first).group(1) != version.search(changed).group(1)
