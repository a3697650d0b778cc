"""/sw.js is built once per process and built again when one of its inputs changes: the law
pages are not rendered on every request, yet a changed law text, shell file or worker
source still makes a new worker (a new version the phones pick up)."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from inspector.blueprints.field import routes
from inspector.laws import pages
from inspector.rules import loader, texts

VERSION = re.compile(r'const VERSION = "([0-9a-f]{16})";')
TAPURAH = "tapurah-lei-406-2001-mototaxi"


def _worker(client) -> tuple[str, list[str], str]:
    source = client.get("/sw.js").get_data(as_text=True)
    urls = json.loads(re.search(r"const PRECACHE_URLS = (\[.*?\]);", source).group(1))
    return VERSION.search(source).group(1), urls, source


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """Every law page /sw.js renders, by slug."""
    seen: list[str] = []
    real = routes.render_law

    def counted(slug):
        seen.append(slug)
        return real(slug)

    monkeypatch.setattr(routes, "render_law", counted)
    return seen


def _reload_laws() -> None:
    """What a new process does: read the law texts again and rebuild the pages' data."""
    for cached in (texts.law_texts, pages.law_index, pages.outline):
        cached.cache_clear()


@pytest.fixture
def law_dir(tmp_path, monkeypatch):
    """The shipped law texts, copied where a test may change them (the real ones again after)."""
    copy = tmp_path / "laws"
    shutil.copytree(loader.LAWS_DIR, copy)
    monkeypatch.setattr(loader, "LAWS_DIR", copy)   # laws_dirs() reads it at each call
    _reload_laws()
    yield copy
    monkeypatch.undo()
    _reload_laws()


def test_two_requests_render_the_law_pages_once(client, renders):
    first = _worker(client)
    assert sorted(renders) == sorted(s.slug for s in pages.law_index())  # five, once each
    second = _worker(client)
    assert second == first
    assert len(renders) == 5


def test_a_changed_law_text_makes_a_new_worker(client, renders, law_dir):
    before, urls, _ = _worker(client)
    assert _worker(client)[0] == before and len(renders) == 5
    text = law_dir / f"{TAPURAH}.txt"
    text.write_text(text.read_text(encoding="utf-8").replace(
        "É obrigatório o uso de capacete", "É obrigatório o uso de capacete afivelado", 1),
        encoding="utf-8")
    _reload_laws()                                      # the next process reads the new text
    after, urls_after, _ = _worker(client)
    assert after != before and urls_after == urls
    assert "capacete afivelado" in client.get(f"/leis/{TAPURAH}").get_data(as_text=True)
    assert _worker(client)[0] == after                  # and it is kept again
    assert len(renders) == 10


def test_a_new_or_changed_shell_file_makes_a_new_worker(client, app, renders, tmp_path,
                                                         monkeypatch):
    static = tmp_path / "static"
    shutil.copytree(app.static_folder, static)
    monkeypatch.setattr(routes, "_static_dir", lambda: static)
    before, urls, _ = _worker(client)
    (static / "js" / "field" / "zz-extra.js").write_text("export const extra = 1;\n")
    added, urls_added, _ = _worker(client)
    assert added != before
    assert set(urls_added) - set(urls) == {"/static/js/field/zz-extra.js"}
    card = static / "js" / "field" / "card.js"
    card.write_text(card.read_text() + "\n// changed\n")
    changed = _worker(client)[0]
    assert changed not in (before, added)
    assert _worker(client)[0] == changed


def test_a_changed_worker_source_is_served(client, tmp_path, monkeypatch):
    source = tmp_path / "sw.js"
    shutil.copy(routes.SW_SOURCE, source)
    monkeypatch.setattr(routes, "SW_SOURCE", source)
    before = _worker(client)
    source.write_text(source.read_text() + "\n// a fix in the worker\n")
    after = _worker(client)
    assert after[0] != before[0] and after[2].endswith("// a fix in the worker\n")
