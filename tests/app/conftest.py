"""Fixtures of the app-wide tests (create_app's settings and warnings at start)."""
from __future__ import annotations

import logging

import pytest

import inspector
from inspector import logs
from tests.support.databases import private_database


@pytest.fixture
def start_logs(monkeypatch, caplog):
    """The app's records at start (its logger does not propagate: caplog listens on it)."""
    original = logs.init_app
    apps = []

    def init_app(app):
        original(app)
        app.logger.addHandler(caplog.handler)
        apps.append(app)

    monkeypatch.setattr(logs, "init_app", init_app)
    # the app starts as the web server starts it, whatever an earlier test of this worker left
    # in the process: no `flask` command running (commands stay quiet) and its logger enabled
    monkeypatch.setattr(inspector, "quiet_command", lambda: False)
    monkeypatch.setattr(logging.getLogger("inspector"), "disabled", False)
    caplog.set_level(logging.WARNING)
    yield caplog
    for app in apps:
        app.logger.removeHandler(caplog.handler)


@pytest.fixture
def registry_rows_in(app):
    """Makes one row of every registry table — a licensed taxi, its holder, driver, permit,
    licence and insurance, a stand — and an admin account, in the town named:
    `registry_rows_in("sapezal")`. The first town asked for holds id 1 of each table: the access
    test asks another town's row #1 with it, the hostile-URL sweep gives the lists and the
    forms of the signed-in town rows to go through."""
    from inspector.extensions import db
    from tests import factories

    def build(slug: str) -> None:
        with app.app_context():
            v = factories.vehicle(slug, "taxi")
            d = factories.driver(slug, "autonomo", holder=v.holder)
            d.vehicles.append(v)
            p = factories.permit(v.holder, "taxi")
            factories.licence(v, permit_id=p.id)
            factories.insurance(v)
            factories.stand(slug)
            factories.user("admin", slug)
            db.session.commit()
    return build


@pytest.fixture
def fresh_url(schema, tmp_path):
    """A new, empty database beside the suite's: a SQLite file, or a PostgreSQL database."""
    with private_database(schema, "up", tmp_path / "fresh.sqlite3") as url:
        yield url
