"""Evidence photos' bytes as files named by their SHA-256: atomic, idempotent, checked, and
moved there from the database column by migration 0015."""
from __future__ import annotations

import hashlib
import os
import threading
import uuid

import flask_migrate
import pytest
from sqlalchemy import inspect, text

from inspector import create_app
from inspector.extensions import db
from inspector.services import evidence_store

from ..field_api_helpers import body, jpeg, photos_of
from ..web.field_fixtures import agent, api, moto  # noqa: F401  (fixtures)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_file_is_named_by_its_hash_and_written_once(tmp_path):
    data = jpeg(1)
    path = evidence_store.put(sha(data), data, tmp_path)
    assert path == tmp_path / sha(data)[:2] / sha(data) and path.read_bytes() == data
    before = path.stat().st_mtime_ns
    assert evidence_store.put(sha(data), data, tmp_path) == path  # a resend writes nothing
    assert path.stat().st_mtime_ns == before
    assert evidence_store.get(sha(data), tmp_path) == data
    assert evidence_store.get(sha(b"other"), tmp_path) is None
    assert [p.name for p in path.parent.iterdir()] == [sha(data)]  # no temporary file left


@pytest.mark.parametrize("bad", ["../../etc/passwd", "ABCDEF" + "0" * 58, "0" * 63, ""])
def test_a_name_that_is_not_a_lower_case_sha256_is_refused(tmp_path, bad):
    with pytest.raises(ValueError):
        evidence_store.put(bad, b"x", tmp_path)
    with pytest.raises(ValueError):
        evidence_store.get(bad, tmp_path)


def test_a_failed_write_leaves_no_file_under_the_name(tmp_path, monkeypatch):
    data = jpeg(2)

    def disk_error(fd):
        raise OSError("I/O error")
    monkeypatch.setattr(os, "fsync", disk_error)
    with pytest.raises(OSError):
        evidence_store.put(sha(data), data, tmp_path)
    assert list((tmp_path / sha(data)[:2]).iterdir()) == []  # neither the file nor a part
    monkeypatch.undo()
    assert evidence_store.put(sha(data), data, tmp_path).read_bytes() == data


def test_a_torn_file_from_elsewhere_is_replaced_whole(tmp_path):
    data = jpeg(3)
    target = evidence_store.path_of(sha(data), tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(data[:100])          # e.g. copied back from a broken backup
    evidence_store.put(sha(data), data, tmp_path)
    assert target.read_bytes() == data


def test_concurrent_writers_of_the_same_bytes_make_one_whole_file(tmp_path):
    data = jpeg(4) * 20
    start = threading.Barrier(8)

    def write():
        start.wait()
        evidence_store.put(sha(data), data, tmp_path)
    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    folder = tmp_path / sha(data)[:2]
    assert [p.name for p in folder.iterdir()] == [sha(data)]
    assert (folder / sha(data)).read_bytes() == data


def _sync_two_photos(api, vehicle, seed: int) -> list[bytes]:
    """An inspection with two photos of a failed item, sent and stored; their bytes."""
    data = [jpeg(seed), jpeg(seed + 1)]
    b = body(vehicle.id, fail={"tank-sign": data})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    for decl, x in zip(photos_of(b), data):
        assert api.put_photo(iid, decl["id"], x).status_code == 201
    return data


def test_evidence_verify_names_missing_and_altered_files(app, api, moto, runner):
    data = _sync_two_photos(api, moto(), 10)
    ok = runner.invoke(args=["evidence", "verify"])
    assert ok.exit_code == 0 and "ok: 2 files checked" in ok.output
    with app.app_context():
        altered, lost = (evidence_store.path_of(sha(x)) for x in data)
    altered.write_bytes(data[0][:-4] + b"XXXX")
    lost.unlink()
    bad = runner.invoke(args=["evidence", "verify"])
    assert bad.exit_code == 1
    assert f"{sha(data[0])}: o conteúdo não confere" in bad.output
    assert f"{sha(data[1])}: arquivo ausente" in bad.output
    assert "PROBLEMS: 2 files checked" in bad.output


def _at_0014_with_photo_rows(tmp_path, photos: list[dict]):
    """An app on a SQLite database migrated to 0014 holding one inspection whose photo rows
    are `photos` (with the `data` column 0014 still had). The rows are made by today's models
    on today's schema, then the database goes down to 0014 (the models know columns 0014
    did not have), and the photos are written in 0014's own shape."""
    from datetime import UTC, date, datetime

    from inspector.models import Inspection, InspectionItem, InspectionStatus, ItemResult

    from .. import factories

    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "SQLALCHEMY_DATABASE_URI": url,
                      "EVIDENCE_DIR": str(tmp_path / "evidence")})
    with app.app_context():
        flask_migrate.upgrade()
        v, agent_ = factories.vehicle(), factories.user("agent")
        db.session.flush()
        now = datetime.now(UTC)
        insp = Inspection(uuid=str(uuid.uuid4()), municipality_id=v.municipality_id,
                          agent_id=agent_.id, vehicle_id=v.id, service=v.service,
                          started_at=now, finished_at=now, rules_day=date.today(),
                          body_sha256="0" * 64, body="{}", received_at=now,
                          status=InspectionStatus.AWAITING_REVIEW)
        db.session.add(insp)
        db.session.flush()
        item = InspectionItem(inspection_id=insp.id, position=0, item_id="tank-sign",
                              result=ItemResult.FAIL, note="")
        db.session.add(item)
        db.session.commit()
        item_id, insp_id = item.id, insp.id
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
def test_a_photo_file_is_fsynced_when_the_database_commit_is_durable(app, api, moto,
                                                                   monkeypatch, setting):
    """EVIDENCE_FSYNC forces it either way; unset, the file is as durable as the row that
    records it: fsynced on PostgreSQL, not on SQLite in WAL + synchronous=NORMAL."""
    app.config["EVIDENCE_FSYNC"] = setting
    synced, real_fsync = [], os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    data = _sync_two_photos(api, moto(), 20)
    with app.app_context():
        postgres = db.engine.dialect.name == "postgresql"
        assert [evidence_store.get(sha(x)) for x in data] == data
    expected = setting if setting is not None else postgres
    assert len(synced) == (2 if expected else 0)


def test_evidence_fsync_accepts_on_and_off_words_only(monkeypatch):
    from inspector.config import _flag

    seen = []
    for value in ("1", "true", "ON", "0", "no", ""):
        monkeypatch.setenv("EVIDENCE_FSYNC", value)
        seen.append(_flag("EVIDENCE_FSYNC"))
    monkeypatch.delenv("EVIDENCE_FSYNC")
    assert seen + [_flag("EVIDENCE_FSYNC")] == [True, True, True, False, False, None, None]
    monkeypatch.setenv("EVIDENCE_FSYNC", "talvez")
    with pytest.raises(SystemExit, match="EVIDENCE_FSYNC='talvez' não é válido"):
        _flag("EVIDENCE_FSYNC")
