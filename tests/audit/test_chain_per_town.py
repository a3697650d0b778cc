"""Each town is its own legal entity (docs/security.md, "One chain per town"): its entries
form a chain of their own, verified on its own, and no lock is shared by two towns: one
town's open commit does not hold up another's, while one town's concurrent writes still make
one unbroken chain."""
from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select, text

from inspector import audit
from inspector.extensions import db
from inspector.models import AuditEntry
from tests import factories


def _write(town_id: int | None, what: str) -> None:
    audit.record("vehicle_updated", "vehicle", 1, actor="teste", municipality_id=town_id,
                 after={"colour": what})


def _chain(town_id: int | None) -> list[AuditEntry]:
    return list(db.session.scalars(select(AuditEntry).where(
        AuditEntry.municipality_id.is_(None) if town_id is None
        else AuditEntry.municipality_id == town_id).order_by(AuditEntry.seq)))


@pytest.fixture
def two_towns(app):
    """Tapurah and Sapezal, their entries interleaved, and one entry of no town."""
    with app.app_context():
        tapurah, sapezal = factories.town("tapurah"), factories.town("sapezal")
        db.session.commit()
        for i in range(3):
            _write(tapurah.id, f"T{i}")
            db.session.commit()
            _write(sapezal.id, f"S{i}")
            db.session.commit()
        _write(None, "conta de administrador")
        db.session.commit()
        return tapurah.id, sapezal.id


def _verify(app, *args):
    return app.test_cli_runner().invoke(args=["audit", "verify", *args])


def test_each_town_chains_to_its_own_previous_entry(app, two_towns):
    tapurah, sapezal = two_towns
    with app.app_context():
        for town in (tapurah, sapezal, None):
            chain = _chain(town)
            assert [e.chain_seq for e in chain] == list(range(1, len(chain) + 1))
            assert chain[0].prev_hash == audit.genesis(town)
            assert all(b.prev_hash == a.hash for a, b in zip(chain, chain[1:]))
        assert audit.head(tapurah) == (_chain(tapurah)[-1].seq, _chain(tapurah)[-1].hash)
    result = _verify(app)
    assert result.exit_code == 0, result.output
    for line in ("ok: deployment: 1 entries", "ok: sapezal: 3 entries", "ok: tapurah: 3 entries",
                 "ok: 7 entries in 3 chain(s)"):
        assert line in result.output


def test_a_broken_town_is_named_and_the_other_towns_still_verify(app, two_towns):
    tapurah, _ = two_towns
    with app.app_context():
        seq = _chain(tapurah)[1].seq
        db.session.execute(text("UPDATE audit_entries SET after = :a WHERE seq = :s"),
                           {"a": '{"colour":"Preta"}', "s": seq})
        db.session.commit()
    everything = _verify(app)
    assert everything.exit_code == 1
    assert f"BROKEN: tapurah: at entry #{seq}" in everything.output
    assert "ok: sapezal: 3 entries, chain intact" in everything.output
    report = json.loads(_verify(app, "--json").output)
    assert report["broken"]["chain"] == "tapurah" and report["broken"]["seq"] == seq
    assert {c["chain"]: c["broken"] is None for c in report["chains"]} == {
        "deployment": True, "sapezal": True, "tapurah": False}
    assert _verify(app, "--town", "sapezal").exit_code == 0
    one = _verify(app, "--town", "tapurah")
    assert one.exit_code == 1 and "sapezal" not in one.output


def test_a_deleted_entry_of_one_town_breaks_that_town_only(app, two_towns):
    tapurah, sapezal = two_towns
    with app.app_context():
        gone = _chain(sapezal)[0]
        db.session.execute(text("DELETE FROM audit_entries WHERE id = :i"), {"i": gone.id})
        db.session.commit()
        [broken] = [c for c in audit.chains() if c.broken is not None]
        assert broken.chain == "sapezal" and "deleted" in broken.broken.reason
        assert [c.broken for c in audit.chains(tapurah)] == [None]


def test_an_unknown_town_is_one_line_in_portuguese_and_exit_2(app, two_towns):
    for command in (["audit", "verify", "--town", "atlantida"],
                    ["audit", "head", "--town", "atlantida"]):
        result = app.test_cli_runner().invoke(args=command)
        assert result.exit_code == 2
        assert result.stderr.strip().splitlines() == [
            "erro: município 'atlantida' não existe (veja `flask --app inspector towns list`)"]


def _postgresql(app) -> None:
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("SQLite has one writer for the whole database: towns wait there anyway")


def test_one_towns_open_commit_does_not_hold_up_another_town(app, two_towns):
    """Tapurah's transaction is in its commit, its chain locked and its entry chained but not
    committed (as a tick's commit of many entries is for a while); Sapezal's write goes
    through at once, while a second Tapurah write waits for the first: same-town writes stay
    totally ordered."""
    _postgresql(app)
    tapurah, sapezal = two_towns
    with app.app_context():
        _write(tapurah, "A: tick at work")
        assert audit.sequence(db.session()) == 1   # chained and locked, not committed
        done = {"sapezal": threading.Event(), "tapurah": threading.Event()}

        def writer(town_id, name):
            with app.app_context():
                db.session.execute(text("SET lock_timeout = '20s'"))
                _write(town_id, f"B: {name}")
                db.session.commit()
                done[name].set()

        started = time.monotonic()
        threads = [threading.Thread(target=writer, args=(t, n))
                   for t, n in ((sapezal, "sapezal"), (tapurah, "tapurah"))]
        for t in threads:
            t.start()
        other_town = done["sapezal"].wait(5)
        waited = time.monotonic() - started
        same_town_went_through = done["tapurah"].wait(1)
        db.session.commit()
        for t in threads:
            t.join(30)
        assert other_town and waited < 5, "Sapezal waited for Tapurah's commit"
        assert not same_town_went_through, "a second Tapurah write did not wait for the first"
        assert done["tapurah"].is_set()
        actions = [json.loads(e.after)["colour"] for e in _chain(tapurah)]
        assert actions[-2:] == ["A: tick at work", "B: tapurah"]
        assert audit.verify()[1] is None


def test_eight_concurrent_writes_of_one_town_make_one_unbroken_chain(app, two_towns):
    _postgresql(app)
    tapurah, sapezal = two_towns
    barrier = threading.Barrier(16)

    def writer(town_id, i):
        with app.app_context():
            _write(town_id, f"concurrent {i}")
            db.session.flush()
            barrier.wait(10)
            db.session.commit()

    with ThreadPoolExecutor(16) as pool:
        for f in [pool.submit(writer, town, i) for town in (tapurah, sapezal) for i in range(8)]:
            f.result()
    with app.app_context():
        for town in (tapurah, sapezal):
            chain = _chain(town)
            assert [e.chain_seq for e in chain] == list(range(1, 12))
            assert sorted(json.loads(e.after)["colour"] for e in chain[3:]) == \
                sorted(f"concurrent {i}" for i in range(8))
        assert audit.verify() == (23, None)
