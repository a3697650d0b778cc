"""Fixtures for every test: an app on a migrated database (SQLite, or PostgreSQL via
DATABASE_URL), a test client that can sign in, a live server on loopback and Debian's
Chromium; and the worlds several areas share (a town under review, a licensed moto-taxi
with an agent signed in to the field API, a local Web Push service). An area's own
fixtures are in its folder's conftest.py."""
from __future__ import annotations

import gc
import logging
import os
import re
import threading
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from sqlalchemy import MetaData, text
from werkzeug.serving import make_server

from inspector import create_app
from inspector.extensions import db, limiter
from inspector.laws import use_rules_dirs
from tests import factories
from tests.support.config import CHROMIUM, CHROMIUM_ARGS, HEADLESS_SHELL, app_config
from tests.support.databases import private_database
from tests.support.enforcement import fleet
from tests.support.field_api import Api
from tests.support.instants import instant, suite_travel  # noqa: F401  (instant: a fixture)
from tests.support.push import FakePushService

_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


class Client(FlaskClient):
    """A test client that knows how to sign in and fetch a CSRF token."""

    def csrf_token(self, path: str = "/entrar") -> str:
        page = self.get(path)
        match = _TOKEN.search(page.get_data(as_text=True))
        assert match, f"no CSRF token on {path} ({page.status_code})"
        return match.group(1)

    def login(self, username: str, password: str = factories.PASSWORD):
        token = self.csrf_token("/entrar")
        return self.post("/entrar", data={"username": username, "password": password,
                                          "csrf_token": token})

    def holder_page(self, path: str, code: str) -> str:
        """The holder's page of notice `path` ("<town>/<number>"), opened with its access
        code as the printed notice tells them to (the code is accepted: 303)."""
        token = self.csrf_token(f"/notificacoes/{path}")
        assert self.post(f"/notificacoes/{path}",
                         data={"codigo": code, "csrf_token": token}).status_code == 303
        return self.get(f"/notificacoes/{path}").get_data(as_text=True)

    def post_form(self, path: str, data: dict | None = None, token_from: str = "/inicio",
                  **kw):
        """POST a form with a valid CSRF token taken from a page the user can see."""
        data = dict(data or {})
        data["csrf_token"] = self.csrf_token(token_from)
        return self.post(path, data=data, **kw)


# Fixtures through which a test reaches a database, and those through which it drives Chromium.
_DATABASE_FIXTURES = {"database_url", "shared_db"}
_BROWSER_FIXTURES = {"browser", "playwright_instance"}


def pytest_configure(config):
    """INSPECTOR_SUITE_AT: the whole run at another instant (docs/testing.md). The garbage
    collector runs less often: a worker's heap grows to millions of objects, and the default
    thresholds had it spend 6% of the run walking them (enforcement and app tests: 7.6 s of
    134 s; 1.9 s with these)."""
    gc.set_threshold(5000, 50, 1000)
    config.suite_travel = suite_travel()
    if config.suite_travel is not None:
        config.suite_travel.start()


def pytest_unconfigure(config):
    if getattr(config, "suite_travel", None) is not None:
        config.suite_travel.stop()


def pytest_addoption(parser):
    parser.addoption("--database-pass", action="store_true",
                     help="the suite's second pass on another database (.ci/run, PostgreSQL): "
                          "only the tests that reach a database, browser tests excepted")


def pytest_collection_finish(session):
    """What collection imported lives as long as the worker: out of the collector's sight."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    """Mark every test that starts Chromium `browser`; on a database pass, deselect those and
    the tests that reach no database: what they check does not change with the database
    (the browser drives the same server, whose database code the other tests cover)."""
    for item in items:
        if _BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
    if not config.getoption("--database-pass"):
        return
    keep, drop = [], []
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        (keep if names & _DATABASE_FIXTURES and not names & _BROWSER_FIXTURES else drop).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep


# How `make test` shares the tests between its two workers (`--dist loadfile`): a file's tests
# stay on one worker (its module fixtures are made once), files with the most tests first,
# except the shards of a long test (a parametrize id starting "shard"): each is a unit of its
# own, sent last, so that both workers finish together instead of one running the long test
# while the other idles.
_SHARD = re.compile(r"\[shard[^\]]*\]$")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesThenShards(LoadFileScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return nodeid if _SHARD.search(nodeid) else super()._split_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the first assignment: the queue is complete
                for scope in [s for s in self.workqueue if _SHARD.search(s)]:
                    self.workqueue.move_to_end(scope)
                self.ordered = True
            super()._assign_work_unit(node)

    return FilesThenShards(config, log)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory):
    """A database of this run's own: a fresh SQLite file, or, when DATABASE_URL names a
    PostgreSQL server, a new database beside it (dropped at the end), so that runs in
    parallel never share rows."""
    url = os.environ.get("DATABASE_URL")
    if url and not url.startswith("postgresql"):
        yield url  # a SQLite file named on purpose
        return
    with private_database(url, str(os.getpid()), tmp_path_factory.mktemp("db") / "test.sqlite3") as url:
        yield url


@pytest.fixture(scope="session")
def schema(database_url) -> str:
    """Build the schema from empty with the migrations, once per run."""
    import flask_migrate

    app = create_app(app_config(database_url))
    with app.app_context():
        drop_everything()
        flask_migrate.upgrade()
        if db.engine.dialect.name == "postgresql":
            # No statistics unless a test gathers them: autovacuum would ANALYZE a table at a
            # moment that depends on what ran before in this worker (emptying keeps them), and
            # the planner then picks other plans for the same tiny tables
            # (tests/app/test_town_query_plans.py).
            with db.engine.begin() as conn:
                for table in db.metadata.sorted_tables:
                    conn.execute(text(f'ALTER TABLE "{table.name}" SET (autovacuum_enabled = false)'))
    return database_url


def drop_everything() -> None:
    """Drop every table in the database, Alembic's version table included."""
    reflected = MetaData()
    reflected.reflect(bind=db.engine)
    reflected.drop_all(bind=db.engine)


def empty_tables() -> None:
    """Delete every row, keeping the schema; ids start again at 1.

    Only the tables a test touched are emptied: those holding rows, and on PostgreSQL the id
    sequences it moved (a rolled-back insert moves one too). DELETE, not TRUNCATE: TRUNCATE
    gives each table and index new files, and took half a second for the few tables a
    typical test writes on PostgreSQL; a DELETE of a few rows takes milliseconds.
    """
    tables = list(reversed(db.metadata.sorted_tables))  # those referring to others first
    with_rows = " UNION ALL ".join(f"SELECT '{t.name}' WHERE EXISTS (SELECT 1 FROM \"{t.name}\")"
                                   for t in tables)
    with db.engine.begin() as conn:
        touched = set(conn.scalars(text(with_rows)))
        for t in tables:
            if t.name in touched:
                conn.execute(t.delete())
        if db.engine.dialect.name == "postgresql":
            for sequence in conn.scalars(text(_SEQUENCES_USED)).all():
                conn.execute(text("SELECT setval(CAST(:s AS regclass), 1, false)"), {"s": sequence})


# The sequences used since their last restart (their next value is not 1).
_SEQUENCES_USED = """
SELECT format('%I.%I', schemaname, sequencename) FROM pg_sequences
WHERE schemaname = current_schema() AND last_value IS NOT NULL
"""


@pytest.fixture(autouse=True)
def loggers_stay_enabled():
    """A library that configures logging with dictConfig's defaults disables every logger
    already made, the app's too: later tests on the same worker would then see no log line.
    The test that did it fails, by name, instead of a later one at random."""
    yield
    disabled = sorted(name for name, logger in logging.Logger.manager.loggerDict.items()
                      if name.split(".")[0] == "inspector"
                      and isinstance(logger, logging.Logger) and logger.disabled)
    for name in disabled:   # the next tests are not blamed for it
        logging.getLogger(name).disabled = False
    assert not disabled, f"this test disabled the loggers {disabled}"


@pytest.fixture(scope="session", autouse=True)
def evidence_dir(tmp_path_factory):
    """Evidence photos' files go to this run's own directory, never to instance/."""
    path = tmp_path_factory.mktemp("evidence")
    os.environ["EVIDENCE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def shared_app(schema):
    """One app for the whole run: its URL map and templates are compiled once, not per test."""
    app = create_app(app_config(schema))
    app.test_client_class = Client
    # what one object of the process holds for whichever app was made last (a test may make its
    # own): the limiter's store and settings; put back before each test (`app`)
    app.extensions["tests:limiter"] = (dict(limiter.__dict__), dict(limiter.limit_manager.__dict__))
    return app


# What an app keeps between requests, per process (its caches): cleared between tests, whose
# rows (and ids) start again from nothing.
_APP_CACHES = ("render_cache:", "field_standing", "credential_keys", "field_worker")


@pytest.fixture
def app(shared_app, tmp_path):
    """The app on the migrated database with its own evidence directory, as it was before any
    test: the settings a test changes are put back, its caches and rate-limit counts dropped,
    and every row deleted afterwards."""
    app = shared_app
    _take_back(app)
    settings = dict(app.config)
    app.config["EVIDENCE_DIR"] = str(tmp_path / "evidence")
    yield app
    with app.app_context():
        db.session.remove()
        empty_tables()
        # SQLite's connections stay open for the next test: closing the last one checkpoints
        # and deletes the write-ahead log, and a new one parses the schema again.
        if db.engine.dialect.name == "postgresql":
            db.engine.dispose()
    app.config.clear()
    app.config.update(settings)
    for key in [k for k in app.extensions if k.startswith(_APP_CACHES)]:
        del app.extensions[key]
    _take_back(app)
    limiter.reset()


def _take_back(app) -> None:
    """Point what is one per process back at the shared app, after a test made an app of its
    own: the rules' folders and the rate limiter's store and settings."""
    use_rules_dirs(app.config["RULES_EXTRA_DIR"])
    own, manager = app.extensions["tests:limiter"]
    limiter.__dict__.update(own)
    limiter.limit_manager.__dict__.update(manager)


@pytest.fixture
def client(app) -> Client:
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def make(app):
    """Run factories inside an app context and commit: `make(factories.user, role=...)`."""
    def build(factory, *args, **kwargs):
        with app.app_context():
            obj = factory(*args, **kwargs)
            db.session.commit()
            db.session.refresh(obj)
            db.session.expunge(obj)
            return obj
    return build


class _InFlight:
    """WSGI middleware counting the requests being handled, so that a test's teardown can
    wait for them: a request the browser left behind (its page closed) must not be using
    the database while the next test empties it."""

    def __init__(self, app):
        self.app = app
        self.count = 0
        self.idle = threading.Condition()

    def __call__(self, environ, start_response):
        with self.idle:
            self.count += 1
        try:
            return self.app(environ, start_response)  # Flask's own teardown has run when it returns
        finally:
            with self.idle:
                self.count -= 1
                self.idle.notify_all()

    def wait_idle(self, seconds: float) -> None:
        with self.idle:
            self.idle.wait_for(lambda: self.count == 0, seconds)


@pytest.fixture
def live_server(app):
    """The app behind a real threaded WSGI server on a free loopback port."""
    handling = _InFlight(app)
    server = make_server("127.0.0.1", 0, handling, threaded=True)
    # a short poll: shutdown() waits for the next one (the default, 0.5 s, after every test)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{server.server_port}"
    yield server
    server.shutdown()
    thread.join(5)
    handling.wait_idle(30)


@pytest.fixture(scope="session")
def playwright_instance():
    for path, package in ((CHROMIUM, "chromium"), (HEADLESS_SHELL, "chromium-headless-shell")):
        if not Path(path).exists():
            pytest.fail(f"{path} is missing: `make test` installs it (apt-get install {package})")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def _chromium(playwright_instance):
    """The worker's browsers, each launched once (a launch costs more than most browser tests):
    the headless shell, or the full Chromium for a test marked `full_chromium`."""
    running = {}

    def get(executable: str):
        if executable not in running or not running[executable].is_connected():
            # not yet launched, or crashed: the next test gets a new one
            running[executable] = playwright_instance.chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS)
        return running[executable]
    yield get
    for launched in running.values():
        if launched.is_connected():
            launched.close()


@pytest.fixture
def browser(_chromium, request):
    """Debian's Chromium, headless, quiet on a closed network. Each test's contexts are its
    own (cookies, storage, caches, service workers) and are closed after it."""
    full = request.node.get_closest_marker("full_chromium") is not None
    b = _chromium(CHROMIUM if full else HEADLESS_SHELL)
    yield b
    for context in b.contexts:
        context.close()


@pytest.fixture
def page(browser, live_server):
    """A page in a fresh context whose base URL is the live server."""
    context = browser.new_context(base_url=live_server.url, locale="pt-BR")
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    yield pg
    context.close()


# Worlds several areas share ------------------------------------------------------------

@pytest.fixture
def town(app):
    """Tapurah with a rider and his moto-taxi, an agent, a supervisor, an admin; Sapezal's
    supervisor next door (the review's, the field reviews' and the review browser tests')."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        users = {r: factories.user(r, "tapurah").username for r in ("agent", "supervisor", "admin")}
        users["other_agent"] = factories.user("agent", "tapurah", name="Outra Agente").username
        users["sapezal"] = factories.user("supervisor", "sapezal").username
        db.session.commit()
        return {"vehicle_id": f["vehicle"].id, **users}


@pytest.fixture
def moto(make):
    """A licensed Tapurah moto-taxi with a driver: `moto()`, or `moto("sapezal")`."""
    def build(town="tapurah"):
        v = factories.vehicle(town, "mototaxi")
        d = factories.driver(town, "mototaxista", holder=v.holder)
        d.vehicles.append(v)
        factories.licence(v)
        factories.insurance(v)
        return v
    return lambda town="tapurah": make(build, town)


@pytest.fixture
def agent(make):
    """Tapurah's agent AG-07."""
    return make(factories.user, "agent", "tapurah", badge_number="AG-07")


@pytest.fixture
def api(client, agent) -> Api:
    """The field API's JSON client, signed in as `agent`."""
    assert client.login(agent.username).status_code == 302
    return Api(client)


@pytest.fixture
def service():
    """A local Web Push service on loopback (tests/support/push.py)."""
    s = FakePushService()
    yield s
    s.close()
