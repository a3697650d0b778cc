"""Released migrations never change, and every schema a released or development build left
upgrades to this program's head with the models matching (docs/releases.md):

- each migration file a release listed (released_migrations.json) is still here, byte for
  byte: an edit or a deletion fails with the way out (a new migration);
- a database at the head of each release, built from that release's own migration files,
  with an audit log as that release wrote it (one chain over every town), upgrades with
  `flask db upgrade`: its log still verifies, every entry a document printed is still there,
  and new entries go to each town's own chain;
- a database that ran the withdrawn revision 0027 (its file kept in released_schemas/),
  and one migrated to 0026 before 0026 gained ix_inspection_photos_waiting, both upgrade.
"""
from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import flask_migrate
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from inspector import MIGRATIONS, audit, create_app
from inspector.extensions import db
from inspector.models import AuditEntry, Municipality
from tests.support.config import app_config
from tests.support.legacy_audit import write_legacy_log
from tests.support.released_migrations import VERSIONS, released, sha256

HERE = Path(__file__).resolve().parent
WITHDRAWN_0027 = HERE / "released_schemas" / "withdrawn_0027_audit_chained_at_commit.py"


def test_every_released_migration_is_unchanged():
    problems = []
    for version, files in released().items():
        for name, digest in files.items():
            path = VERSIONS / name
            if not path.exists():
                problems.append(f"{name} (lançada em {version}) foi apagada")
            elif sha256(path) != digest:
                problems.append(f"{name} (lançada em {version}) foi alterada")
    assert not problems, ("; ".join(problems) + ". Uma migração lançada nunca muda: restaure o "
                          "arquivo (git checkout) e faça a mudança numa migração nova "
                          "(docs/releases.md)")


def test_the_list_names_every_migration_of_this_tree():
    listed = {name for files in released().values() for name in files}
    unlisted = sorted(p.name for p in VERSIONS.glob("*.py") if p.name not in listed)
    # a new migration is listed when its release is cut; until then it may still change
    assert len(unlisted) <= 3, f"migrações novas demais sem lançamento: {unlisted}"


@pytest.fixture
def fresh_url(schema, tmp_path):
    """A new, empty database beside the suite's: a SQLite file, or a PostgreSQL database."""
    base = make_url(schema)
    if base.get_backend_name() == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    name = f"{base.database}_up_{uuid.uuid4().hex[:6]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield base.set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def upgrade_to_head_matches_the_models(app) -> None:
    result = app.test_cli_runner().invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        with db.engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True,
                                                         "render_as_batch": True})
            assert ctx.get_current_revision() == head()
            diff = compare_metadata(ctx, db.metadata)
        db.engine.dispose()
    assert diff == [], f"after the upgrade, models and schema differ: {diff}"


def head() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(cfg).get_current_head()


@pytest.mark.parametrize("version", list(released()))
def test_a_database_at_the_head_of_a_release_upgrades_to_this_program(version, fresh_url,
                                                                     tmp_path):
    # the release's migration set: its files and every earlier release's, as listed (the
    # first test holds them byte for byte to what the release shipped)
    names = []
    for v, files in released().items():
        names += list(files)
        if v == version:
            break
    scripts = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, scripts, ignore=shutil.ignore_patterns("versions", "__pycache__"))
    (scripts / "versions").mkdir()
    for name in names:
        shutil.copy(VERSIONS / name, scripts / "versions" / name)
    app = create_app(app_config(fresh_url))
    with app.app_context():
        flask_migrate.upgrade(directory=str(scripts))
        with db.engine.begin() as conn:
            printed = write_legacy_log(conn)
        db.engine.dispose()
    upgrade_to_head_matches_the_models(app)
    with app.app_context():
        the_log_as_released_still_verifies(printed)
        db.engine.dispose()


def the_log_as_released_still_verifies(printed: list[tuple[int, str]]) -> None:
    """The released log is kept as it was (none of its hashes recomputed: documents printed
    them), ends where the cut-over entry says, and new entries start each town's chain."""
    checks = {c.chain: c for c in audit.chains()}
    assert {k: (c.count, c.broken) for k, c in checks.items()} == {
        audit.LEGACY: (len(printed), None), audit.DEPLOYMENT: (1, None)}
    assert audit.missing_anchors(printed) == []
    cut_over = db.session.scalar(db.select(AuditEntry).filter_by(action=audit.CUT_OVER))
    assert cut_over.seq > printed[-1][0] and cut_over.chain_seq == 1
    assert json.loads(cut_over.after)["legacy_head"] == {"seq": printed[-1][0],
                                                         "sha256": printed[-1][1]}
    towns = db.session.scalars(db.select(Municipality).order_by(Municipality.slug)).all()
    for town in towns:
        audit.record("vehicle_updated", "vehicle", 1, actor="teste", municipality_id=town.id,
                     after={"colour": "Verde"})
    db.session.commit()
    checks = {c.chain: c for c in audit.chains()}
    assert {k: (c.count, c.broken) for k, c in checks.items()} == {
        audit.LEGACY: (len(printed), None), audit.DEPLOYMENT: (1, None),
        "nortelandia": (1, None), "tapurah": (1, None)}
    assert all(audit.head(t.id)[0] > cut_over.seq for t in towns)


def test_a_database_that_ran_the_withdrawn_0027_upgrades_to_this_program(fresh_url):
    app = create_app(app_config(fresh_url))
    with app.app_context():
        flask_migrate.upgrade(revision="0026")
        with db.engine.begin() as conn:   # the withdrawn file's own operations, by hand
            namespace: dict = {}
            exec(compile(WITHDRAWN_0027.read_text(), str(WITHDRAWN_0027), "exec"), namespace)
            with Operations.context(MigrationContext.configure(
                    conn, opts={"render_as_batch": True})):
                namespace["upgrade"]()
            conn.execute(text("UPDATE alembic_version SET version_num = '0027'"))
        found = inspect(db.engine)
        assert "ix_audit_entries_unchained" in {i["name"] for i in
                                               found.get_indexes("audit_entries")}
        assert next(c for c in found.get_columns("audit_entries") if c["name"] == "seq")["nullable"]
        db.engine.dispose()
    upgrade_to_head_matches_the_models(app)
    with app.app_context():
        found = inspect(db.engine)
        assert "ix_audit_entries_unchained" not in {i["name"] for i in
                                                   found.get_indexes("audit_entries")}
        assert not next(c for c in found.get_columns("audit_entries")
                        if c["name"] == "seq")["nullable"]
        db.engine.dispose()


def test_a_database_migrated_to_0026_before_its_photo_index_gets_it(fresh_url):
    app = create_app(app_config(fresh_url))
    with app.app_context():
        flask_migrate.upgrade(revision="0026")
        with db.engine.begin() as conn:   # 0026 as it was first written: without this index
            conn.execute(text("DROP INDEX ix_inspection_photos_waiting"))
        db.engine.dispose()
    upgrade_to_head_matches_the_models(app)
    with app.app_context():
        indexes = {i["name"] for i in inspect(db.engine).get_indexes("inspection_photos")}
        db.engine.dispose()
    assert "ix_inspection_photos_waiting" in indexes
