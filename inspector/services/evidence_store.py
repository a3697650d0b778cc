"""The original bytes of evidence photos: files named by their SHA-256, outside the database.

Evidence is never re-encoded or edited, so its hash is its name: the bytes whose SHA-256 is
`abcdef…` live in `<EVIDENCE_DIR>/ab/abcdef…`. The database keeps what is known about each
photo (who declared it, its hash, when it arrived, EXIF facts); this directory keeps the
bytes. Backups take both (README, "Backups").

- Writing is atomic and done before the row that says "received" is committed: a
  temporary file in the same directory, then a rename, so a crash of the app leaves either
  no file or the whole file under the final name. The file is as durable as that row:
  fsynced before the rename wherever the database's commit survives a power cut
  (durable()).
- Writing is idempotent: the same bytes twice (a resend, two inspections photographing the
  same thing, two workers racing) are one file, and a write never changes a file whose
  name already holds bytes of that size.
- A file is checked where a person relies on it: the review shows "confere" only after
  hashing what it read (inspections.evidence_state), and `flask evidence verify` hashes
  them all.

Why files: a 300 KB photo stored as a database value was written twice by SQLite (its
write-ahead log, then the checkpoint) and pushed through PostgreSQL's TOAST; as a file it
is one sequential write, made beside the request's database work (writing()).
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

from flask import current_app

_SHA256 = re.compile(r"[0-9a-f]{64}")


def root() -> Path:
    """The evidence directory of this app (EVIDENCE_DIR; instance/evidence by default)."""
    return Path(current_app.config["EVIDENCE_DIR"])


def path_of(sha256: str, base: Path | None = None) -> Path:
    """Where the bytes with this SHA-256 (lower-case hex) are kept."""
    if not _SHA256.fullmatch(sha256):
        raise ValueError(f"not a SHA-256 in lower-case hex: {sha256!r}")
    return (base or root()) / sha256[:2] / sha256


def put(sha256: str, data: bytes, base: Path | None = None, sync: bool = True) -> Path:
    """Keep `data`, whose SHA-256 the caller has computed, under its name; return the path.
    Nothing is written when a file of that name and size is already there. `sync`: fsync
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


_writers: tuple[int, ThreadPoolExecutor] | None = None


def writing(sha256: str, data: bytes) -> Future:
    """`put`, as a future the caller waits for before it commits. A durable write runs on
    a writer thread of this process, so that the disk's fsync overlaps the caller's
    database work; one without fsync is a copy to the page cache, done at once."""
    global _writers
    sync = durable()
    if not sync:
        done: Future = Future()
        try:
            done.set_result(put(sha256, data, root(), False))
        except Exception as e:  # handed over like the thread's: raised by result()
            done.set_exception(e)
        return done
    if _writers is None or _writers[0] != os.getpid():  # a forked worker starts its own
        _writers = (os.getpid(), ThreadPoolExecutor(max_workers=4,
                                                    thread_name_prefix="evidence"))
    return _writers[1].submit(put, sha256, data, root(), True)


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
    from ..extensions import db
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


def check(hashes: Iterator[str], base: Path | None = None) -> Iterator[tuple[str, str]]:
    """(sha256, problem) for every hash whose file is missing or holds other bytes."""
    for sha in hashes:
        p = path_of(sha, base)
        if not p.exists():
            yield sha, "arquivo ausente"
        elif digest_of_file(p) != sha:
            yield sha, "o conteúdo não confere com o SHA-256 (arquivo alterado ou corrompido)"
