"""Entries are written, numbered and chained when their transaction commits (inspector/audit.py
`sequence`), so the chain's lock is held for that step only: a long transaction (the tick, an
import, a sync) no longer holds up every other town's audited writes while it works."""
from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select, text

from inspector import audit
from inspector.extensions import db
from inspector.models import AuditEntry
from tests import factories


def _entries() -> list[AuditEntry]:
    return list(db.session.scalars(select(AuditEntry).order_by(AuditEntry.id)))


def _write(action: str, town_id: int) -> None:
    audit.record(action, "vehicle", 1, actor="teste", municipality_id=town_id,
                 after={"action": action})


def test_entries_are_numbered_at_commit_in_the_order_written(app):
    with app.app_context():
        town = factories.town("tapurah")
        db.session.commit()
        for action in ("a", "b", "c"):
            _write(action, town.id)
        assert [e for e in _entries() if e.action in "abc"] == []  # nothing written yet
        assert audit.town_version(town.id) == 0
        db.session.commit()
        written = [e for e in _entries() if e.action in "abc"]
        assert [e.action for e in sorted(written, key=lambda e: e.seq)] == ["a", "b", "c"]
        assert [e.seq for e in written] == [written[0].seq + i for i in range(3)]
        assert audit.town_version(town.id) == written[-1].seq
        assert audit.verify() == (len(_entries()), None)


def test_a_rolled_back_transaction_or_savepoint_takes_its_entries(app):
    with app.app_context():
        town = factories.town("tapurah")
        db.session.commit()
        _write("undone with the transaction", town.id)
        db.session.rollback()
        with db.session.begin_nested():
            _write("kept", town.id)
        try:
            with db.session.begin_nested():
                _write("undone", town.id)
                with db.session.begin_nested():
                    _write("undone too, released inside", town.id)
                raise RuntimeError("the savepoint fails")
        except RuntimeError:
            pass
        _write("after", town.id)
        db.session.commit()
        actions = [e.action for e in sorted(_entries(), key=lambda e: e.seq)]
        assert not {a for a in actions if "undone" in a}
        assert actions[-2:] == ["kept", "after"]
        assert audit.verify() == (len(actions), None)


def test_an_entry_keeps_the_instant_it_was_given_in_utc(app):
    """The hash is taken before the row is written: an instant given in Cuiabá's time is
    written and hashed as the same UTC instant, so the chain still verifies."""
    with app.app_context():
        town = factories.town("tapurah")
        local = datetime(2026, 3, 2, 10, 30, 0, 123456, tzinfo=ZoneInfo("America/Cuiaba"))
        audit.record("vehicle_updated", "vehicle", 1, actor="teste", municipality_id=town.id,
                     at=local)
        db.session.commit()
        [entry] = [e for e in _entries() if e.action == "vehicle_updated"]
        at = entry.at if entry.at.tzinfo else entry.at.replace(tzinfo=UTC)
        assert at == local
        assert audit.verify()[1] is None


def test_a_transaction_still_working_does_not_hold_up_another_towns_write(app):
    """On PostgreSQL, where the chain's lock is an advisory lock: transaction A wrote an entry
    and is still busy (as the tick is for seconds); B, of another town, writes and commits at
    once. A's entry is chained after B's when A commits. (SQLite has one writer anyway.)"""
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("the chain's own lock is PostgreSQL's: SQLite serialises all writers")
        tapurah, sapezal = factories.town("tapurah"), factories.town("sapezal")
        db.session.commit()
        _write("A: tick at work", tapurah.id)
        db.session.flush()
        done = threading.Event()

        def other_town():
            with app.app_context():
                db.session.execute(text("SET lock_timeout = '20s'"))
                _write("B: registry edit", sapezal.id)
                db.session.commit()
                done.set()

        started = time.monotonic()
        worker = threading.Thread(target=other_town)
        worker.start()
        finished = done.wait(10)
        waited = time.monotonic() - started
        db.session.commit()   # A commits; a B still waiting on A would go on now
        worker.join(30)
        assert finished, "B waited for A's transaction to end"
        assert waited < 5
        order = [e.action for e in sorted(_entries(), key=lambda e: e.seq)]
        assert order[-2:] == ["B: registry edit", "A: tick at work"]
        assert audit.verify()[1] is None
