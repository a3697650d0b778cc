"""The five laws as public pages: /leis, /leis/<law> (text with an anchor on every
article, paragraph, item and alínea, and what the product enforces from each article)
and /leis/<law>/checklist (the items in force on a day, each linked to its article).

The same bytes for everyone (no user, no token on the page), so they are cached by
browsers and the field app with a long max-age and revalidated with an ETag.
"""
from __future__ import annotations

from datetime import date

from flask import Response, abort, make_response, render_template, request, session

from inspector import clock, laws
from inspector.registry import parse_date
from inspector.security import public

LAW_MAX_AGE = 7 * 24 * 3600   # law texts and packs change only with a new release
TODAY_MAX_AGE = 3600          # "today's checklist" turns over at midnight

def today() -> date:
    """The day a law's public page is read on: Mato Grosso's (a law's page names no town's
    clock; every town whose laws are published is in Mato Grosso)."""
    return clock.default_day()


def cacheable(html: str, max_age: int) -> Response:
    """A cacheable response with an ETag; 304 when the client already has it.

    `public` for anonymous readers. A signed-in user's response carries a refreshed
    session cookie (Set-Cookie), which no shared cache may keep: `private` then, so only
    that browser (and its service worker) caches the same bytes.
    """
    resp = make_response(html)
    scope = "private" if session else "public"
    resp.headers["Cache-Control"] = f"{scope}, max-age={max_age}"
    resp.add_etag()
    return resp.make_conditional(request)


@public
def index():
    """The laws the product enforces: town, service, number, title, in force from."""
    return cacheable(render_template("laws/index.html", laws=laws.law_index(),
                                     fmt_date=laws.fmt_date), LAW_MAX_AGE)


def render_law(law_slug: str) -> str | None:
    """The HTML of a law's page (None: no such law). The field app's service worker precaches
    these bytes and hashes them into its version (inspector/blueprints/field/routes.py)."""
    blocks = laws.outline(law_slug)
    if blocks is None:
        return None
    return render_template("laws/law.html", blocks=blocks,
                           summary=laws.law_summary(law_slug),
                           slug=law_slug, fmt_date=laws.fmt_date)


@public
def law(law_slug: str):
    """A law's full text, every unit anchored, each article with the rules that cite it."""
    html = render_law(law_slug)
    if html is None:
        abort(404, "Lei não encontrada.")
    return cacheable(html, LAW_MAX_AGE)


@public
def checklist(law_slug: str):
    """The checklist of this law in force on a day (`?on=AAAA-MM-DD`, default today)."""
    summary = laws.law_summary(law_slug)
    if summary is None:
        abort(404, "Lei não encontrada.")
    raw = request.args.get("on", "").strip()
    on = parse_date(raw) if raw else today()
    if on is None:
        abort(400, f"Data inválida: {raw!r}. Use AAAA-MM-DD, por exemplo 2026-03-31.")
    try:
        pack, items = laws.checklist_for(law_slug, on)
    except laws.NoChecklist as e:
        abort(404, str(e))
    html = render_template("laws/checklist.html", summary=summary, pack=pack, items=items,
                           on=on, slug=law_slug, fmt_date=laws.fmt_date,
                           checks_labels=laws.CHECKS_LABELS)
    return cacheable(html, LAW_MAX_AGE if raw else TODAY_MAX_AGE)

