"""Every `flask` command prints one line and exits 2 on a database it cannot reach or name
(the line: inspector/operations/database_errors.py)."""
from __future__ import annotations

import functools

import click

from inspector.cli.common import fail
from inspector.operations import CONNECTION_ERRORS, explain_database_error


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
        except CONNECTION_ERRORS as e:
            line = explain_database_error(e, url_of())
            if line is None:
                raise
            fail(line)

    guarded._database_guarded = True
    command.callback = guarded
