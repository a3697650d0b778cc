"""Released migrations never change, and every schema a released or development build left
upgrades to this program's head with the models matching (docs/releases.md):

- each migration file a release listed (released_migrations.json) is still here, byte for
  byte: an edit or a deletion fails with the way out (a new migration);
- a database at the head of each release, built from that release's own migration files and
  holding a town's records as that release wrote them (tests/support/legacy_rows.py),
  upgrades with `flask db upgrade`; the program then reads each stored JSON document as the
  value it was written as, and `audit verify` and `evidence verify` still pass;
- the same with an audit log as that release wrote it (one chain over every town): its log
  still verifies, every entry a document printed is still there, and new entries go to each
  town's own chain;
- a database that ran the withdrawn revision 0027 (its file kept in released_schemas/),
  and one migrated to 0026 before 0026 gained ix_inspection_photos_waiting, both upgrade.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import flask_migrate
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import inspect, select, text

from inspector import MIGRATIONS, audit, create_app
from inspector.extensions import db
from inspector.models import AuditEntry, Municipality
from tests.support import legacy_rows
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


def release_database(version: str, fresh_url: str, tmp_path: Path, write):
    """An app on a database at the head of `version`, built from that release's own migration
    files (the first test holds them byte for byte to what the release shipped), holding what
    `write(conn)` wrote with that schema; returns (app, what `write` returned)."""
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
    app = create_app(app_config(fresh_url) | {"EVIDENCE_DIR": str(tmp_path / "evidence")})
    with app.app_context():
        flask_migrate.upgrade(directory=str(scripts))
        with db.engine.begin() as conn:
            written = write(conn)
        db.engine.dispose()
    return app, written


@pytest.mark.parametrize("version", list(released()))
def test_a_database_at_the_head_of_a_release_upgrades_to_this_program(version, fresh_url,
                                                                     tmp_path):
    app, rows = release_database(  # a town's records, as that release wrote them
        version, fresh_url, tmp_path, lambda conn: legacy_rows.release_1_0_0(
            conn, tmp_path / "evidence"))
    upgrade_to_head_matches_the_models(app)
    the_records_kept_their_meaning_and_their_hashes(app, rows)


@pytest.mark.parametrize("version", list(released()))
def test_a_released_audit_log_still_verifies_after_the_upgrade(version, fresh_url, tmp_path):
    app, printed = release_database(version, fresh_url, tmp_path, write_legacy_log)
    upgrade_to_head_matches_the_models(app)
    with app.app_context():
        the_log_as_released_still_verifies(printed)
        db.engine.dispose()


def the_records_kept_their_meaning_and_their_hashes(app, rows: dict) -> None:
    """After the upgrade the program reads each stored document as the value it was written
    as, and the audit chain and the evidence still verify."""
    from inspector.models import (
        EnforcementEvent,
        Inspection,
        InspectionItem,
        NoticeCompanyCopy,
        Sanction,
        Vistoria,
    )

    with app.app_context():
        act = db.session.execute(select(
            Sanction.citation, Sanction.breach_citation, Sanction.deadline_citation,
            Sanction.on_missed, Sanction.appeal_citation).where(Sanction.id == rows["act"])).one()
        assert tuple(act) == (legacy_rows.CITATION, legacy_rows.BREACH, legacy_rows.DEADLINE,
                              legacy_rows.ON_MISSED, None)
        assert db.session.scalar(select(NoticeCompanyCopy.citation).where(
            NoticeCompanyCopy.id == rows["copy"])) == legacy_rows.CITATION
        assert db.session.scalar(select(EnforcementEvent.data).where(
            EnforcementEvent.id == rows["event"])) == legacy_rows.EVENT
        assert db.session.scalar(select(Vistoria.to_fix).where(
            Vistoria.id == rows["vistoria"])) == legacy_rows.TO_FIX
        assert db.session.scalar(select(InspectionItem.citation).where(
            InspectionItem.id == rows["item"])) == legacy_rows.DEADLINE
        body, digest, changes = db.session.execute(select(
            Inspection.body, Inspection.body_sha256, Inspection.registry_changes).where(
            Inspection.id == rows["inspection"])).one()
        # the body stays the bytes its hash (printed on the documents) was taken of
        assert body == rows["body"] and hashlib.sha256(body.encode()).hexdigest() == digest
        assert changes[0]["entity_id"] == "7"
        db.session.remove()
        db.engine.dispose()
    runner = app.test_cli_runner()
    checked = runner.invoke(args=["audit", "verify", "--json"])
    assert checked.exit_code == 0, checked.output
    # the three entries 1.0.0 chained, and the cut-over entry 0032 wrote after them
    assert json.loads(checked.output)["verified"] == 4
    evidence = runner.invoke(args=["evidence", "verify", "--json"])
    assert evidence.exit_code == 0, evidence.output
    assert json.loads(evidence.output)["verified"] == 1
    with app.app_context():
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
