"""Evidence photos in an S3-compatible object store, against a real one
(LocalStack's S3 on loopback, conftest.py): photos synced by the field API are kept as
objects named by their town and SHA-256 and served back on the review; bytes the store finds
not to be their SHA-256 are refused by the store itself and the photo is not acknowledged to
the phone; `flask evidence migrate` moves a town packs -> s3 -> packs, cut short and resumed;
`flask evidence verify` hashes the objects and finds one altered or gone. The evidence must
be the bytes the phone hashed when the photo was taken (Lei 9.784/1999 Art. 38: the facts of
an administrative process proven by the means in the record; CPP Art. 158-A, chain of custody
of a trace kept as evidence)."""
from __future__ import annotations

import base64
import hashlib
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import select

from inspector import audit
from inspector.extensions import db
from inspector.inspections import evidence_objects, evidence_store, renditions
from inspector.models import AuditEntry, Inspection, Photo
from tests import factories
from tests.support.field_api import body, jpeg

PREFIX = "evidencias/"


def _sync(app, api, moto, photos: list[bytes]) -> dict:
    """An inspection of a Tapurah moto-taxi failing one item with these photos, sent the way
    the phone sends it: the inspection, then each photo."""
    v = moto()
    b = body(v.id, fail={"tank-sign": photos})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    decls = b["items"][-1]["photos"]
    for data, decl in zip(photos, decls):
        r = api.put_photo(iid, decl["id"], data)
        assert r.status_code == 201, r.json
    return {"uuid": iid, "decls": decls}


def _rows(app, iid: str) -> list[Photo]:
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        rows = sorted(insp.photos, key=lambda p: p.position)
        for r in rows:
            db.session.expunge(r)
        return rows


def _key(sha: str, town: str = "tapurah") -> str:
    return f"{PREFIX}{town}/{sha[:2]}/{sha}"


def _object(bucket, sha: str) -> bytes:
    return bucket["client"].get_object(Bucket=bucket["name"], Key=_key(sha))["Body"].read()


def _supervisor(app, make):
    user = make(factories.user, "supervisor", "tapurah")
    c = app.test_client()
    assert c.login(user.username).status_code == 302
    return c


def test_synced_photos_are_objects_named_by_their_hash_and_the_review_serves_them(
        app, api, moto, make, bucket, s3_config, monkeypatch):
    app.config["EVIDENCE_BACKEND"] = "s3"
    photos = [jpeg(1, size=(640, 480)), jpeg(2, size=(480, 640))]
    # the object is in the store before the audit chain's lock is taken (held until the
    # commit by every audited write): no lock waits on the network
    real_record, stored_first = audit.record, []

    def record(action, *a, **k):
        if action == "photo_received":
            key = _key(k["after"]["sha256"])
            stored_first.append(bucket["client"].list_objects_v2(
                Bucket=bucket["name"], Prefix=key)["KeyCount"] == 1)
        return real_record(action, *a, **k)

    real_put = evidence_objects.ObjectStore.put

    def slow_network(self, *a):
        time.sleep(0.3)
        return real_put(self, *a)

    monkeypatch.setattr(audit, "record", record)
    monkeypatch.setattr(evidence_objects.ObjectStore, "put", slow_network)
    sent = _sync(app, api, moto, photos)
    monkeypatch.undo()
    assert stored_first == [True, True]
    rows = _rows(app, sent["uuid"])
    assert [r.pack for r in rows] == ["s3", "s3"]
    for data, row in zip(photos, rows):
        assert row.sha256 == hashlib.sha256(data).hexdigest()
        assert _object(bucket, row.sha256) == data  # in the store, byte for byte
        head = bucket["client"].head_object(Bucket=bucket["name"], Key=_key(row.sha256),
                                            ChecksumMode="ENABLED")
        assert head["ChecksumSHA256"].startswith(
            base64.b64encode(bytes.fromhex(row.sha256)).decode())
    assert not (Path(app.config["EVIDENCE_DIR"]) / "packs").exists()  # nothing on local disk

    renditions._cache.clear()
    c = _supervisor(app, make)
    with app.app_context():
        insp_id = db.session.scalar(select(Inspection.id).filter_by(uuid=sent["uuid"]))
    page = c.get(f"/revisao/vistorias/{insp_id}").get_data(as_text=True)
    assert page.count("confere com o arquivo guardado") == 2  # hashed as read from S3
    for data, row in zip(photos, rows):
        original = c.get(f"/revisao/fotos/{row.id}/original")  # streamed from the store
        assert original.status_code == 200 and original.data == data
        assert original.headers["Content-Length"] == str(len(data))
        assert row.sha256[:12] in original.headers["Content-Disposition"]
        cached = c.get(f"/revisao/fotos/{row.id}/original",
                       headers={"If-None-Match": f'"{row.sha256}"'})
        assert cached.status_code == 304 and cached.data == b""
        for size in ("mini", "zoom"):
            r = c.get(f"/revisao/fotos/{row.id}/{size}.jpg")
            assert r.status_code == 200 and r.mimetype == "image/jpeg"
            assert r.data[:2] == b"\xff\xd8" and len(r.data) < len(data) * 2

    # a resend of the same bytes is recognised and the object is not written again
    again = api.put_photo(sent["uuid"], sent["decls"][0]["id"], photos[0])
    assert again.status_code == 200


def test_bytes_the_store_finds_altered_are_refused_and_the_photo_is_not_acknowledged(
        app, api, moto, bucket, s3_config, monkeypatch):
    """The bytes change between the app and the store (a bad NIC, a proxy): the upload still
    carries the photo's SHA-256, the store refuses it (400 BadDigest), the phone is answered
    503 and not told the photo arrived; the next try goes through."""
    app.config["EVIDENCE_BACKEND"] = "s3"
    good = jpeg(3, size=(320, 240))
    v = moto()
    b = body(v.id, fail={"tank-sign": [good]})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    pid = b["items"][-1]["photos"][0]["id"]
    sha = hashlib.sha256(good).hexdigest()

    real_put = evidence_objects.ObjectStore.put

    def flipped_in_transit(self, town, sha256, data):
        return real_put(self, town, sha256, data[:-3] + bytes([data[-3] ^ 0x01]) + data[-2:])

    logged = []
    with monkeypatch.context() as m:
        m.setattr(evidence_objects.ObjectStore, "put", flipped_in_transit)
        m.setattr(app.logger, "warning", lambda msg, *a: logged.append(msg % a))
        r = api.put_photo(iid, pid, good)
    assert r.status_code == 503, r.json
    # the agent reads that nothing was lost; the store's refusal is in the operator's log
    assert "Nada foi perdido" in r.json["error"] and "BadDigest" not in r.json["error"]
    assert any("BadDigest" in line for line in logged), logged
    status = api.get(f"/api/field/inspections/{iid}").json
    assert status["missing_photos"] == [pid] and status["status"] == "incomplete"
    with app.app_context():
        assert db.session.scalar(select(Photo.received_at).filter_by(uuid=pid)) is None
        assert not db.session.scalar(select(AuditEntry.id).filter_by(
            action="photo_received", entity_id=pid))
    listed = bucket["client"].list_objects_v2(Bucket=bucket["name"])
    assert listed.get("KeyCount", 0) == 0  # nothing kept under the photo's name

    r = api.put_photo(iid, pid, good)
    assert r.status_code == 201 and r.json["complete"] is True
    assert _object(bucket, sha) == good


def _migrate(runner, to: str):
    return runner.invoke(args=["evidence", "migrate", "--town", "tapurah", "--to", to])


def _verify(runner):
    return runner.invoke(args=["evidence", "verify"])


def test_migrate_packs_to_s3_and_back_cut_short_and_resumed(
        app, api, moto, bucket, s3_config, monkeypatch):
    runner = app.test_cli_runner()
    photos = [jpeg(n, size=(200 + n, 150)) for n in range(4)]
    sent = _sync(app, api, moto, photos)  # EVIDENCE_BACKEND packs: the default
    before = _rows(app, sent["uuid"])
    assert all(r.pack and r.pack != "s3" for r in before)

    # cut short right after the third object was written, before its row changed
    real_put, calls = evidence_objects.ObjectStore.put, []

    def crash_after_third(self, town, sha256, data):
        out = real_put(self, town, sha256, data)
        calls.append(sha256)
        if len(calls) == 3:
            raise KeyboardInterrupt("power cut")
        return out

    with monkeypatch.context() as m:
        m.setattr(evidence_objects.ObjectStore, "put", crash_after_third)
        cut = _migrate(runner, "s3")
    assert cut.exit_code != 0
    middle = _rows(app, sent["uuid"])
    assert [r.pack == "s3" for r in middle] == [True, True, False, False]
    assert _verify(runner).exit_code == 0  # every row points at bytes that are there

    resumed = _migrate(runner, "s3")
    assert resumed.exit_code == 0, resumed.output
    assert "2 fotos agora em s3 (1 copiadas, 1 já estavam lá" in resumed.output
    assert all(r.pack == "s3" for r in _rows(app, sent["uuid"]))
    for data in photos:
        assert _object(bucket, hashlib.sha256(data).hexdigest()) == data
    again = _migrate(runner, "s3")
    assert "0 fotos agora em s3" in again.output  # nothing left to move

    ok = _verify(runner)
    assert ok.exit_code == 0 and "4 photos checked" in ok.output and "s3://" in ok.output

    # and back to the packs, cut short after the first photo was written
    real_append, appended = evidence_store.append, []

    def crash_after_first(*a, **k):
        out = real_append(*a, **k)
        appended.append(out)
        if len(appended) == 2:
            out[1].result()
            raise KeyboardInterrupt("power cut")
        return out

    with monkeypatch.context() as m:
        m.setattr(evidence_store, "append", crash_after_first)
        assert _migrate(runner, "packs").exit_code != 0
    assert [r.pack == "s3" for r in _rows(app, sent["uuid"])] == [False, True, True, True]
    back = _migrate(runner, "packs")
    assert back.exit_code == 0 and "3 fotos agora em packs (3 copiadas" in back.output
    after = _rows(app, sent["uuid"])
    assert all(r.pack != "s3" for r in after)
    with app.app_context():
        for data, row in zip(photos, after):
            assert evidence_store.photo_data(row.sha256, row.pack, row.pack_offset, row.size,
                                             0) == data
        moved = db.session.scalars(select(AuditEntry.after).filter_by(
            action="evidence_moved")).all()
    assert len(moved) == 8  # each photo there and back, each move with its entry
    final = _verify(runner)
    assert final.exit_code == 0  # the source objects are left, counted, harmless
    assert "4 objetos no armazenamento sem foto que aponte para eles" in final.output


def test_verify_finds_an_object_altered_or_gone_behind_the_apps_back(
        app, api, moto, make, bucket, s3_config):
    app.config["EVIDENCE_BACKEND"] = "s3"
    photos = [jpeg(5), jpeg(6), jpeg(7)]
    _sync(app, api, moto, photos)
    runner = app.test_cli_runner()
    assert _verify(runner).exit_code == 0
    shas = [hashlib.sha256(p).hexdigest() for p in photos]
    tampered = photos[0][:-10] + b"\x00" * 10
    bucket["client"].put_object(Bucket=bucket["name"], Key=_key(shas[0]), Body=tampered)
    bucket["client"].delete_object(Bucket=bucket["name"], Key=_key(shas[1]))
    r = _verify(runner)
    assert r.exit_code == 1
    assert f"{shas[0]}: {evidence_store.ALTERED}" in r.output
    assert f"{shas[1]}: ausente do armazenamento de objetos" in r.output
    assert shas[2] not in r.output
    assert "2 missing or altered" in r.output
    assert "sem foto que aponte" not in r.output

    # the review says so too, from the bytes it read
    c = _supervisor(app, make)
    with app.app_context():
        insp_id = db.session.scalar(select(Inspection.id))
    page = c.get(f"/revisao/vistorias/{insp_id}").get_data(as_text=True)
    assert page.count("NÃO confere com o arquivo guardado") == 1
    assert page.count("confere com o arquivo guardado") == 2


def test_object_lock_keeps_evidence_from_being_deleted(app, bucket, s3_config):
    """Chain of custody (docs/object-storage.md): a bucket with object lock and a default retention refuses
    to delete a photo's version before its time; uploads still go through (the SHA-256
    checksum satisfies the lock's integrity header)."""
    client, name = bucket["client"], f"custodia-{uuid.uuid4().hex[:10]}"
    client.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    client.put_object_lock_configuration(Bucket=name, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled",
        "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 1}}})
    app.config["EVIDENCE_S3_BUCKET"] = name
    data = jpeg(9)
    sha = hashlib.sha256(data).hexdigest()
    with app.app_context():
        store = evidence_objects.object_store()
        assert store.put("tapurah", sha, data) is True
        assert store.put("tapurah", sha, data) is False  # never overwritten
    version = client.head_object(Bucket=name, Key=_key(sha))["VersionId"]
    from botocore.exceptions import ClientError
    with pytest.raises(ClientError) as refused:
        client.delete_object(Bucket=name, Key=_key(sha), VersionId=version)
    assert refused.value.response["Error"]["Code"] == "AccessDenied"


def test_a_store_that_does_not_answer_is_said_never_a_crash(app, api, moto, make, bucket,
                                                            s3_config):
    app.config["EVIDENCE_BACKEND"] = "s3"
    sent = _sync(app, api, moto, [jpeg(4)])
    row = _rows(app, sent["uuid"])[0]
    app.config["EVIDENCE_S3_ENDPOINT_URL"] = "http://127.0.0.1:9"  # nothing listens there
    r = _verify(app.test_cli_runner())
    assert r.exit_code == 2 and "o armazenamento de objetos não respondeu" in r.output
    renditions._cache.clear()
    c = _supervisor(app, make)
    original = c.get(f"/revisao/fotos/{row.id}/original")
    assert original.status_code == 503 and "armazenamento das fotos não respondeu" in original.text
    assert "127.0.0.1:9" not in original.text and "endpoint" not in original.text  # operator's
    assert c.get(f"/revisao/vistorias/{row.inspection_id}").status_code == 200


def test_migrate_errors_are_in_portuguese_with_exit_2(app, make):
    make(factories.user, "agent", "tapurah")
    runner = app.test_cli_runner()
    r = runner.invoke(args=["evidence", "migrate", "--town", "nenhuma", "--to", "s3"])
    assert r.exit_code == 2 and "município 'nenhuma' não existe" in r.output
    r = runner.invoke(args=["evidence", "migrate", "--town", "tapurah", "--to", "nuvem"])
    assert r.exit_code == 2 and "use s3 (armazenamento de objetos) ou packs" in r.output
    app.config["EVIDENCE_S3_BUCKET"] = ""
    r = runner.invoke(args=["evidence", "migrate", "--town", "tapurah", "--to", "s3"])
    assert r.exit_code == 2 and "armazenamento de objetos não configurado" in r.output


def test_a_production_start_refuses_the_object_store_without_a_bucket():
    from inspector.operations.production import config_problems

    good = {"SECRET_KEY": hashlib.sha256(b"k").hexdigest(),
            "PUBLIC_BASE_URL": "https://fiscaliza.tapurah.mt.gov.br"}
    assert config_problems(good | {"EVIDENCE_BACKEND": "s3"}) == [
        "EVIDENCE_BACKEND=s3 sem EVIDENCE_S3_BUCKET: defina o bucket das fotos de prova "
        "(docs/object-storage.md)"]
    assert config_problems(good | {"EVIDENCE_BACKEND": "s3", "EVIDENCE_S3_BUCKET": "prova"}) == []
    assert config_problems(good | {"EVIDENCE_BACKEND": "nuvem"}) == [
        "EVIDENCE_BACKEND='nuvem' não é válido: use packs ou s3"]
    assert config_problems(good) == []  # packs, the default
