"""inspector: field inspection of licensed taxis and moto-taxis."""
from __future__ import annotations

from pathlib import Path

from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import Engine

from inspector import config

ROOT = config.ROOT
MIGRATIONS = config.MIGRATIONS


def create_app(test_config: dict | None = None) -> Flask:
    """Build the application: defaults, then instance config, then test config."""
    import os

    # INSPECTOR_INSTANCE_DIR: another folder for secret_key, config.py, the SQLite file and the
    # packs (one per app server when several share the database: docs/production.md, "Several app servers")
    instance = os.environ.get("INSPECTOR_INSTANCE_DIR", "").strip() or str(ROOT / "instance")
    app = Flask(
        __name__,
        instance_path=str(Path(instance).resolve()),
        instance_relative_config=True,
        static_folder=str(ROOT / "static"),
        template_folder=str(ROOT / "templates"),
    )
    app.config.from_mapping(config.defaults(Path(app.instance_path)))
    app.config.from_pyfile("config.py", silent=True)
    if test_config:
        app.config.from_mapping(test_config)

    from inspector import compression, errors, logs, security
    from inspector.extensions import csrf, db, htmx, limiter, migrate
    from inspector.operations import DATABASE_ERRORS, explain_database_error

    logs.init_app(app)
    try:
        db.init_app(app)   # parses DATABASE_URL: a malformed one stops here, in one line
    except DATABASE_ERRORS as e:
        import sys

        print(f"erro: {explain_database_error(e)}", file=sys.stderr)
        raise SystemExit(2) from None
    migrate.init_app(app, db, directory=str(MIGRATIONS), render_as_batch=True,
                     compare_type=True)
    security.init_app(app)  # first: the user is known even when CSRF fails
    csrf.init_app(app)
    htmx.init_app(app)
    limiter.init_app(app)
    for warn in (config.rate_limit_warning, config.public_base_url_warning):
        if (warning := warn(app.config)) and not quiet_command():
            app.logger.warning(warning)
    errors.init_app(app)
    compression.init_app(app)  # registered last, runs first: the request log times it too

    from inspector import models  # noqa: F401  (register tables on the metadata)
    from inspector.laws import use_rules_dirs

    use_rules_dirs(app.config.get("RULES_EXTRA_DIR"))
    from inspector.blueprints import register_blueprints
    from inspector.cli import register_cli

    register_blueprints(app)
    register_cli(app)
    install_listeners()
    cost = app.config["PASSWORD_HASH_COST"]
    if cost not in ("standard", "test") or (cost == "test" and app.config["INSPECTOR_ENV"] == "production"
                                            and not app.config.get("TESTING")):
        raise SystemExit(f"erro: PASSWORD_HASH_COST={cost!r} não é aceito aqui: use 'standard'")
    if app.config["INSPECTOR_ENV"] == "production":  # one pt-BR line per reason, exit 2
        from inspector.operations import refuse_unsafe_start

        refuse_unsafe_start(app)
    from inspector import templating

    templating.init_app(app)  # the filters and globals every template may use
    return app


def quiet_command() -> bool:
    """A `flask` command runs without the server's start-up warnings (they are for the web
    server's log; `production check` lists them), unless INSPECTOR_VERBOSE=1 asks for them."""
    import os

    import click

    return (click.get_current_context(silent=True) is not None
            and os.environ.get("INSPECTOR_VERBOSE", "").strip() not in ("1", "true", "yes"))


def install_listeners() -> None:
    """Hook the services that follow enforcement's events, in the act's transaction: who must
    be told is pushed, then the notice's PDF (and the company's copy) is made; and chain each
    transaction's audit entries as it commits."""
    from inspector import audit, documents, notifications

    notifications.register_triggers()
    documents.install_document_hooks()
    audit.install()


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, _record) -> None:
    """SQLite as a real embedded database: WAL, foreign keys, wait instead of failing."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=10000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()
