"""Evidence packs copied incrementally (operations/backup.copy_evidence), without the app: a
record another thread is still writing when the pack is read (its place reserved, its bytes
not there yet) goes into a tail of that backup's own, never into a shared segment, so the
earlier backup still matches its manifest after the record lands."""
from __future__ import annotations

import hashlib
import json

from inspector.inspections.evidence_store import PACK_HEADER, PACK_MAGIC
from inspector.operations.backup import copy_evidence, file_sha256


def record(data: bytes) -> bytes:
    return PACK_HEADER.pack(PACK_MAGIC, hashlib.sha256(data).digest(), len(data)) + data


def _manifest(dest, stamp, parts, packs):
    folder = dest / stamp
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"parts": parts, "evidence_packs": packs}))


def _assemble(dest, parts, name):
    out = bytearray()
    for p in sorted((p for p in parts if p["restore"] == f"packs/{name}"),
                    key=lambda p: p["offset"]):
        assert p["offset"] == len(out)
        data = (dest / p["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == p["sha256"] and len(data) == p["size"]
        out += data
    return bytes(out)


def test_a_record_in_flight_stays_out_of_the_shared_segments(tmp_path):
    source, dest = tmp_path / "evidence", tmp_path / "backups"
    (source / "packs").mkdir(parents=True)
    name = "20261201T000000Z-1-abcdef01.pack"
    pack = source / "packs" / name
    a, b, c = b"A" * 1000, b"B" * 3000, b"C" * 500
    reserved = len(record(a))
    pack.write_bytes(record(a) + bytes(len(record(b))) + record(c))   # b: reserved, unwritten

    parts1, state1, copied1 = copy_evidence(source, dest, "20261201T010000Z")
    assert state1[name]["stable"] == reserved and copied1 == pack.stat().st_size
    assert [p.get("path").rsplit("/", 1)[1] for p in parts1] == [
        f"{0:012d}-{reserved:012d}",
        f"{reserved:012d}-{pack.stat().st_size:012d}.tail-20261201T010000Z"]
    _manifest(dest, "20261201T010000Z", parts1, state1)
    first = _assemble(dest, parts1, name)

    with open(pack, "r+b") as f:                    # the slow thread's record lands
        f.seek(reserved)
        f.write(record(b))
    with open(pack, "ab") as f:
        f.write(record(b"D" * 200))
    parts2, state2, copied2 = copy_evidence(source, dest, "20261201T020000Z")
    assert copied2 == pack.stat().st_size - reserved      # from the end of the whole records
    assert state2[name]["stable"] == pack.stat().st_size
    assert _assemble(dest, parts2, name) == pack.read_bytes()
    assert _assemble(dest, parts1, name) == first         # the first backup is untouched
    assert first[reserved:reserved + 44] == bytes(44)     # (with the hole it saw)

    _manifest(dest, "20261201T020000Z", parts2, state2)
    parts3, _, copied3 = copy_evidence(source, dest, "20261201T030000Z")
    assert copied3 == 0 and [p["sha256"] for p in parts3] == [p["sha256"] for p in parts2]
    assert file_sha256(pack) == hashlib.sha256(_assemble(dest, parts3, name)).hexdigest()
