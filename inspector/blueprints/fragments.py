"""htmx pages: the partial for a request that swaps part of a page, the whole page otherwise."""
from __future__ import annotations

from flask import Response, make_response, render_template

from inspector.extensions import htmx


def wants_fragment() -> bool:
    """An htmx request that swaps part of a page (not a boosted or history-restore load)."""
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def page_or_fragment(page_template: str, fragment_template: str, /, status: int = 200,
                     **context) -> Response:
    """The partial for htmx, the full page otherwise; caches must key on HX-Request. The
    templates are positional so that a page may pass its own `page` to them."""
    template = fragment_template if wants_fragment() else page_template
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response


def add_routes(bp, routes) -> None:
    """Register a blueprint's table of (method, rule, view); the endpoint is the view's name."""
    for method, rule, view in routes:
        bp.add_url_rule(rule, view_func=view, methods=[method])
