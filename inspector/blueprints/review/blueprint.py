"""The review blueprint object and the helpers its views share."""
from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, Response, make_response, redirect, render_template

from ...extensions import htmx
from ...models import Role

bp = Blueprint("review", __name__, url_prefix="/revisao")
VIEWERS = (Role.SUPERVISOR, Role.ADMIN)


def now() -> datetime:
    """The real clock (services take it explicitly so that tests can freeze it)."""
    return datetime.now(UTC)


def wants_fragment() -> bool:
    """An htmx request that swaps part of a page (not a boosted or history-restore load)."""
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def page_or_fragment(page_template: str, fragment_template: str, status: int = 200,
                     **context) -> Response:
    """The partial for htmx, the full page otherwise; caches must key on HX-Request."""
    template = fragment_template if wants_fragment() else page_template
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response


def go(url: str) -> Response:
    """After a POST without htmx: 303 back to the page."""
    return redirect(url, 303)
