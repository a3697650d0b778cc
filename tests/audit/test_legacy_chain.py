"""A log written before the chains were split per town (migration 0032) is kept as the single
chain it was, not recomputed: what documents printed still holds. The deployment chain's first
entry records where that legacy chain ended, so cutting its tail, or rewriting it whole,
shows."""
from __future__ import annotations

import flask_migrate
import pytest
from sqlalchemy import text

from inspector import audit, create_app
from inspector.extensions import db
from inspector.models import AuditEntry
from tests.support.config import app_config
from tests.support.databases import private_database
from tests.support.legacy_audit import write_legacy_log


@pytest.fixture
def upgraded(schema, tmp_path):
    """A database at 0030 with a legacy log, upgraded to this program's head; the app and the
    (seq, hash) pairs printed before the upgrade."""
    with private_database(schema, "legacy", tmp_path / "legacy.sqlite3") as url:
        app = create_app(app_config(url))
        with app.app_context():
            flask_migrate.upgrade(revision="0030")
            with db.engine.begin() as conn:
                printed = write_legacy_log(conn)
            flask_migrate.upgrade()
        yield app, printed
        with app.app_context():
            db.engine.dispose()


def _verify(app):
    return app.test_cli_runner().invoke(args=["audit", "verify"])


def test_the_legacy_chain_verifies_and_its_printed_entries_hold(upgraded):
    app, printed = upgraded
    seq, digest = printed[2]
    result = app.test_cli_runner().invoke(args=["audit", "verify", "--expect",
                                                f"{seq}:{digest}"])
    assert result.exit_code == 0, result.output
    assert f"ok: legacy: {len(printed)} entries, chain intact" in result.output
    assert "ok: deployment: 1 entries, chain intact" in result.output
    town = app.test_cli_runner().invoke(args=["audit", "verify", "--town", "tapurah"])
    assert town.exit_code == 0 and "ok: legacy" in town.output, town.output


def test_a_legacy_tail_cut_off_shows(upgraded):
    app, printed = upgraded
    with app.app_context():
        db.session.execute(text("DELETE FROM audit_entries WHERE seq = :s"), {"s": printed[-1][0]})
        db.session.commit()
    result = _verify(app)
    assert result.exit_code == 1
    assert f"BROKEN: legacy: at entry #{printed[-2][0]}" in result.output
    assert "its tail was cut or rewritten" in result.output


def test_a_legacy_chain_rewritten_whole_shows(upgraded):
    """Every legacy entry recomputed after an edit, so that the legacy chain alone holds: the
    cut-over entry still names the old head."""
    app, printed = upgraded
    with app.app_context():
        rows = db.session.scalars(db.select(AuditEntry).where(AuditEntry.chain_seq.is_(None))
                                  .order_by(AuditEntry.seq)).all()
        prev = audit.GENESIS
        for r in rows:
            after = '{"colour":"Reescrita"}' if r.seq == 2 else r.after
            r.after, r.prev_hash = after, prev
            r.hash = prev = audit.entry_hash(r.seq, r.at, r.actor, r.actor_id, r.municipality_id,
                                             r.action, r.entity, r.entity_id, r.before, after,
                                             prev)
            db.session.flush()
        db.session.commit()
        [legacy] = [c for c in audit.chains() if c.chain == audit.LEGACY]
        assert legacy.count == len(printed)  # the legacy chain alone holds...
        assert "its tail was cut or rewritten" in legacy.broken.reason  # ...not its cut-over
        assert audit.missing_anchors(printed[1:2])  # and what documents printed is gone
    result = _verify(app)
    assert result.exit_code == 1 and "BROKEN: legacy" in result.output


def test_a_downgrade_and_upgrade_again_keep_both_kinds_of_chain(upgraded):
    """Back to 0030 (positions and digests dropped, every entry kept) and up again: each
    town's chain is found again from the hashes, the legacy one stays legacy."""
    app, printed = upgraded
    with app.app_context():
        for town_id in (1, 2):
            audit.record("vehicle_updated", "vehicle", 1, actor="teste",
                         municipality_id=town_id, after={"colour": "Verde"})
        db.session.commit()
        before = {c.chain: (c.count, c.head) for c in audit.chains()}
        db.session.remove()  # its read would hold up the migrations' ALTER TABLE
        flask_migrate.downgrade(revision="0030")
        flask_migrate.upgrade()
        db.session.remove()
        after = {c.chain: (c.count, c.head, c.broken) for c in audit.chains()}
    assert after == {k: (*v, None) for k, v in before.items()}
    assert set(after) == {audit.LEGACY, audit.DEPLOYMENT, "tapurah", "nortelandia"}
    assert _verify(app).exit_code == 0
