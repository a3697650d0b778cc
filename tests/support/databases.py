"""Databases of a test's own: an empty SQLite file, or a new database on the PostgreSQL
server DATABASE_URL names, dropped afterwards, so that runs and tests in parallel never
share rows."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


@contextmanager
def private_database(beside: str | None, tag: str, sqlite_file: Path | None = None) -> Iterator[str]:
    """The URL of a new, empty database: on the PostgreSQL server of `beside`, named after its
    database and `tag` and dropped on leaving (even if a connection is still open); otherwise
    (no URL, or SQLite) the file `sqlite_file`, not yet created."""
    if not beside or make_url(beside).get_backend_name() != "postgresql":
        if sqlite_file is None:
            raise ValueError(f"{tag}: a private database needs PostgreSQL here")
        yield f"sqlite:///{sqlite_file}"
        return
    base = make_url(beside)
    name = f"{base.database}_{tag}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield base.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()
