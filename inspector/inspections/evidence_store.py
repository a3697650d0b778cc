"""The original bytes of evidence photos, outside the database: append-only pack files.

Evidence is never re-encoded or edited. A photo that arrives is appended to its server
process's pack, `<EVIDENCE_DIR>/packs/<started>-<pid>-<random>.pack`, and its row in
`inspection_photos` records where (`pack`, `pack_offset`, `size`) in the same transaction
that marks it received. Each record in a pack is a 44-byte header (b"IEV1", the photo's
SHA-256, its length) and then the bytes, so the packs can be read, checked and rebuilt
without the database. The database keeps what is known about each photo (who declared it,
its hash, when it arrived, EXIF facts); this directory keeps the bytes. Backups take both
(docs/backups.md); packs only grow, so a copy of yesterday's is a prefix of today's.

- Why packs: creating a file costs this machine's ext4 0.3-0.7 ms of kernel time, an append
  to an open file 0.08 ms (bench/field.py, docs/figures.md). A photo sync is dominated by such costs;
  the design is Haystack's (Beaver et al., OSDI 2010), for the same reason.
- One pack per process, written only by it: an offset is reserved under a lock, then the
  record is written at it, so concurrent writer threads never interleave. A new process
  (a restart, a forked worker) opens a new pack, so a record cut short by a crash is never
  followed by another one; nothing points to it (its row was not committed).
- Durable as the row that points to it: the record is written, and fsynced wherever the
  database's commit survives a power cut (durable()), before that row commits.
- A record whose row did not commit (a concurrent twin of the same photo won, the database
  refused) stays in the pack unreferenced: the cost of never rewriting a pack.
- Checked where a person relies on it: the review shows "confere" only after hashing what it
  read (inspections.evidence_state), and `flask evidence verify` hashes every photo.

Photos received before packs existed (migration 0019) are loose files named by their SHA-256,
`<EVIDENCE_DIR>/ab/abcdef…` (put, get, path_of); they are read as before.

Two backends behind one interface: the packs here (EVIDENCE_BACKEND=packs, the
default) and an S3-compatible object store (EVIDENCE_BACKEND=s3, evidence_objects.py).
`writing` keeps a new photo where the configuration says; `photo_data`, `check` and
`exists` read a photo where its row says (`pack` is a pack's name, "s3", or null for a loose
file), so a deployment can switch backends and `flask evidence migrate` moves a town's
photos one at a time.
"""
from __future__ import annotations

import hashlib
import os
import re
import secrets
import struct
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import NamedTuple, Protocol

from flask import current_app

from inspector.inspections import evidence_objects

_SHA256 = re.compile(r"[0-9a-f]{64}")
_PACK_NAME = re.compile(r"[0-9TZ]{16}-[0-9]{1,10}-[0-9a-f]{8}\.pack")
PACK_MAGIC = b"IEV1"
PACK_HEADER = struct.Struct(">4s32sQ")     # magic, SHA-256 (raw), length of the bytes that follow
PACK_LIMIT = 1 << 30                  # a pack that reached 1 GiB is closed; the next one opens


def evidence_root() -> Path:
    """The evidence directory of this app (EVIDENCE_DIR; instance/evidence by default)."""
    return Path(current_app.config["EVIDENCE_DIR"])


def path_of(sha256: str, base: Path | None = None) -> Path:
    """Where the bytes with this SHA-256 (lower-case hex) are kept."""
    if not _SHA256.fullmatch(sha256):
        raise ValueError(f"not a SHA-256 in lower-case hex: {sha256!r}")
    return (base or evidence_root()) / sha256[:2] / sha256


def put(sha256: str, data: bytes, base: Path | None = None, sync: bool = True) -> Path:
    """Keep `data`, whose SHA-256 the caller has computed, as a loose file under its name (the
    layout before packs: migrations, fixtures of benches); return the path. Nothing is written
    when a file of that name and size is already there. `sync`: fsync
    before the rename (see durable())."""
    target = path_of(sha256, base)
    try:
        if target.stat().st_size == len(data):
            return target
    except FileNotFoundError:
        pass
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    except FileNotFoundError:  # the first file of its 256 folders
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            if sync:
                out.flush()
                os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


class Location(NamedTuple):
    """Where a photo's bytes are: the pack's file name and the offset of the bytes in it."""
    pack: str
    offset: int


class _Pack:
    """This process's open pack: a file descriptor, the next free offset, a lock."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.pid = os.getpid()
        self.folder = folder
        self.name = (f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{self.pid}-"
                     f"{secrets.token_hex(4)}.pack")
        self.fd = os.open(folder / self.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        for made in (folder, folder.parent):  # the new names survive a power cut too (once
            _fsync_dir(made)                   # per pack: records fsync only the pack)
        self.end = 0
        self.lock = threading.Lock()
        self.writing = 0          # records reserved and not written yet
        self.retired = False      # replaced by a new pack: closed once nothing is writing

    def reserve(self, length: int) -> int | None:
        """The offset where a record of `length` bytes (with its header) goes; None when the
        pack was replaced meanwhile (the caller takes the new one)."""
        with self.lock:
            if self.retired:
                return None
            at, self.end = self.end, self.end + PACK_HEADER.size + length
            self.writing += 1
            return at

    def done(self, failed: bool) -> None:
        """A record was written (or failed: no record goes after a hole)."""
        with self.lock:
            self.writing -= 1
            if failed:
                self.end = PACK_LIMIT + 1
            self._close_if_retired()

    def retire(self) -> None:
        """No new records here; the file closes when the last one being written is done."""
        with self.lock:
            self.retired = True
            self._close_if_retired()

    def _close_if_retired(self) -> None:
        if self.retired and not self.writing and self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_pack: _Pack | None = None
_pack_lock = threading.Lock()


def _current_pack(base: Path) -> _Pack:
    """This process's pack in `base`, opened on first use, after a fork, or when full."""
    global _pack
    pack = _pack
    if (pack is None or pack.pid != os.getpid() or pack.folder != base or pack.retired
            or pack.end > PACK_LIMIT):
        with _pack_lock:
            if _pack is pack:
                _pack = _Pack(base)
                if pack is not None and pack.pid == os.getpid():
                    pack.retire()
            pack = _pack
    return pack


def pack_path(pack: str, base: Path | None = None) -> Path:
    """The file of a pack named in a photo's row."""
    if not _PACK_NAME.fullmatch(pack):
        raise ValueError(f"not a pack name: {pack!r}")
    return (base or evidence_root()) / "packs" / pack


def _write(pack: _Pack, at: int, sha256: str, data: bytes, sync: bool) -> None:
    """Write one record at its reserved offset. On failure (disk full, I/O error) the pack is
    closed to new records: a hole in the middle would hide the records after it from
    records(), so the next append opens a new pack."""
    header = PACK_HEADER.pack(PACK_MAGIC, bytes.fromhex(sha256), len(data))
    failed = True
    try:
        written = os.pwritev(pack.fd, [header, data], at)
        if written != PACK_HEADER.size + len(data):
            raise OSError(f"{pack.name}: wrote {written} of {PACK_HEADER.size + len(data)} bytes")
        if sync:
            os.fdatasync(pack.fd)
        failed = False
    finally:
        pack.done(failed)


def append(sha256: str, data: bytes, base: Path | None = None, sync: bool = True
           ) -> tuple[Location, Future]:
    """Append `data`, whose SHA-256 the caller has computed, to this process's pack: where it
    goes (known at once) and a future done when it is written (and fsynced when `sync`), which
    the caller waits for before it commits the row that points to it. A durable write runs
    on a writer thread of this process, so that the disk's fsync overlaps the caller's
    database work; one without fsync is a copy to the page cache, done at once."""
    if not _SHA256.fullmatch(sha256):
        raise ValueError(f"not a SHA-256 in lower-case hex: {sha256!r}")
    at = None
    while at is None:
        pack = _current_pack((base or evidence_root()) / "packs")
        at = pack.reserve(len(data))
    where = Location(pack.name, at + PACK_HEADER.size)
    if sync:
        return where, _writer().submit(_write, pack, at, sha256, data, True)
    done: Future = Future()
    try:
        _write(pack, at, sha256, data, False)
        done.set_result(None)
    except Exception as e:  # handed over like the thread's: raised by result()
        done.set_exception(e)
    return where, done


_writers: tuple[int, ThreadPoolExecutor] | None = None


_uploaders: tuple[int, ThreadPoolExecutor] | None = None


def _uploader() -> ThreadPoolExecutor:
    """Uploads wait on the network, not the disk: a pool of their own, wider than the
    pack writers', so that a slow store never queues the packs' fsyncs (or the reverse)."""
    global _uploaders
    if _uploaders is None or _uploaders[0] != os.getpid():
        _uploaders = (os.getpid(), ThreadPoolExecutor(max_workers=16,
                                                      thread_name_prefix="evidence-s3"))
    return _uploaders[1]


def _writer() -> ThreadPoolExecutor:
    global _writers
    if _writers is None or _writers[0] != os.getpid():  # a forked worker starts its own
        _writers = (os.getpid(), ThreadPoolExecutor(max_workers=4,
                                                    thread_name_prefix="evidence"))
    return _writers[1]


IN_S3 = evidence_objects.MARK
BACKENDS = ("packs", "s3")


class Backend(Protocol):
    """One place evidence bytes are kept, addressed by the photo's town (slug), SHA-256 and,
    for packs, the Location its row records. A photo is read by the backend its row names
    (`backend_of(pack)`), written by the one EVIDENCE_BACKEND names (`backend()`)."""

    name: str

    def put(self, town: str, sha256: str, data: bytes) -> tuple[Location, Future]:
        """Where the bytes go (known at once) and a future done when they are safe: its
        result is False when the same bytes were already there (checked), else truthy or
        None; it raises what the disk or the store said."""

    def open(self, town: str, where: Location, sha256: str, size: int
             ) -> Iterator[bytes] | None:
        """The bytes in blocks (None: not there). Not hashed: the caller's to check."""

    def read(self, town: str, where: Location, sha256: str, size: int) -> bytes | None:
        """The bytes (None: not there, or not `size` bytes)."""

    def exists(self, town: str, where: Location, sha256: str, size: int) -> bool:
        """Whether something is kept there (not hashed)."""


class Packs:
    """The local packs (and the loose files from before them) under EVIDENCE_DIR; packs
    are shared by every town of the server, so `town` is not used."""

    name = "packs"

    def __init__(self, base: Path, sync: bool):
        self.base, self.sync = base, sync

    def put(self, town: str, sha256: str, data: bytes) -> tuple[Location, Future]:
        return append(sha256, data, self.base, self.sync)

    def read(self, town: str, where: Location, sha256: str, size: int) -> bytes | None:
        if where.pack is None:
            return get(sha256, self.base)
        return read(where, size, self.base)

    def open(self, town: str, where: Location, sha256: str, size: int
             ) -> Iterator[bytes] | None:
        if where.pack is None:  # a loose file, in blocks
            path = path_of(sha256, self.base)
            if not path.exists():
                return None
            return _blocks(path)
        data = read(where, size, self.base)  # one record, at most MAX_PHOTO_BYTES
        return None if data is None else iter((data,))

    def exists(self, town: str, where: Location, sha256: str, size: int) -> bool:
        if where.pack is None:
            return path_of(sha256, self.base).exists()
        return read(where, size, self.base) is not None


def _blocks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as f:
        yield from iter(lambda: f.read(1 << 20), b"")


class Objects:
    """The S3-compatible object store (evidence_objects.py): one object per town and
    SHA-256; the upload runs on a pool of its own (`writing` waits for it before the sync
    takes a lock; a migration waits for each photo's)."""

    name = IN_S3

    def __init__(self, objects: evidence_objects.ObjectStore):
        self.objects = objects

    def put(self, town: str, sha256: str, data: bytes) -> tuple[Location, Future]:
        self.objects.key(town, sha256)  # a bad hash or slug fails here, not on the thread
        return Location(IN_S3, 0), _uploader().submit(self.objects.put, town, sha256, data)

    def read(self, town: str, where: Location, sha256: str, size: int) -> bytes | None:
        return self.objects.read(town, sha256, size)

    def open(self, town: str, where: Location, sha256: str, size: int
             ) -> Iterator[bytes] | None:
        return self.objects.stream(town, sha256)

    def exists(self, town: str, where: Location, sha256: str, size: int) -> bool:
        return self.objects.exists(town, sha256)


def backend(name: str | None = None, sync: bool | None = None) -> Backend:
    """The backend `name` ("packs" | "s3"; default EVIDENCE_BACKEND, where new photos go).
    Packs fsync as durable() says unless `sync` says otherwise. evidence_objects.
    NotConfigured for "s3" without EVIDENCE_S3_BUCKET."""
    name = name or current_app.config.get("EVIDENCE_BACKEND") or "packs"
    if name == IN_S3:
        return Objects(evidence_objects.object_store())
    if name != "packs":
        raise ValueError(f"no evidence backend {name!r}")
    return Packs(evidence_root(), durable() if sync is None else sync)


def backend_of(pack: str | None) -> Backend:
    """The backend that holds a photo whose row records `pack`."""
    return backend(IN_S3 if pack == IN_S3 else "packs")


def writing(sha256: str, data: bytes, town_id: int | None = None
            ) -> tuple[Location, Future]:
    """Keep a new photo of town `town_id` where EVIDENCE_BACKEND says (Backend.put), which
    the caller waits for before it commits the row that points to it. Packs: appended to
    this app's evidence directory, fsynced as durable() says (beside the caller's database
    work). S3: uploaded with its SHA-256, checked by the store, and done before this returns
    (see below); the future raises StoreError when the store refused or failed."""
    kept = backend()
    if kept.name != IN_S3:  # no town needed: the sync's hot path stays as it was
        return kept.put("", sha256, data)
    if town_id is None:
        raise ValueError("an object's key names its town")
    where, upload = kept.put(town_slug(town_id), sha256, data)
    # Waited for here, before the caller takes any lock: the photo's row, and the audit
    # chain's, which every audited write of the deployment waits for until the commit,
    # must never be held through a network round trip. The caller's result() raises what
    # the store said, before anything is committed, as for a pack.
    wait([upload])
    return where, upload


def town_slug(town_id: int) -> str:
    """A town's slug (an object key's folder): a primary-key read, not cached, so that a
    database emptied and filled again (tests, a restore) never names the wrong town."""
    from sqlalchemy import select

    from inspector.extensions import db
    from inspector.models import Municipality
    slug = db.session.scalar(select(Municipality.slug).where(Municipality.id == town_id))
    if slug is None:
        raise LookupError(f"no town {town_id}")
    return slug


def _holder(sha256: str, pack: str | None, town_id: int) -> tuple[Backend, str] | None:
    """The backend holding a received photo and its town's slug (None: in an object store
    that is not configured, logged)."""
    try:
        held = backend_of(pack)
    except evidence_objects.NotConfigured:
        current_app.logger.error("photo %s is in the object store, which is not configured "
                                 "(EVIDENCE_S3_BUCKET)", sha256)
        return None
    return held, town_slug(town_id) if held.name == IN_S3 else ""


def photo_data(sha256: str, pack: str | None, offset: int | None, size: int,
               town_id: int) -> bytes | None:
    """A received photo's bytes wherever its row says they are (None: missing)."""
    found = _holder(sha256, pack, town_id)
    if found is None:
        return None
    held, town = found
    return held.read(town, Location(pack, offset or 0), sha256, size)


def photo_blocks(sha256: str, pack: str | None, offset: int | None, size: int,
                 town_id: int) -> Iterator[bytes] | None:
    """A received photo's bytes in blocks, to stream (None: missing). Not hashed."""
    found = _holder(sha256, pack, town_id)
    if found is None:
        return None
    held, town = found
    return held.open(town, Location(pack, offset or 0), sha256, size)


def read(where: Location, size: int, base: Path | None = None) -> bytes | None:
    """The `size` bytes recorded at `where`, or None when the pack is gone, cut short, or holds
    no record of that size there (its header is checked; the bytes are the caller's to hash)."""
    try:
        with open(pack_path(where.pack, base), "rb") as f:
            f.seek(where.offset - PACK_HEADER.size)
            chunk = f.read(PACK_HEADER.size + size)
    except (FileNotFoundError, ValueError, OSError):
        return None
    if len(chunk) != PACK_HEADER.size + size:
        return None
    magic, _digest, length = PACK_HEADER.unpack_from(chunk)
    if magic != PACK_MAGIC or length != size:
        return None
    return chunk[PACK_HEADER.size:]


def records(path: Path) -> Iterator[tuple[int, str, int]]:
    """(offset of the bytes, SHA-256, length) of each whole record in a pack, in order; stops
    at a record cut short or at anything that is not a record."""
    with open(path, "rb") as f:
        at = 0
        while True:
            head = f.read(PACK_HEADER.size)
            if len(head) < PACK_HEADER.size:
                return
            magic, digest, length = PACK_HEADER.unpack(head)
            if magic != PACK_MAGIC:
                return
            f.seek(length, os.SEEK_CUR)
            if f.tell() > os.fstat(f.fileno()).st_size:
                return
            yield at + PACK_HEADER.size, digest.hex(), length
            at += PACK_HEADER.size + length


def durable() -> bool:
    """Whether an evidence file is fsynced before the row that records it commits.

    EVIDENCE_FSYNC when set; otherwise as durable as the database's own commit. On
    PostgreSQL a commit survives a power cut, so the file it points to must too. SQLite runs
    in WAL mode with synchronous=NORMAL (inspector/__init__.py): its commits survive a crash
    of the app but a power cut may undo them, and a file written without fsync has exactly
    that durability (it is in the page cache; the kernel writes it back). Set
    EVIDENCE_FSYNC=1 to fsync anyway."""
    forced = current_app.config.get("EVIDENCE_FSYNC")
    if forced is not None:
        return bool(forced)
    from inspector.extensions import db
    return db.engine.dialect.name != "sqlite"


def get(sha256: str, base: Path | None = None) -> bytes | None:
    """The bytes kept under this SHA-256, or None when there is no such file."""
    try:
        return path_of(sha256, base).read_bytes()
    except FileNotFoundError:
        return None


def digest_of_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_evidence_files(photos: Iterator[tuple], base: Path | None = None) -> Iterator[tuple[str, str]]:
    """(sha256, problem) for every photo (sha256, pack, offset, size[, town slug]) whose
    bytes are missing or are not the bytes of that SHA-256, each streamed from its backend
    and hashed; a photo without a pack is a loose file, one whose pack is "s3" an object of
    its town (evidence_objects.NotConfigured when there is one and no store configured)."""
    held: dict[str, Backend] = {}
    for sha, pack, offset, size, *town in photos:
        kind = IN_S3 if pack == IN_S3 else "packs"
        if kind not in held:
            held[kind] = (Packs(base or evidence_root(), False) if kind == "packs"
                          else backend(IN_S3))
        blocks = held[kind].open(town[0] if town else "", Location(pack, offset or 0),
                                 sha, size)
        if blocks is None:
            yield sha, ("arquivo ausente" if pack is None else
                        f"ausente do pacote {pack} (posição {offset})" if kind == "packs"
                        else "ausente do armazenamento de objetos "
                             f"({held[kind].objects.key(town[0], sha)})")
            continue
        h = hashlib.sha256()
        for block in blocks:
            h.update(block)
        if h.hexdigest() != sha:
            yield sha, ALTERED


ALTERED = "o conteúdo não confere com o SHA-256 (arquivo alterado ou corrompido)"
