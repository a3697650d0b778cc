"""Every command group attached to the app, in one place."""
from __future__ import annotations

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
    from inspector.cli.version import version_command
    from inspector.cli.vistorias import vistorias_cli

    for group in (audit_cli, users_cli, evidence_cli, rules_cli, registry_cli, demo_cli,
                  credentials_cli, notifications_cli, enforcement_cli, docs_cli, production_cli,
                  towns_cli, backup_cli, vistorias_cli):
        app.cli.add_command(group)
    app.cli.add_command(version_command)
    guard(app.cli, lambda: app.config.get("SQLALCHEMY_DATABASE_URI"))   # db (Flask-Migrate) too
