"""Evidence photos' bytes with the database: `flask evidence verify` names missing and
altered photos (loose files of photos received before packs too), a photo is fsynced when
the database's commit is durable, and migrations 0015 (bytes from the column to files) and
0019 (packed photos back to loose files on downgrade) move them whole. The store on disk
alone: tests/pure/test_evidence_files_and_packs.py."""
from __future__ import annotations

import hashlib
import os
import uuid

import flask_migrate
import pytest
from sqlalchemy import inspect, select, text

from inspector import create_app
from inspector.clock import default_day
from inspector.extensions import db
from inspector.inspections import evidence_store, records
from inspector.models import Photo
from tests.support.field_api import body, damage_evidence, jpeg, photos_of


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sync_two_photos(api, vehicle, seed: int) -> list[bytes]:
    """An inspection with two photos of a failed item, sent and stored; their bytes."""
    data = [jpeg(seed), jpeg(seed + 1)]
    b = body(vehicle.id, fail={"tank-sign": data})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    for decl, x in zip(photos_of(b), data):
        assert api.put_photo(iid, decl["id"], x).status_code == 201
    return data


def test_evidence_verify_names_missing_and_altered_photos(app, api, moto, runner):
    data = _sync_two_photos(api, moto(), 10)
    ok = runner.invoke(args=["evidence", "verify"])
    assert ok.exit_code == 0 and "ok: 2 photos checked" in ok.output
    with app.app_context():
        altered, lost = (db.session.scalar(select(Photo).filter_by(sha256=sha(x))) for x in data)
        damage_evidence(altered, data[0][:-4] + b"XXXX")
        damage_evidence(lost, None)
        where = f"ausente do pacote {lost.pack} (posição {lost.pack_offset})"
    bad = runner.invoke(args=["evidence", "verify"])
    assert bad.exit_code == 1
    assert f"{sha(data[0])}: o conteúdo não confere" in bad.output
    assert f"{sha(data[1])}: {where}" in bad.output
    assert "PROBLEMS: 2 photos checked" in bad.output


def test_verify_and_the_review_read_loose_files_of_photos_received_before_packs(
        app, api, moto, runner):
    data = _sync_two_photos(api, moto(), 12)
    with app.app_context():   # the first photo as migration 0019 left older ones: loose
        old = db.session.scalar(select(Photo).filter_by(sha256=sha(data[0])))
        evidence_store.put(old.sha256, data[0])
        old.pack = old.pack_offset = None
        db.session.commit()
        assert records.photo_bytes(old) == data[0]
        assert records.evidence_state(old) == "matches"
    assert "ok: 2 photos checked" in runner.invoke(args=["evidence", "verify"]).output
    with app.app_context():
        evidence_store.path_of(sha(data[0])).unlink()
    bad = runner.invoke(args=["evidence", "verify"])
    assert f"{sha(data[0])}: arquivo ausente" in bad.output and bad.exit_code == 1


def _migrated_app(tmp_path):
    """An app on its own SQLite file, migrated to the newest revision."""
    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "SQLALCHEMY_DATABASE_URI": url,
                      "EVIDENCE_DIR": str(tmp_path / "evidence")})
    with app.app_context():
        flask_migrate.upgrade()
    return app


def _an_inspection_with_a_failed_item():
    """(inspection id, its failed item's id, when it arrived), flushed, not committed."""
    from datetime import UTC, datetime

    from inspector.models import Inspection, InspectionItem, InspectionStatus, ItemResult
    from tests import factories

    v, agent_ = factories.vehicle(), factories.user("agent")
    db.session.flush()
    now = datetime.now(UTC)
    insp = Inspection(uuid=str(uuid.uuid4()), municipality_id=v.municipality_id,
                      agent_id=agent_.id, vehicle_id=v.id, service=v.service,
                      started_at=now, finished_at=now, rules_day=default_day(),
                      body_sha256="0" * 64, body="{}", received_at=now,
                      status=InspectionStatus.AWAITING_REVIEW)
    db.session.add(insp)
    db.session.flush()
    item = InspectionItem(inspection_id=insp.id, position=0, item_id="tank-sign",
                          result=ItemResult.FAIL, note="")
    db.session.add(item)
    db.session.flush()
    return insp.id, item.id, now


def _at_0014_with_photo_rows(tmp_path, photos: list[dict]):
    """An app on a SQLite database migrated to 0014 holding one inspection whose photo rows
    are `photos` (with the `data` column 0014 still had). The rows are made by today's models
    on today's schema, then the database goes down to 0014 (the models know columns 0014
    did not have), and the photos are written in 0014's own shape."""
    app = _migrated_app(tmp_path)
    with app.app_context():
        insp_id, item_id, now = _an_inspection_with_a_failed_item()
        db.session.commit()
        db.session.remove()
        flask_migrate.downgrade(revision="0014")
        for n, ph in enumerate(photos):
            db.session.execute(text(
                "INSERT INTO inspection_photos (id, uuid, inspection_id, item_id, position, "
                "sha256, mime, size, data, received_at) VALUES (:id, :u, :i, :t, :p, :s, "
                "'image/jpeg', 1, :d, :r)"), {"u": str(uuid.uuid4()), "i": insp_id,
                                              "t": item_id, "p": n, "r": now if ph["d"]
                                              else None} | ph)
        db.session.commit()
        db.session.remove()
        db.engine.dispose()
    return app


def test_migration_0015_moves_stored_bytes_to_files_and_back(tmp_path):
    data = jpeg(5)
    app = _at_0014_with_photo_rows(tmp_path, [{"id": 1, "s": sha(data), "d": data},
                                              {"id": 2, "s": "0" * 64, "d": None}])
    with app.app_context():
        flask_migrate.upgrade(revision="0015")
        columns = {c["name"] for c in inspect(db.engine).get_columns("inspection_photos")}
        assert "data" not in columns
        assert evidence_store.get(sha(data)) == data
        assert evidence_store.get("0" * 64) is None  # declared, never received
        flask_migrate.downgrade(revision="0014")
        with db.engine.connect() as conn:
            back = dict(conn.execute(text("SELECT id, data FROM inspection_photos")).all())
        assert back == {1: data, 2: None}
        db.engine.dispose()


def test_migration_0015_stops_on_bytes_that_do_not_match_their_hash(tmp_path):
    app = _at_0014_with_photo_rows(tmp_path, [{"id": 7, "s": sha(b"abc"), "d": b"abd"}])
    with app.app_context():
        with pytest.raises(SystemExit):   # flask-migrate logs the error and exits 1
            flask_migrate.upgrade(revision="0015")
        db.engine.dispose()
        columns = {c["name"] for c in inspect(db.engine).get_columns("inspection_photos")}
        assert "data" in columns  # nothing dropped
        assert not (tmp_path / "evidence" / sha(b"abc")[:2]).exists()
        db.engine.dispose()


@pytest.mark.parametrize("setting", [True, False, None])
def test_a_photo_is_fsynced_when_the_database_commit_is_durable(app, api, moto, monkeypatch,
                                                               setting):
    """EVIDENCE_FSYNC forces it either way; unset, the bytes are as durable as the row that
    records them: fsynced on PostgreSQL, not on SQLite in WAL + synchronous=NORMAL."""
    app.config["EVIDENCE_FSYNC"] = setting
    synced, real_sync = [], os.fdatasync
    monkeypatch.setattr(os, "fdatasync", lambda fd: (synced.append(fd), real_sync(fd)))
    data = _sync_two_photos(api, moto(), 20)
    with app.app_context():
        postgres = db.engine.dialect.name == "postgresql"
        assert [records.photo_bytes(p) for p in db.session.scalars(
            select(Photo).order_by(Photo.position))] == data
    expected = setting if setting is not None else postgres
    assert len(synced) == (2 if expected else 0)


def _at_head_with_a_packed_photo(tmp_path, data: bytes):
    """An app on a SQLite file at the newest migration holding one received photo whose bytes
    are in a pack; (app, photo id)."""
    app = _migrated_app(tmp_path)
    with app.app_context():
        insp_id, item_id, now = _an_inspection_with_a_failed_item()
        where, done = evidence_store.writing(sha(data), data)
        done.result()
        photo = Photo(uuid=str(uuid.uuid4()), inspection_id=insp_id, item_id=item_id,
                      position=0, sha256=sha(data), mime="image/jpeg", size=len(data),
                      received_at=now, pack=where.pack, pack_offset=where.offset)
        db.session.add(photo)
        db.session.commit()
        photo_id = photo.id
        db.session.remove()
    return app, photo_id


def test_migration_0019_downgrade_writes_packed_photos_back_as_loose_files(tmp_path):
    data = jpeg(8)
    app, photo_id = _at_head_with_a_packed_photo(tmp_path, data)
    with app.app_context():
        assert not evidence_store.path_of(sha(data)).exists()
        flask_migrate.downgrade(revision="0018")
        columns = {c["name"] for c in inspect(db.engine).get_columns("inspection_photos")}
        assert not {"pack", "pack_offset"} & columns
        assert evidence_store.get(sha(data)) == data        # where 0018's code reads it
        flask_migrate.upgrade()
        photo = db.session.get(Photo, photo_id)
        assert photo.pack is None and records.photo_bytes(photo) == data
        db.engine.dispose()


def test_migration_0019_downgrade_stops_on_bytes_that_do_not_match_their_hash(tmp_path):
    data = jpeg(9)
    app, photo_id = _at_head_with_a_packed_photo(tmp_path, data)
    with app.app_context():
        damage_evidence(db.session.get(Photo, photo_id), data[:-3] + b"!!!")
        db.session.remove()
        with pytest.raises(SystemExit):   # flask-migrate logs the error and exits 1
            flask_migrate.downgrade(revision="0018")
        db.engine.dispose()
        columns = {c["name"] for c in inspect(db.engine).get_columns("inspection_photos")}
        assert {"pack", "pack_offset"} <= columns           # nothing dropped
        assert not evidence_store.path_of(sha(data)).exists()
        db.engine.dispose()
