"""What the review's views share: who may see them, and the answer after a form's POST."""
from __future__ import annotations

from flask import Response, redirect

from inspector.models import Role

VIEWERS = (Role.SUPERVISOR, Role.ADMIN)


def go(url: str) -> Response:
    """After a POST without htmx: 303 back to the page."""
    return redirect(url, 303)
