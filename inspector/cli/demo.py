"""`demo seed`: the four demonstration towns, their fleet and logins."""
from __future__ import annotations

import sys

import click
from flask.cli import AppGroup

from inspector.cli.common import fail
from inspector.demo import DEMO_PASSWORD, seed_towns
from inspector.errors import ValidationFailed
from inspector.extensions import db

demo_cli = AppGroup("demo", help="Demonstration data for the four towns.")


@demo_cli.command("seed")
def seed_command() -> None:
    """Create the demo towns, fleet and logins (running it again changes nothing)."""
    from flask import current_app

    if current_app.config.get("INSPECTOR_ENV") == "production":
        fail("INSPECTOR_ENV=production: dados de demonstração nunca são criados em produção")
    try:
        created, irregular = seed_towns()
        db.session.commit()
    except ValidationFailed as e:
        db.session.rollback()
        click.echo(f"erro: dados de demonstração recusados: {e}", err=True)
        sys.exit(2)
    if not created:
        click.echo("demo: já estava tudo lá, nada a fazer")
        return
    click.echo("demo: criados " + ", ".join(f"{n} {k}" for k, n in sorted(created.items())))
    click.echo(f"demo: senha de todos os logins de demonstração: {DEMO_PASSWORD}")
    click.echo("demo: registros que infringem a lei de propósito:")
    for town, note in irregular:
        click.echo(f"  {town}: {note}")

