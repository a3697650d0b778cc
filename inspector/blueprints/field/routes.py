"""The field app shell (/campo), the web app manifest and the service worker (/sw.js).

All three are public and carry no personal data: the service worker precaches them so
the app opens with no network. Who is signed in is asked by the page's JavaScript
(`GET /api/field/session`), never rendered into the shell.

The precache also holds the five law pages (`/leis/<law>`, with the two style sheets they
load), so the citation of a checklist item opens its article offline: about 37 KB gzip for
all five (all towns' phones get all five: they are public, and the worker is the same for
everyone). Their rendered bytes are part of the version: a changed law text or rule pack
makes a new worker, which fetches the new pages.

The browser asks for /sw.js on every visit, so the worker's source (version and precache
list written in) is built once per process and kept while a cheap fingerprint of its inputs
holds (`_worker_inputs`): the shell's static files, the worker's source, the pack and law
files (name, mtime, size), the templates as Jinja holds them (a reloaded one is a new
object), the law pages' data as `law_pages` holds it (outline and summary of each law: new
objects when reloaded), the URL prefix, and the functions that compute it all. Any change
builds it again; otherwise no law page is rendered.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from flask import Blueprint, Response, current_app, render_template, request, url_for

from inspector import laws
from inspector.blueprints.laws.routes import render_law
from inspector.rules import LAWS_DIR, PACKS_DIR
from inspector.security import public

bp = Blueprint("field", __name__)

THEME = "#0b3d2e"
BACKGROUND = "#0b3d2e"
VENDOR = ("htmx.min.js", "idb.umd.js", "barcode-detector.js", "zxing_reader.wasm")
SHARED_JS = ["js/push.js"]  # "Ativar notificações", shared with the pages
LAW_CSS = ["css/app.css", "css/laws.css"]  # what a law page loads (it has no script)
ICONS = ("icon-192.png", "icon-512.png", "icon-maskable-192.png", "icon-maskable-512.png")
SW_SOURCE = Path(__file__).resolve().parents[3] / "service_worker" / "sw.js"
_VERSION_MARK = '/*@VERSION*/"dev"'
_PRECACHE_MARK = "/*@PRECACHE*/[]"
_TEMPLATES = ("field/app.html", "field/offline.html", "laws/law.html", "laws/_layout.html")


def _static_dir() -> Path:
    return Path(current_app.static_folder)


def _static_files() -> list[str]:
    """Every static file of the shell, as paths relative to static/ (sorted, stable)."""
    root = _static_dir()
    js = sorted(p.relative_to(root).as_posix() for p in (root / "js" / "field").glob("*.js"))
    return (["css/field.css"] + js + SHARED_JS + LAW_CSS
            + [f"vendor/{name}" for name in VENDOR] + [f"icons/{name}" for name in ICONS])


def _law_slugs() -> list[str]:
    return [law.slug for law in laws.law_index()]


def precache_urls() -> list[str]:
    """The URLs the service worker stores at install: the whole app shell and the law pages."""
    return (["/campo", url_for("field.offline"), url_for("field.manifest")]
            + [url_for("laws.law", law_slug=slug) for slug in _law_slugs()]
            + [url_for("static", filename=name) for name in _static_files()])


def shell_version() -> str:
    """A short hash of every precached byte: any change of an asset makes a new worker."""
    h = hashlib.sha256()
    h.update(_shell_html().encode())
    h.update(_offline_html().encode())
    h.update(_manifest_json().encode())
    h.update(SW_SOURCE.read_bytes())
    h.update(_static_digest().encode())
    h.update(_laws_digest().encode())
    return h.hexdigest()[:16]


def _laws_digest() -> str:
    """SHA-256 over the law pages as they are served (text and what each article enforces)."""
    h = hashlib.sha256()
    for slug in _law_slugs():
        h.update(slug.encode() + b"\0")
        h.update((render_law(slug) or "<missing>").encode())
    return h.hexdigest()


def _stats(root: Path, names: list[str]) -> tuple:
    """(name, mtime, size) of each file: a changed, added or removed file changes it."""
    out = []
    for name in names:
        try:
            st = (root / name).stat()
            out.append((name, st.st_mtime_ns, st.st_size))
        except FileNotFoundError:
            out.append((name, None, None))
    return tuple(out)


def _static_digest() -> str:
    """SHA-256 over the shell's static files (the wasm alone is over 1 MB): read only when the
    worker's source is built again (`worker_source`), which a changed file's stats trigger."""
    root = _static_dir()
    h = hashlib.sha256()
    for name in _static_files():
        path = root / name
        h.update(name.encode() + b"\0")
        h.update(path.read_bytes() if path.exists() else b"<missing>")
    return h.hexdigest()


def _shell_html() -> str:
    return render_template("field/app.html", theme=THEME)


def _offline_html() -> str:
    return render_template("field/offline.html", theme=THEME)


def _manifest_json() -> str:
    icons = []
    for size in (192, 512):
        icons.append({"src": url_for("static", filename=f"icons/icon-{size}.png"),
                      "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any"})
        icons.append({"src": url_for("static", filename=f"icons/icon-maskable-{size}.png"),
                      "sizes": f"{size}x{size}", "type": "image/png", "purpose": "maskable"})
    manifest = {
        "id": "/campo",
        "name": "Inspector — Fiscalização em campo",
        "short_name": "Fiscalização",
        "description": "Vistoria de táxis e mototáxis, com ou sem internet.",
        "lang": "pt-BR",
        "dir": "ltr",
        "start_url": "/campo",
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "theme_color": THEME,
        "background_color": BACKGROUND,
        "icons": icons,
    }
    return json.dumps(manifest, ensure_ascii=False, indent=1)


@bp.get("/campo")
@public
def shell():
    """The field app shell: static HTML, the same for everyone, opened offline from cache."""
    response = Response(_shell_html(), mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/campo/sem-internet")
@public
def offline():
    """What the service worker shows for a page of the site it cannot reach offline."""
    response = Response(_offline_html(), mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/manifest.webmanifest")
@public
def manifest():
    """The web app manifest that makes /campo installable."""
    response = Response(_manifest_json(), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


def _worker_inputs() -> tuple[tuple, tuple]:
    """(fingerprint, objects): what the worker's source is computed from, cheaply (stats and
    cached objects, nothing rendered). The objects are kept with the built source, so the
    ids in the fingerprint cannot be reused by others while it is kept."""
    env = current_app.jinja_env
    slugs = _law_slugs()
    objects = (shell_version, precache_urls, render_law,
               *(env.get_template(name) for name in _TEMPLATES),
               *(x for slug in slugs for x in (laws.outline(slug), laws.law_summary(slug))))
    law_files = ([f"packs/{p.name}" for p in sorted(PACKS_DIR.glob("*.yaml"))]
                 + [f"laws/{p.name}" for p in sorted(LAWS_DIR.glob("*.txt"))])
    fingerprint = (request.script_root, tuple(slugs), tuple(map(id, objects)),
                   _stats(SW_SOURCE.parent, [SW_SOURCE.name]),
                   _stats(PACKS_DIR.parent, law_files),
                   _stats(_static_dir(), _static_files()))
    return fingerprint, objects


def worker_source() -> str:
    """`service_worker/sw.js` with its version and precache list written in, built again only
    when an input changed (`_worker_inputs`)."""
    fingerprint, objects = _worker_inputs()
    # bench/caches.py: /sw.js renders every law page again without it
    kept = current_app.extensions.get("field_worker")
    if kept is None or kept[0] != fingerprint:
        source = SW_SOURCE.read_text(encoding="utf-8")
        source = source.replace(_VERSION_MARK, json.dumps(shell_version()), 1)
        source = source.replace(_PRECACHE_MARK, json.dumps(precache_urls()), 1)
        kept = (fingerprint, objects, source)
        current_app.extensions["field_worker"] = kept
    return kept[2]


@bp.get("/sw.js")
@public
def service_worker():
    """The service worker, with its version and precache list written in."""
    response = Response(worker_source(), mimetype="text/javascript")
    response.headers["Service-Worker-Allowed"] = "/"
    response.headers["Cache-Control"] = "no-cache"
    return response
