"""Fixtures of the production tests: the running server's app with its own evidence and
instance folders, and an empty instance (a new server after a loss)."""
from __future__ import annotations

import pytest

from inspector import create_app
from inspector.extensions import db
from tests.support.config import server_config as config
from tests.support.databases import private_database
from tests.support.town_server import databases  # noqa: F401 (a fixture of these tests)


@pytest.fixture
def origin(app, tmp_path):
    """The running server's app: the suite's database, its own evidence and instance."""
    app.config.update(config(app.config["SQLALCHEMY_DATABASE_URI"], tmp_path / "origin"))
    return app


@pytest.fixture
def empty_instance(app, schema, tmp_path):
    """A new server after a loss: an empty database (a new SQLite file, or a new PostgreSQL
    database beside the suite's), an empty evidence folder, an empty instance folder."""
    with private_database(schema, "restore", tmp_path / "restored.sqlite3") as url:
        new = create_app(config(url, tmp_path / "restored"))
        new.test_client_class = app.test_client_class   # the suite's client (it signs in)
        yield new
        with new.app_context():
            db.session.remove()
            db.engine.dispose()
