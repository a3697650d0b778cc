"""`flask --app inspector vistorias ...`: send the reminders of vistorias falling due."""
from __future__ import annotations

import json
from datetime import date

import click
from flask.cli import AppGroup

from inspector.cli.common import fail

vistorias_cli = AppGroup("vistorias", help="Vistorias: reminders before they fall due.")


@vistorias_cli.command("remind")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--on", "on_text", default=None, help="The day (YYYY-MM-DD); default: each town's today.")
def remind(as_json: bool, on_text: str | None) -> None:
    """Remind holders of vistorias falling due (30 and 7 days before, the town's setting) by
    Web Push and e-mail, each once; run daily (then `notifications deliver` sends the push)."""
    from inspector import notifications, vistorias
    from inspector.extensions import db

    on = None
    if on_text:
        try:
            on = date.fromisoformat(on_text)
        except ValueError:
            fail(f"data inválida: {on_text!r} (use AAAA-MM-DD)")
    report = vistorias.send_reminders(on, push=notifications.notify_push)
    db.session.commit()
    if as_json:
        click.echo(json.dumps(report.as_dict()))
    else:
        click.echo(f"lembretes: {len(report.sent)} enviados, {len(report.failed)} e-mails falharam")
