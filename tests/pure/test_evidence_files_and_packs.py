"""Evidence photos' bytes on disk, without a database: records appended to one pack per
process (read back, checked, safe across threads, forks and failed writes) and the loose
files named by their SHA-256 that photos received before packs still are (atomic,
idempotent); the EVIDENCE_FSYNC setting's words."""
from __future__ import annotations

import hashlib
import os
import threading

import pytest

from inspector.inspections import evidence_store
from tests.support.field_api import jpeg


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


def _append(base, data: bytes, sync=False):
    where, done = evidence_store.append(sha(data), data, base, sync)
    done.result()
    return where


def test_appended_photos_are_read_back_and_listed_from_the_pack_alone(tmp_path):
    photos = [jpeg(n) for n in range(3)]
    wheres = [_append(tmp_path, x) for x in photos]
    assert len({w.pack for w in wheres}) == 1                 # one pack per process
    assert [evidence_store.read(w, len(x), tmp_path) for w, x in zip(wheres, photos)] == photos
    listed = list(evidence_store.records(evidence_store.pack_path(wheres[0].pack, tmp_path)))
    assert listed == [(w.offset, sha(x), len(x)) for w, x in zip(wheres, photos)]
    # a size that is not the record's, or an offset inside a record, reads nothing
    assert evidence_store.read(wheres[1], len(photos[1]) - 1, tmp_path) is None
    assert evidence_store.read(wheres[1]._replace(offset=wheres[1].offset + 4),
                               len(photos[1]), tmp_path) is None
    assert evidence_store.read(wheres[1]._replace(pack="../../etc/passwd"), 10, tmp_path) is None


def test_a_record_cut_short_by_a_crash_hides_nothing_before_it(tmp_path):
    photos = [jpeg(n) for n in range(3)]
    wheres = [_append(tmp_path, x) for x in photos]
    path = evidence_store.pack_path(wheres[0].pack, tmp_path)
    os.truncate(path, wheres[2].offset + 100)                  # the last write never finished
    assert [r[1] for r in evidence_store.records(path)] == [sha(photos[0]), sha(photos[1])]
    assert evidence_store.read(wheres[2], len(photos[2]), tmp_path) is None
    assert evidence_store.read(wheres[1], len(photos[1]), tmp_path) == photos[1]


def test_a_failed_write_closes_the_pack_and_the_next_photo_starts_a_new_one(tmp_path,
                                                                            monkeypatch):
    first = _append(tmp_path, jpeg(1))
    real = os.pwritev
    monkeypatch.setattr(os, "pwritev", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        _append(tmp_path, jpeg(2))
    monkeypatch.setattr(os, "pwritev", real)
    third = _append(tmp_path, jpeg(3))
    assert third.pack != first.pack and third.offset == evidence_store.PACK_HEADER.size
    old = evidence_store.pack_path(first.pack, tmp_path)
    assert [r[1] for r in evidence_store.records(old)] == [sha(jpeg(1))]  # no hole after it


def test_a_full_pack_is_closed_and_the_next_photo_opens_a_new_one(tmp_path, monkeypatch):
    monkeypatch.setattr(evidence_store, "PACK_LIMIT", len(jpeg(1)) * 2)
    wheres = [_append(tmp_path, jpeg(n)) for n in range(4)]
    packs = [w.pack for w in wheres]
    assert packs[0] == packs[1] != packs[2] == packs[3]       # past the limit after the 2nd
    assert all(evidence_store.read(w, len(jpeg(n)), tmp_path) == jpeg(n)
               for n, w in enumerate(wheres))


def test_a_replaced_pack_is_closed_once_nothing_writes_to_it(tmp_path):
    _append(tmp_path / "a", jpeg(1))
    first = evidence_store._pack
    _append(tmp_path / "b", jpeg(2))                         # another app's directory
    assert evidence_store._pack is not first and first.fd == -1


def test_a_pack_replaced_by_another_thread_before_the_write_is_not_written(tmp_path,
                                                                          monkeypatch):
    first = _append(tmp_path, jpeg(1))
    real, raced = evidence_store._current_pack, []

    def racing(base):  # another thread's failed write replaces the pack just after we got it
        got = real(base)
        if not raced:
            raced.append(got)
            got.retire()
        return got
    monkeypatch.setattr(evidence_store, "_current_pack", racing)
    second = _append(tmp_path, jpeg(2))
    assert raced[0].fd == -1 and second.pack != first.pack
    assert evidence_store.read(second, len(jpeg(2)), tmp_path) == jpeg(2)


def test_a_forked_worker_writes_its_own_pack(tmp_path, monkeypatch):
    mine = _append(tmp_path, jpeg(1))
    monkeypatch.setattr(os, "getpid", lambda: 4_000_000)       # as in a worker after fork
    theirs = _append(tmp_path, jpeg(2))
    assert theirs.pack != mine.pack and "-4000000-" in theirs.pack


def test_concurrent_appends_never_interleave(tmp_path):
    photos = [jpeg(n, size=(200, 150)) for n in range(40)]
    wheres: dict[int, object] = {}

    def send(n):
        wheres[n] = _append(tmp_path, photos[n], sync=n % 2 == 0)
    threads = [threading.Thread(target=send, args=(n,)) for n in range(len(photos))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(evidence_store.read(wheres[n], len(x), tmp_path) == x
               for n, x in enumerate(photos))
    path = evidence_store.pack_path(wheres[0].pack, tmp_path)
    assert sorted(r[1] for r in evidence_store.records(path)) == sorted(map(sha, photos))


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
