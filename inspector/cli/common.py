"""What every command shares: one way to fail (one line on stderr, exit status 2)."""
from __future__ import annotations

import sys

import click


def fail(message: str) -> None:
    """Print a one-line error on stderr and exit with status 2."""
    click.echo(f"erro: {message}", err=True)
    sys.exit(2)
