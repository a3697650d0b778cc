"""The migrations build the schema from empty, and match the models exactly."""
from __future__ import annotations

import flask_migrate
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from inspector import create_app
from inspector.extensions import db


def test_autogenerate_finds_no_difference_between_models_and_migrations(app):
    # `app` runs on the schema that `flask db upgrade` built from an empty database.
    with app.app_context():
        with db.engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True,
                                                         "render_as_batch": True})
            diff = compare_metadata(ctx, db.metadata)
    assert diff == [], f"models and migrations differ: {diff}"


def test_upgrade_from_empty_then_downgrade_to_nothing(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t",
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'm.sqlite3'}"})
    with app.app_context():
        flask_migrate.upgrade()
        tables = set(inspect(db.engine).get_table_names())
        assert {"vehicles", "drivers", "licences", "audit_entries", "users"} <= tables
        flask_migrate.downgrade(revision="base")
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
        db.engine.dispose()
