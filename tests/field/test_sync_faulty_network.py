"""A Hypothesis state machine plays a phone syncing its outbox through a faulty network.

Faults: the request never arrives (or a proxy answers 5xx without reaching the app);
the server commits but the answer is lost (a timeout, a dropped connection); the app
fails with a 500 after writing (rolled back); the same request replayed; the same
request sent twice at once. Whatever happens, once the network is good again the
server holds every inspection and photo the phone saved, each exactly once, with the
bytes the phone hashed. Runs on SQLite and PostgreSQL; FIELD_SYNC_RUNS sets the number
of runs (default 1,000), made in SHARDS tests of their own that the two pytest workers share
(tests/conftest.py), each on an empty database and with a seed of its own.
"""
from __future__ import annotations

import os
import threading
import uuid
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import func, select

from inspector.extensions import db
from inspector.inspections import records
from inspector.models import AuditEntry, Inspection, Photo
from tests import factories
from tests.support.field_api import Api, jpeg, photo_decl, sha

RUNS = int(os.environ.get("FIELD_SYNC_RUNS", "1000"))
SHARDS = 8
FAULTS = ("ok", "ok", "drop", "lost", "app_500", "replay", "concurrent")
POOL = [jpeg(100 + i, size=(16, 12)) for i in range(12)]


class Boom(RuntimeError):
    """An injected failure inside the app, after its writes and before the commit."""


@dataclass
class Entry:
    """An outbox entry on the phone: the inspection and the photos not yet confirmed."""

    id: str
    body: dict
    photos: dict[str, bytes]
    acked: bool = False
    missing: set[str] = field(default_factory=set)


class Faults:
    """The network between phone and server, and a switch to make the app fail once."""

    def __init__(self, app):
        self.fail_next = threading.local()
        real_store, real_bytes = records._store, records.mark_received

        def store(*args, **kwargs):
            out = real_store(*args, **kwargs)
            self._maybe_fail()
            return out

        def store_bytes(*args, **kwargs):
            out = real_bytes(*args, **kwargs)
            self._maybe_fail()
            return out
        self.patches = [(records, "_store", store),
                        (records, "mark_received", store_bytes)]

    def _maybe_fail(self):
        if getattr(self.fail_next, "on", False):
            self.fail_next.on = False
            raise Boom("injected")

    def send(self, apis: list[Api], fault: str, call):
        """Run `call(api)` under a fault; the phone's view: a response, or None (no answer)."""
        if fault == "drop":  # never arrived (or a gateway answered 5xx without the app)
            return None
        if fault == "app_500":
            self.fail_next.on = True
            r = call(apis[0])
            self.fail_next.on = False
            # 500 when the app got as far as writing; a replay writes nothing and answers
            # normally; 404 for a photo of an inspection the server never got.
            assert r.status_code in (200, 201, 404, 500), (r.status_code, r.get_json())
            return None if r.status_code >= 500 else r
        if fault == "lost":
            call(apis[0])
            return None
        if fault == "replay":
            call(apis[0])
            return call(apis[0])
        if fault == "concurrent":
            out = [None, None]

            def run(i):
                out[i] = call(apis[i])
            threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            codes = sorted(r.status_code for r in out)
            # Never a 4xx for the same request twice; a 5xx (a lock wait given up under load)
            # is retried by the phone like any other.
            assert all(c in (200, 201) or c >= 500 for c in codes), codes
            assert codes.count(201) <= 1, codes
            return next((r for r in out if r.status_code < 500), out[0])
        return call(apis[0])


def _machine(app, apis: list[Api], vehicle_id: int, faults: Faults):
    class PhoneSync(RuleBasedStateMachine):
        """The phone's outbox against the server."""

        @initialize()
        def start(self):
            self.outbox: dict[str, Entry] = {}
            self.saved: dict[str, Entry] = {}

        @rule(n_photos=st.integers(0, 3), picks=st.lists(st.integers(0, len(POOL) - 1),
                                                           min_size=3, max_size=3))
        def save_inspection(self, n_photos, picks):
            """The agent saves an inspection offline (failed item with photos)."""
            iid = str(uuid.uuid4())
            photos = {str(uuid.uuid4()): POOL[p] for p in picks[:n_photos]}
            items = [{"item_id": "mirrors", "result": "ok", "photos": []}]
            if photos:
                items.append({"item_id": "tank-sign", "result": "fail", "note": "x",
                              "photos": [photo_decl(b, pid=pid) for pid, b in photos.items()]})
            body = {"vehicle_id": vehicle_id, "credential_token": None,
                    "started_at": "2026-11-30T13:00:00Z", "finished_at": "2026-11-30T13:05:00Z",
                    "snapshot_version": None, "location": None, "items": items,
                    "acknowledgement": None}
            entry = Entry(iid, body, photos)
            self.outbox[iid] = self.saved[iid] = entry

        @precondition(lambda self: self.outbox)
        @rule(data=st.data(), fault=st.sampled_from(FAULTS))
        def sync_one(self, data, fault):
            """One request of a sync run: the inspection first, then a missing photo."""
            # Choices follow insertion order (UUIDs are random; their order is not stable).
            entry = self.outbox[data.draw(st.sampled_from(list(self.outbox)))]
            if not entry.acked:
                r = faults.send(apis, fault, lambda a: a.put_inspection(entry.id, entry.body))
                if r is None or r.status_code >= 500:
                    return  # no answer, or one worth retrying: the entry stays
                assert r.status_code in (200, 201), r.get_json()
                entry.acked, entry.missing = True, set(r.json["missing_photos"])
            else:
                pid = data.draw(st.sampled_from([p for p in entry.photos
                                                 if p in entry.missing]))
                r = faults.send(apis, fault,
                                lambda a: a.put_photo(entry.id, pid, entry.photos[pid]))
                if r is None or r.status_code >= 500:
                    return
                assert r.status_code in (200, 201), r.get_json()
                entry.missing = set(r.json["missing_photos"])
            if not entry.missing:
                del self.outbox[entry.id]  # the phone deletes only what the server confirmed

        def teardown(self):
            """The network comes back: everything the phone saved arrives, exactly once."""
            for entry in list(getattr(self, "outbox", {}).values()):
                r = apis[0].put_inspection(entry.id, entry.body)
                assert r.status_code in (200, 201)
                for pid in r.json["missing_photos"]:
                    assert apis[0].put_photo(entry.id, pid, entry.photos[pid]).status_code == 201
            saved = getattr(self, "saved", {})
            if not saved:
                return
            with app.app_context():
                rows = db.session.scalars(select(Inspection.uuid)
                                          .where(Inspection.uuid.in_(list(saved)))).all()
                assert sorted(rows) == sorted(saved)  # all there, none twice
                for iid, entry in saved.items():
                    insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
                    assert insp is not None and not records.progress(insp)["missing_photos"]
                    got = {p.uuid: sha(records.photo_bytes(p)) for p in insp.photos}
                    assert got == {pid: sha(b) for pid, b in entry.photos.items()}
                received = db.session.execute(
                    select(AuditEntry.entity_id, func.count()).where(
                        AuditEntry.action == "inspection_received",
                        AuditEntry.entity_id.in_(list(saved)))
                    .group_by(AuditEntry.entity_id)).all()
                assert sorted(received) == sorted((iid, 1) for iid in saved)
                photo_ids = [pid for e in saved.values() for pid in e.photos]
                if photo_ids:
                    n = db.session.scalar(select(func.count()).select_from(AuditEntry).where(
                        AuditEntry.action == "photo_received",
                        AuditEntry.entity_id.in_(photo_ids)))
                    assert n == len(photo_ids)
                    assert db.session.scalar(select(func.count()).select_from(Photo).where(
                        Photo.uuid.in_(photo_ids))) == len(photo_ids)

    return PhoneSync


def shard_runs(shard: int) -> int:
    """This shard's part of the RUNS runs: the shards' parts add up to RUNS."""
    return RUNS // SHARDS + (shard < RUNS % SHARDS)


@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda n: f"shard{n + 1}of{SHARDS}")
def test_nothing_lost_nothing_duplicated_through_a_faulty_network(app, make, monkeypatch, shard):
    if not shard_runs(shard):
        pytest.skip(f"FIELD_SYNC_RUNS={RUNS} leaves this shard no run")
    agent = make(factories.user, "agent", "tapurah")
    v = make(factories.vehicle, "tapurah", "mototaxi")
    apis = []
    for _ in range(2):  # two connections of the same phone (same session)
        c = app.test_client()
        assert c.login(agent.username).status_code == 302
        apis.append(Api(c))
    faults = Faults(app)
    for target, name, value in faults.patches:
        monkeypatch.setattr(target, name, value)
    machine = _machine(app, apis, v.id, faults)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=shard_runs(shard), stateful_step_count=6, deadline=None, database=None,
        suppress_health_check=list(HealthCheck)))


@pytest.mark.parametrize("fault", ["lost", "app_500", "concurrent"])
def test_each_fault_alone(app, make, monkeypatch, fault):
    """One inspection with two photos, every request under the same fault, then a clean run."""
    agent = make(factories.user, "agent", "tapurah")
    v = make(factories.vehicle, "tapurah", "mototaxi")
    apis = []
    for _ in range(2):
        c = app.test_client()
        c.login(agent.username)
        apis.append(Api(c))
    faults = Faults(app)
    for target, name, value in faults.patches:
        monkeypatch.setattr(target, name, value)
    b = {"vehicle_id": v.id, "started_at": "2026-11-30T13:00:00Z",
         "finished_at": "2026-11-30T13:05:00Z",
         "items": [{"item_id": "tank-sign", "result": "fail",
                    "photos": [photo_decl(POOL[0]), photo_decl(POOL[1])]}]}
    iid = str(uuid.uuid4())
    faults.send(apis, fault, lambda a: a.put_inspection(iid, b))
    for decl, data in zip(b["items"][0]["photos"], POOL[:2]):
        faults.send(apis, fault, lambda a, decl=decl, data=data: a.put_photo(iid, decl["id"], data))
    r = apis[0].put_inspection(iid, b)
    for pid in r.json["missing_photos"]:
        data = POOL[[p["id"] for p in b["items"][0]["photos"]].index(pid)]
        assert apis[0].put_photo(iid, pid, data).status_code == 201
    assert apis[0].get(f"/api/field/inspections/{iid}").json["complete"] is True
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Inspection)) == 1
        assert db.session.scalar(select(func.count()).select_from(Photo)) == 2
