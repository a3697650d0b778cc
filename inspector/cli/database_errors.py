"""Every `flask` command prints one pt-BR line and exits 2 on a database it cannot reach
(`guard`, applied once to the app's whole command tree, Flask-Migrate's `db` included), so no
command prints SQLAlchemy's traceback for a first-day mistake in DATABASE_URL."""
from __future__ import annotations

import functools

import click

from inspector.cli.common import fail
from inspector.operations import DATABASE_ERRORS, explain_database_error


def guard(command: click.Command, url_of) -> None:
    """Make `command` (and, for a group, every command in it) print one line and exit 2 on a
    database error. `url_of()` gives the URL in use, read when the error happens."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            guard(sub, url_of)
    callback = command.callback
    if callback is None or getattr(callback, "_database_guarded", False):
        return

    @functools.wraps(callback)
    def guarded(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except DATABASE_ERRORS as e:
            line = explain_database_error(e, url_of())
            if line is None:
                raise
            fail(line)

    guarded._database_guarded = True
    command.callback = guarded
