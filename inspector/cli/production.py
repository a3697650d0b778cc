"""`production check`: would the web server start for a real town? (INSPECTOR_ENV=production)"""
from __future__ import annotations

import sys

import click
from flask import current_app
from flask.cli import AppGroup

production_cli = AppGroup("production", help="Running for a real town (INSPECTOR_ENV=production).")


@production_cli.command("check")
def production_check() -> None:
    """Every reason the production web server would refuse to start (exit 2), or ok. Checks
    the settings as if INSPECTOR_ENV=production, whatever it is now."""
    from inspector import config
    from inspector.operations import production_problems

    found = production_problems(current_app)
    for warn in (config.rate_limit_warning, config.public_base_url_warning):
        if warning := warn(current_app.config):
            click.echo(f"aviso: {warning}", err=True)
    for line in found:
        click.echo(f"erro: {line}", err=True)
    if found:
        sys.exit(2)
    click.echo("ok: pode servir em produção (sem senha de demonstração, SECRET_KEY forte, "
               f"PUBLIC_BASE_URL={current_app.config['PUBLIC_BASE_URL']})")
