"""Command-line interface: `flask --app inspector <group> <command>`, one group a module.

Errors go to stderr as one line and exit with status 2 (`common.fail`); a database that
cannot be reached is one such line for every command, `db upgrade` included
(`database_errors.guard`).
"""
from __future__ import annotations

import click
from flask import Flask


def register_cli(app: Flask) -> None:
    """Attach every command group to the app."""
    from inspector.cli.backup import backup_cli
    from inspector.cli.credentials import credentials_cli
    from inspector.cli.database_errors import guard
    from inspector.cli.demo import demo_cli
    from inspector.cli.docs import docs_cli
    from inspector.cli.enforcement import enforcement_cli
    from inspector.cli.imports import registry_cli
    from inspector.cli.notifications import notifications_cli
    from inspector.cli.production import production_cli
    from inspector.cli.records import audit_cli, evidence_cli, users_cli
    from inspector.cli.rules import rules_cli
    from inspector.cli.towns import towns_cli
    from inspector.cli.vistorias import vistorias_cli

    for group in (audit_cli, users_cli, evidence_cli, rules_cli, registry_cli, demo_cli,
                  credentials_cli, notifications_cli, enforcement_cli, docs_cli, production_cli,
                  towns_cli, backup_cli, vistorias_cli):
        app.cli.add_command(group)
    app.cli.add_command(version_command)
    guard(app.cli, lambda: app.config.get("SQLALCHEMY_DATABASE_URI"))   # db (Flask-Migrate) too


@click.command("version")
def version_command() -> None:
    """The program's version and the database schema it brings (its newest migration)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from inspector.config import ROOT, version

    cfg = Config()
    cfg.set_main_option("script_location", str(ROOT / "inspector" / "migrations"))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    click.echo(f"inspector {version()} (esquema {head})")
