"""`flask --app inspector notifications ...`: send the push outbox, show the VAPID key."""
from __future__ import annotations

import json
import logging
from datetime import datetime

import click
from flask.cli import AppGroup

from inspector.cli.common import fail

notifications_cli = AppGroup("notifications", help="Web Push: the outbox and the VAPID key.")


@notifications_cli.command("deliver")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--now", "now_text", default=None,
              help="The clock (ISO 8601 with offset); default: now.")
def deliver(as_json: bool, now_text: str | None) -> None:
    """Send every due push delivery once (safe to run concurrently, e.g. every minute)."""
    from inspector import notifications

    now = None
    if now_text:
        try:
            now = datetime.fromisoformat(now_text)
        except ValueError:
            fail(f"data/hora inválida: {now_text!r} (use ISO 8601, ex. 2026-12-01T08:00-04:00)")
    try:
        report = notifications.deliver_pending(now)
    except ValueError as e:
        fail(str(e))
    if as_json:
        click.echo(json.dumps(report.as_dict()))
    else:
        click.echo(f"push: {len(report.sent)} sent, {len(report.retry)} to retry, "
                   f"{len(report.failed)} failed, {len(report.dropped)} dropped")


def deliver_after_tick(now: datetime) -> dict:
    """Send the pushes a tick (or anything before it) queued; a push failure never fails
    the tick: it is reported as {"error": ...} and the outbox keeps the deliveries."""
    from inspector import notifications
    from inspector.extensions import db

    try:
        return notifications.deliver_pending(now).as_dict()
    except Exception as e:  # noqa: BLE001 - the tick's own work is already committed
        db.session.rollback()
        logging.getLogger(__name__).exception("push delivery after tick failed")
        return {"error": f"{type(e).__name__}: {e}"}


@notifications_cli.command("public-key")
def public_key() -> None:
    """Print the VAPID public key (made on first use)."""
    from inspector import notifications

    click.echo(notifications.public_key())
