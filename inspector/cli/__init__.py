"""Command-line interface: `flask --app inspector <group> <command>`, one group a module.

Errors go to stderr as one line and exit with status 2 (`common.fail`); a database that
cannot be reached is one such line for every command, `db upgrade` included
(`database_errors.guard`).
"""

from inspector.cli.wiring import register_cli

__all__ = ["register_cli"]
