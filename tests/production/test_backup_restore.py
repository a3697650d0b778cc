"""Backup and restore, proven: a restore drill on the database the suite
runs on (SQLite, or PostgreSQL with DATABASE_URL). Data made through the services and the
field API; a backup taken while phones sync; a new, empty instance (another database,
evidence folder and instance folder); the restore; then the audit chain and the evidence
hold, an old QR verifies offline (signature and the public keys) and online (the passenger
page), an old document's hash matches its PDF, new credentials can still be signed, and the
phones' outboxes resume without duplicates. A backup that does not match its manifest is
refused, and so is a target that is not empty."""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from datetime import date
from pathlib import Path

from sqlalchemy import func, select

from inspector.credentials import tokens
from inspector.extensions import db
from inspector.models import Inspection, Photo
from tests import factories
from tests.support.drill import make_town, send, sync
from tests.support.field_api import Api


def phones_syncing(origin, vehicle_id: int, stop: threading.Event):
    """A phone emptying its outbox until `stop` (at most 40 inspections): the thread, the
    (uuid, body, photos) it started sending in order, and each inspection's (start, end)."""
    sent: list = []
    spans: list = []

    def run():
        client = origin.test_client()
        client.login("agente.t")
        api = Api(client)
        for i in range(40):
            if stop.is_set():
                break
            iid, b, photos = sync(api, vehicle_id, 10 + 2 * i)
            sent.append((iid, b, photos))
            began = time.monotonic()
            send(api, iid, b, photos)
            spans.append((began, time.monotonic()))

    thread = threading.Thread(target=run)
    thread.start()
    return thread, sent, spans


def test_restore_drill(origin, empty_instance, tmp_path):
    town = make_town(origin)
    dest = tmp_path / "backups"
    stop = threading.Event()
    thread, sent, spans = phones_syncing(origin, town["vehicle"], stop)
    while len(spans) < 2 and thread.is_alive():
        time.sleep(0.01)
    runner = origin.test_cli_runner()
    began = time.monotonic()
    first = runner.invoke(args=["backup", "create", str(dest), "--json"])
    ended, done_then = time.monotonic(), len(spans)
    while len(spans) < done_then + 2 and thread.is_alive():   # two more after it, then stop
        time.sleep(0.01)
    stop.set()
    thread.join(120)
    assert first.exit_code == 0, first.output
    assert any(a < ended and b > began for a, b in spans), "no sync during the backup"
    folder = Path(json.loads(first.output)["folder"])
    assert runner.invoke(args=["backup", "verify", str(folder)]).exit_code == 0

    restored = empty_instance
    done = restored.test_cli_runner().invoke(args=["backup", "restore", str(folder)])
    assert done.exit_code == 0, done.output
    cli = restored.test_cli_runner()
    audit = cli.invoke(args=["audit", "verify", "--json"])
    assert audit.exit_code == 0 and json.loads(audit.output)["ok"], audit.output
    evidence = cli.invoke(args=["evidence", "verify", "--json"])
    assert evidence.exit_code == 0 and json.loads(evidence.output)["verified"] >= 2

    # the old QR: offline (its signature under the public keys the phone downloads)...
    client = restored.test_client()
    assert client.login("agente.t").status_code == 302
    keys = {k["kid"]: tokens.PublicKey(k["kid"], tokens.b64d(k["x"]), None)
            for k in client.get("/api/credential-keys").json["keys"]}
    claims = tokens.verify(town["token"], keys, date.today())
    assert claims.town_ibge == "5108006"
    # ...and online: the passenger's page
    page = restored.test_client().get(f"/v/{town['token']}").get_data(as_text=True)
    assert "REGULAR" in page
    # the old document: the PDF served now is the one whose hash was printed and published
    sup = restored.test_client()
    assert sup.login("sup.t").status_code == 302
    pdf = sup.get(f"/documentos/tapurah/{town['number']}/pdf").data
    assert hashlib.sha256(pdf).hexdigest() == town["doc_sha"]
    public = restored.test_client().get(f"/documentos/tapurah/{town['number']}")
    assert town["doc_sha"] in public.get_data(as_text=True)
    # the signing keys came back with the key that encrypts them: new credentials sign
    with restored.app_context():
        factories.vehicle("tapurah", "mototaxi", plate="QBZ9Z99")
        db.session.commit()
    assert cli.invoke(args=["credentials", "issue", "--town", "tapurah"]).exit_code == 0

    # the phones' outboxes resume against the restored server: nothing is doubled
    api = Api(client)
    for iid, b, photos in [town["first"], *sent]:
        codes = send(api, iid, b, photos)
        assert codes[0] in (200, 201) and all(c in (200, 201) for c in codes[1:]), codes
        assert send(api, iid, b, photos) == [200, 200, 200]
    with restored.app_context():
        uuids = [town["first"][0], *(s[0] for s in sent)]
        assert db.session.scalar(select(func.count(Inspection.id))) == len(uuids)
        assert db.session.scalar(select(func.count(Photo.id)).where(
            Photo.received_at.is_not(None))) == 2 * len(uuids)
    assert cli.invoke(args=["evidence", "verify"]).exit_code == 0
    assert cli.invoke(args=["audit", "verify"]).exit_code == 0


def test_evidence_is_copied_incrementally_and_a_changed_part_is_refused(origin, empty_instance,
                                                                        tmp_path):
    town = make_town(origin)
    dest = tmp_path / "backups"
    runner = origin.test_cli_runner()
    first = json.loads(runner.invoke(args=["backup", "create", str(dest), "--json"]).output)
    api = town["api"]
    for i in range(3):
        iid, b, photos = sync(api, town["vehicle"], 40 + 2 * i)
        send(api, iid, b, photos)
    time.sleep(1.1)  # one backup folder per second
    second = json.loads(runner.invoke(args=["backup", "create", str(dest), "--json"]).output)
    m1 = json.loads((Path(first["folder"]) / "manifest.json").read_text())
    m2 = json.loads((Path(second["folder"]) / "manifest.json").read_text())
    seg1 = [p for p in m1["parts"] if p["path"].startswith("evidence/")]
    seg2 = [p for p in m2["parts"] if p["path"].startswith("evidence/")]
    assert seg1 and set(p["path"] for p in seg1) <= set(p["path"] for p in seg2)
    new = sum(p["size"] for p in seg2) - sum(p["size"] for p in seg1)
    rest = sum(p["size"] for p in m2["parts"] if not p["path"].startswith("evidence/"))
    assert new > 0 and second["copied"] == new + rest    # only the packs' new tails copied
    # personal data: no file or folder of a backup is readable by another user of the machine
    written = [p for p in dest.rglob("*")]
    assert written and not [str(p) for p in written if p.stat().st_mode & 0o077]

    # the first backup still restores after the second one appended to the same packs; a
    # changed byte anywhere and it is refused, with nothing written
    part = dest / seg1[0]["path"]
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    cli = empty_instance.test_cli_runner()
    check = cli.invoke(args=["backup", "verify", first["folder"]])
    assert check.exit_code == 2 and "SHA-256 não confere com o manifesto" in check.output
    refused = cli.invoke(args=["backup", "restore", first["folder"]])
    assert refused.exit_code == 2 and "nada foi escrito" in refused.output
    assert not Path(empty_instance.config["EVIDENCE_DIR"]).exists()
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    manifest = Path(first["folder"]) / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"photos": 2', '"photos": 3'))
    assert "o manifesto foi alterado" in cli.invoke(args=["backup", "verify",
                                                          first["folder"]]).output


def test_a_restore_into_a_server_with_data_or_another_key_is_refused(origin, tmp_path):
    make_town(origin)
    dest = tmp_path / "backups"
    runner = origin.test_cli_runner()
    folder = json.loads(runner.invoke(args=["backup", "create", str(dest), "--json"]).output)[
        "folder"]
    refused = runner.invoke(args=["backup", "restore", folder])
    assert refused.exit_code == 2
    assert "o banco de dados de destino não está vazio" in refused.output
    assert "não está vazia" in refused.output          # the evidence folder
    origin.config["SECRET_KEY"] = "outra-chave"
    assert "a SECRET_KEY deste servidor não é a do backup" in runner.invoke(
        args=["backup", "restore", folder]).output
    assert os.path.isdir(folder)
