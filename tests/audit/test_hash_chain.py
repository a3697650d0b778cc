"""The audit log is a hash chain per town: any edit, deletion or reordering in the database
shows, in the chain of the town it touched."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from inspector import audit
from inspector.extensions import db
from tests import factories


@pytest.fixture
def chain(app):
    """Five entries written through the service, as the app writes them."""
    with app.app_context():
        town = factories.town("tapurah")
        for i in range(5):
            audit.record("vehicle_updated", "vehicle", i, before={"colour": "Azul"},
                         after={"colour": f"Cor {i}", "year": 2020 + i},
                         actor="teste", municipality_id=town.id)
        db.session.commit()
    return app


def _run(app, sql: str, **params) -> None:
    with app.app_context():
        with db.engine.begin() as conn:
            conn.execute(text(sql), params)


def _verify(app):
    with app.app_context():
        return audit.verify()


def test_an_untouched_chain_verifies(chain):
    count, broken = _verify(chain)
    assert (count, broken) == (5, None)


def test_each_entry_links_to_the_previous_ones_hash(chain):
    with chain.app_context():
        rows = db.session.scalars(db.select(audit.AuditEntry).order_by(audit.AuditEntry.seq)).all()
        town_id = rows[0].municipality_id
        assert rows[0].prev_hash == audit.genesis(town_id) != audit.genesis(None)
        assert [r.chain_seq for r in rows] == [1, 2, 3, 4, 5]
        for prev, cur in zip(rows, rows[1:]):
            assert cur.prev_hash == prev.hash


def test_an_edited_entry_is_found(chain):
    _run(chain, "UPDATE audit_entries SET after = :a WHERE seq = 3",
         a=json.dumps({"colour": "Preta"}))
    count, broken = _verify(chain)
    assert count == 2 and broken.seq == 3 and "edited" in broken.reason


def test_an_edited_actor_is_found(chain):
    _run(chain, "UPDATE audit_entries SET actor = 'outra pessoa' WHERE seq = 2")
    assert _verify(chain)[1].seq == 2


def test_a_deleted_entry_is_found(chain):
    _run(chain, "DELETE FROM audit_entries WHERE seq = 2")
    count, broken = _verify(chain)
    assert count == 1 and broken.seq == 3 and "deleted" in broken.reason


def test_reordered_entries_are_found(chain):
    # Swap the positions of entries 2 and 4 (their content and hashes untouched).
    _run(chain, "UPDATE audit_entries SET seq = -2 WHERE seq = 2")
    _run(chain, "UPDATE audit_entries SET seq = 2 WHERE seq = 4")
    _run(chain, "UPDATE audit_entries SET seq = 4 WHERE seq = -2")
    count, broken = _verify(chain)
    assert count == 1 and broken.seq == 2 and "reordered" in broken.reason


def test_a_recomputed_hash_still_breaks_the_next_link(chain):
    """Forging one entry and its own hash is not enough: the next entry points at the old one."""
    with chain.app_context():
        e = db.session.scalar(db.select(audit.AuditEntry).filter_by(seq=3))
        forged_after = audit.canonical({"colour": "Preta"})
        forged = audit.entry_hash(e.seq, e.at, e.actor, e.actor_id, e.municipality_id, e.action,
                                  e.entity, e.entity_id, e.before, forged_after, e.prev_hash,
                                  chain_seq=e.chain_seq)
    _run(chain, "UPDATE audit_entries SET after = :a, hash = :h WHERE seq = 3",
         a=forged_after, h=forged)
    count, broken = _verify(chain)
    assert count == 3 and broken.seq == 4


def test_cli_reports_ok_then_the_first_broken_link(chain):
    runner = chain.test_cli_runner()
    ok = runner.invoke(args=["audit", "verify"])
    assert ok.exit_code == 0 and "tapurah: 5 entries, chain intact" in ok.output
    _run(chain, "DELETE FROM audit_entries WHERE seq = 4")
    bad = runner.invoke(args=["audit", "verify", "--json"])
    assert bad.exit_code == 1
    report = json.loads(bad.output)
    assert report["ok"] is False and report["broken"]["seq"] == 5 and report["verified"] == 3
    assert report["broken"]["chain"] == "tapurah"


def test_snapshot_records_columns_but_not_photo_bytes(app):
    with app.app_context():
        d = factories.driver("tapurah", photo=b"\xff\xd8jpeg", photo_mime="image/jpeg")
        db.session.commit()
        snap = audit.snapshot(d)
        assert snap["name"] == d.name and "photo" not in snap
        assert snap["category"] == "mototaxista"
