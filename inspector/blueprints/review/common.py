"""What the review's views share: who may see them, and the answer after a form's POST."""
from __future__ import annotations

import logging

from flask import Response, current_app, g, redirect
from sqlalchemy.exc import OperationalError

from inspector import audit, enforcement
from inspector.clock import now
from inspector.extensions import db
from inspector.models import Role

VIEWERS = (Role.SUPERVISOR, Role.ADMIN)
log = logging.getLogger(__name__)


def propose_what_the_sync_left() -> None:
    """Before a reviewer sees anything, the town's newly synced inspections get their
    proposals (the enforcement tick does the same every minute). A sync that completes an
    inspection always moves the town's audit version, so a version already checked in this
    process needs no look-up; `g.town_version` is left for the views."""
    user = g.get("user")
    if user is None or user.role not in VIEWERS:
        return  # the view's own decorator answers
    town = user.municipality_id
    version = audit.town_version(town)
    checked = current_app.extensions.setdefault("review_proposals_checked", {})
    if checked.get(town) != version:
        try:
            if enforcement.propose_pending(now(), town):
                db.session.commit()
                version = audit.town_version(town)
        except OperationalError:  # SQLite: a concurrent writer is proposing them right now
            db.session.rollback()
            log.info("review: proposals left to the concurrent run")
            return
        checked[town] = version
    g.town_version = version


def go(url: str) -> Response:
    """After a POST without htmx: 303 back to the page."""
    return redirect(url, 303)
