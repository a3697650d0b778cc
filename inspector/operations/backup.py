"""`backup create DEST`: a consistent copy of everything a town would lose, while the server
runs — the database, the evidence photos' files and the keys — with a manifest giving the
size and SHA-256 of every part.

Layout of DEST (one folder for all backups of a server, e.g. /var/backups/inspector):

    DEST/<YYYYmmddTHHMMSSZ>/manifest.json      what this backup is made of, part by part
    DEST/<YYYYmmddTHHMMSSZ>/manifest.sha256    the manifest's own SHA-256
    DEST/<YYYYmmddTHHMMSSZ>/database.sqlite3   SQLite's online backup API (a consistent copy)
                           /database.pgdump    or pg_dump --format=custom (PostgreSQL)
    DEST/<YYYYmmddTHHMMSSZ>/instance/          secret_key and config.py, when they are files
    DEST/<YYYYmmddTHHMMSSZ>/rules/packs|laws/  every pack and law text of RULES_EXTRA_DIR
    DEST/<YYYYmmddTHHMMSSZ>/program/packs|laws/ the program's own packs (and their laws) that
                                               the towns use: kept as the law of the record
    DEST/evidence/<pack>/<start>-<end>         segments of each evidence pack, shared
    DEST/evidence/loose/<ab>/<sha256>          photos kept as loose files (before packs)

The manifest also gives the program's version and, per rule pack a town uses (its `town` is
the town's slug, or an act names it), its SHA-256 and where it came from (`extra`: a folder
of RULES_EXTRA_DIR, put back by a restore; `program`: shipped with the program).

Evidence in an S3-compatible object store (EVIDENCE_BACKEND=s3) is not copied: the bucket
keeps it (docs/object-storage.md); the manifest names the bucket and prefix.

Consistency: the database is copied first, then the evidence. A photo's bytes are written
(and fsynced where the commit is durable) before the row that points to them commits, so
every photo the copied database knows is in the packs by the time they are read.

Incremental evidence: packs only grow, so each backup copies only what was appended since
the previous one, as a new segment file; earlier segments are shared by every backup that
uses them and never rewritten. A record that another thread was still writing while the
pack was read (its place reserved, its bytes not yet there) is copied too, but in a tail
segment of this backup's own; the next backup starts again where the whole, checked
records ended (each record's header carries its SHA-256), so a hole read once never
becomes part of a shared segment.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from flask import Flask
from sqlalchemy import text
from sqlalchemy.engine import make_url

from inspector import clock, inspections
from inspector.config import version
from inspector.extensions import db

FORMAT = 1
MANIFEST = "manifest.json"
KEY_FILES = ("secret_key", "config.py")   # instance/ files a new server needs
_BLOCK = 1 << 20


class BackupError(Exception):
    """A backup that cannot be made or trusted: one pt-BR line."""


@dataclass
class Report:
    """What one backup wrote, for the command's summary."""

    folder: Path
    parts: int
    total_bytes: int
    copied_bytes: int
    seconds: float


def instance_dir(app: Flask) -> Path:
    """Where the instance's key files are (BACKUP_INSTANCE_DIR in tests, else instance/)."""
    return Path(app.config.get("BACKUP_INSTANCE_DIR") or app.instance_path)


def key_check(secret) -> str:
    """A fingerprint of SECRET_KEY, to tell at restore that the key is the same (it decrypts
    the QR signing keys stored in the database); it does not reveal the key."""
    raw = secret.encode() if isinstance(secret, str) else bytes(secret or b"")
    return hashlib.sha256(b"inspector backup key check\0" + raw).hexdigest()[:24]


def file_sha256(path: Path, limit: int | None = None) -> str:
    """SHA-256 of a file's first `limit` bytes (all by default)."""
    h = hashlib.sha256()
    left = limit
    with open(path, "rb") as f:
        while left is None or left > 0:
            block = f.read(_BLOCK if left is None else min(_BLOCK, left))
            if not block:
                break
            h.update(block)
            if left is not None:
                left -= len(block)
    return h.hexdigest()


def _part(root: Path, path: Path, **extra) -> dict:
    return {"path": path.relative_to(root).as_posix(), "size": path.stat().st_size,
            "sha256": file_sha256(path), **extra}


# --- the database ---------------------------------------------------------------------------

def _sqlite_file(url) -> Path:
    return Path(url.database)


def dump_database(app: Flask, folder: Path) -> tuple[Path, str, dict]:
    """A consistent copy of the database in `folder`: (file, dialect, its facts), the facts
    read from the same snapshot as the copy."""
    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"])
    if url.get_backend_name() == "sqlite":
        target = folder / "database.sqlite3"
        src = sqlite3.connect(f"file:{_sqlite_file(url)}?mode=ro", uri=True, timeout=30)
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)   # one step: one read transaction, a snapshot (WAL: writers go on)
            known = facts(lambda sql: dst.execute(sql).fetchall())
        finally:
            dst.close()
            src.close()
        return target, "sqlite", known
    if url.get_backend_name() == "postgresql":
        binary = shutil.which("pg_dump")
        if binary is None:
            raise BackupError("pg_dump não encontrado: instale o cliente do PostgreSQL "
                              "(Debian: postgresql-client-15)")
        target = folder / "database.pgdump"
        with db.engine.connect() as conn:   # pg_dump reads the snapshot this transaction holds
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                snapshot = conn.execute(text("SELECT pg_export_snapshot()")).scalar()
                known = facts(lambda sql: conn.execute(text(sql)).all())
                done = subprocess.run([binary, "--format=custom", "--no-owner",
                                       "--no-privileges", f"--snapshot={snapshot}", "--file",
                                       str(target), "--dbname", libpq_url(url)],
                                      capture_output=True, text=True)
        if done.returncode != 0:
            raise BackupError(f"pg_dump falhou: {done.stderr.strip().splitlines()[-1:]}")
        return target, "postgresql", known
    raise BackupError(f"banco de dados não suportado: {url.get_backend_name()}")


def libpq_url(url) -> str:
    """A SQLAlchemy URL as pg_dump/pg_restore/psql take it (without the +driver)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def schema_revision() -> str | None:
    """The database's Alembic revision (what `flask db upgrade` last applied)."""
    from sqlalchemy import inspect

    with db.engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


_FACTS = ("SELECT count(*) FROM inspection_photos WHERE received_at IS NOT NULL",
          "SELECT count(*) FROM audit_entries",
          "SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1")


def facts(execute=None) -> dict:
    """What a restore must find again: received photos, audit entries and the log's last
    entry, read by `execute(sql) -> rows` (the copy's own snapshot) or from the app's db."""
    if execute is None:
        def execute(sql):
            return db.session.execute(text(sql)).all()
    photos, entries, head = (execute(q) for q in _FACTS)
    return {"photos": photos[0][0], "audit_entries": entries[0][0],
            "audit_head": {"seq": head[0][0], "sha256": head[0][1]} if head else None}


# --- evidence --------------------------------------------------------------------------------

def _previous_packs(dest: Path) -> dict[str, dict]:
    """Per pack, the segments and stable end recorded by the newest earlier backup."""
    for manifest in sorted(dest.glob(f"*/{MANIFEST}"), reverse=True):
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return data.get("evidence_packs", {})
    return {}


def _copy_range(src, dst_path: Path, start: int, end: int) -> tuple[str, int]:
    """Copy bytes [start, end) of an open file to a new file; (sha256, stable length): how
    many of them are whole records whose SHA-256 holds, from `start` (a record boundary)."""
    h = hashlib.sha256()
    buffer = bytearray()
    stable, broken = 0, False
    src.seek(start)
    tmp = dst_path.with_name(dst_path.name + ".part")
    with open(tmp, "wb") as out:
        left = end - start
        while left > 0:
            block = src.read(min(_BLOCK, left))
            if not block:
                break
            left -= len(block)
            h.update(block)
            out.write(block)
            if broken:
                continue
            buffer += block
            while len(buffer) >= inspections.PACK_HEADER.size:
                magic, digest, length = inspections.PACK_HEADER.unpack_from(buffer)
                if magic != inspections.PACK_MAGIC:
                    broken = True
                    break
                whole = inspections.PACK_HEADER.size + length
                if len(buffer) < whole:
                    break
                if hashlib.sha256(buffer[inspections.PACK_HEADER.size:whole]).digest() != digest:
                    broken = True
                    break
                stable += whole
                del buffer[:whole]
            if broken:
                buffer.clear()
        out.flush()
        os.fsync(out.fileno())
    tmp.rename(dst_path)
    return h.hexdigest(), stable


def _segment_path(folder: Path, s: dict) -> Path:
    """A shared segment is named by its range; a tail also by the backup that made it."""
    name = f"{s['start']:012d}-{s['end']:012d}"
    return folder / (f"{name}.tail-{s['tail']}" if s.get("tail") else name)


def copy_evidence(source: Path, dest: Path, stamp: str) -> tuple[list[dict], dict, int]:
    """Copy what is new in the evidence directory: (parts, packs' state, bytes copied)."""
    parts: list[dict] = []
    state: dict[str, dict] = {}
    copied = 0
    previous = _previous_packs(dest)
    packs = sorted((source / "packs").glob("*.pack")) if (source / "packs").is_dir() else []
    for pack in packs:
        size = pack.stat().st_size
        before = previous.get(pack.name, {"stable": 0, "segments": []})
        folder = dest / "evidence" / pack.name
        start = before["stable"] if before["stable"] <= size else 0
        segments = [s for s in before["segments"] if s["end"] <= start] if start else []
        if sum(s["end"] - s["start"] for s in segments) != start or any(
                not _segment_path(folder, s).is_file()
                or _segment_path(folder, s).stat().st_size != s["end"] - s["start"]
                for s in segments):
            start, segments = 0, []           # a segment went missing: copy the pack again
        folder.mkdir(parents=True, exist_ok=True)
        stable = start
        if size > start:
            with open(pack, "rb") as f:
                seg = folder / f".new-{stamp}"
                digest, whole = _copy_range(f, seg, start, size)
                copied += size - start
                if whole == size - start:
                    new = [{"start": start, "end": size, "sha256": digest}]
                elif whole == 0:                     # a record still being written: a tail
                    new = [{"start": start, "end": size, "sha256": digest, "tail": stamp}]
                else:                                # whole records, then a tail
                    d1, _ = _copy_range(f, folder / ".head", start, start + whole)
                    d2, _ = _copy_range(f, folder / ".tail", start + whole, size)
                    new = [{"start": start, "end": start + whole, "sha256": d1},
                           {"start": start + whole, "end": size, "sha256": d2, "tail": stamp}]
                    seg.unlink()
                    seg = None
                    (folder / ".head").rename(_segment_path(folder, new[0]))
                    (folder / ".tail").rename(_segment_path(folder, new[1]))
                if seg is not None:
                    seg.rename(_segment_path(folder, new[0]))
                segments += new
                stable = start + whole
        state[pack.name] = {"size": size, "stable": stable,
                            "segments": [s for s in segments if not s.get("tail")]}
        for s in segments:
            path = _segment_path(folder, s)
            parts.append({"path": path.relative_to(dest).as_posix(), "size": s["end"] - s["start"],
                          "sha256": s["sha256"], "restore": f"packs/{pack.name}",
                          "offset": s["start"]})
    for loose in sorted(p for p in source.glob("[0-9a-f][0-9a-f]/*") if p.is_file()
                        and not p.name.startswith(".")):
        target = dest / "evidence" / "loose" / loose.parent.name / loose.name
        if not target.exists() or target.stat().st_size != loose.stat().st_size:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(loose, target.with_name(target.name + ".part"))
            if file_sha256(target.with_name(target.name + ".part")) != loose.name:
                raise BackupError(f"evidência alterada: {loose} não confere com o seu SHA-256")
            target.with_name(target.name + ".part").rename(target)
            copied += loose.stat().st_size
        parts.append({"path": target.relative_to(dest).as_posix(),   # named by its SHA-256
                      "size": target.stat().st_size, "sha256": loose.name,
                      "restore": f"{loose.parent.name}/{loose.name}", "offset": 0})
    return parts, state, copied


# --- the towns' law -------------------------------------------------------------------------

def copy_rules(app: Flask, work: Path) -> tuple[list[tuple[str, str]], dict]:
    """Copy the law the towns need into `work`: every file of the RULES_EXTRA_DIR folders
    (put back by a restore) and the program's own packs the towns use, with their law texts
    (kept, not restored: the program ships them). (parts as (path in the backup folder,
    restore), the manifest's rule_packs: id -> town, origin, sha256, path)."""
    from inspector.operations import packs
    from inspector.rules import LAWS_DIR

    parts: list[tuple[str, str]] = []
    seen: dict[str, Path] = {}
    for folder in packs.extra_folders(app):
        for kind, pattern in (("packs", "*.yaml"), ("laws", "*.txt")):
            for f in sorted((folder / kind).glob(pattern)) if (folder / kind).is_dir() else []:
                rel = f"rules/{kind}/{f.name}"
                if rel in seen:
                    raise BackupError(f"{f} e {seen[rel]} têm o mesmo nome: um restore os "
                                      "poria na mesma pasta; renomeie um deles")
                seen[rel] = f
                (work / "rules" / kind).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, work / rel)
                parts.append((rel, rel))
    towns = packs.needed()
    used = {i for ids in towns.values() for i in ids}
    out = {}
    for p in rules_loaded():
        if p.town not in towns and p.id not in used:
            continue
        f = packs.PackFile(p.id, p.town, Path(p.path), packs.sha256_of(Path(p.path)))
        if f.shipped:
            (work / "program" / "packs").mkdir(parents=True, exist_ok=True)
            rel = f"program/packs/{f.path.name}"
            shutil.copyfile(f.path, work / rel)
            parts.append((rel, rel))
            law = LAWS_DIR / p.source
            if law.is_file() and not (work / "program" / "laws" / law.name).exists():
                (work / "program" / "laws").mkdir(parents=True, exist_ok=True)
                shutil.copyfile(law, work / "program" / "laws" / law.name)
                parts.append((f"program/laws/{law.name}", f"program/laws/{law.name}"))
        else:
            rel = f"rules/packs/{f.path.name}"
        out[p.id] = {"town": p.town, "origin": "program" if f.shipped else "extra",
                     "sha256": f.sha256, "path": rel}
    return parts, out


def rules_loaded():
    from inspector.rules import load_all

    return load_all()


# --- the whole -------------------------------------------------------------------------------

def _objects_of(app: Flask) -> dict | None:
    """Where this server's object store keeps evidence (None: not configured)."""
    bucket = (app.config.get("EVIDENCE_S3_BUCKET") or "").strip()
    if not bucket:
        return None
    return {"bucket": bucket, "prefix": app.config.get("EVIDENCE_S3_PREFIX") or "",
            "endpoint_url": app.config.get("EVIDENCE_S3_ENDPOINT_URL")}


def create_backup(app: Flask, dest: Path | str, now: datetime | None = None) -> Report:
    """Make one backup in DEST (see the module docstring); raise BackupError on failure,
    leaving no folder that looks like a finished backup (no manifest). Everything it writes
    is readable by its owner only: the database, the keys and the evidence are personal data,
    and a backup run as root would otherwise leave them 0644."""
    mask = os.umask(0o077)
    try:
        return _create(app, dest, now)
    finally:
        os.umask(mask)


def _create(app: Flask, dest: Path | str, now: datetime | None) -> Report:
    started = time.monotonic()
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    stamp = (now or clock.now()).strftime("%Y%m%dT%H%M%SZ")
    if (dest / stamp).exists():
        raise BackupError(f"{dest / stamp} já existe: espere um segundo e tente de novo")
    work = Path(tempfile.mkdtemp(prefix=f".{stamp}-", dir=dest))
    try:
        with app.app_context():
            revision = schema_revision()
            db.session.remove()
            database, dialect, known = dump_database(app, work)
        evidence, packs, copied = copy_evidence(Path(app.config["EVIDENCE_DIR"]), dest, stamp)
        keys = []
        inst = instance_dir(app)
        in_use = app.config.get("SECRET_KEY")
        for name in KEY_FILES:
            if name == "secret_key" and (inst / name).is_file() and \
                    (inst / name).read_text().strip() != in_use:
                continue   # SECRET_KEY comes from elsewhere: this file is not the key in use
            if (inst / name).is_file():
                (work / "instance").mkdir(exist_ok=True)
                shutil.copyfile(inst / name, work / "instance" / name)
                keys.append(name)
        with app.app_context():
            rule_parts, rule_packs = copy_rules(app, work)
            db.session.remove()
        final = dest / stamp
        work.rename(final)
        parts = [_part(dest, final / database.name, restore="database")]
        parts += [_part(dest, final / "instance" / k, restore=f"instance/{k}") for k in keys]
        parts += [_part(dest, final / path, restore=where) for path, where in rule_parts]
        parts += evidence
        from_env = "secret_key" not in keys
        manifest = {
            "format": FORMAT, "app": "inspector", "created_at": clock.now().isoformat(),
            "version": version(), "rule_packs": rule_packs,
            "database": {"dialect": dialect, "file": database.name, "revision": revision},
            "secret_key": "environment" if from_env else "instance/secret_key",
            "secret_key_check": key_check(app.config.get("SECRET_KEY")),
            "facts": known, "parts": parts, "evidence_packs": packs,
            # photos in the object store are not copied here: the bucket (its versioning,
            # replication, object lock) keeps them; the manifest says where they are
            "evidence_objects": _objects_of(app)}
        body = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True).encode()
        (final / MANIFEST).write_bytes(body)
        (final / "manifest.sha256").write_text(hashlib.sha256(body).hexdigest() + "\n")
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        if "final" in locals() and not (final / "manifest.sha256").exists():
            shutil.rmtree(final, ignore_errors=True)
        raise
    total = sum(p["size"] for p in parts)
    copied += sum(p["size"] for p in parts if not p["path"].startswith("evidence/"))
    return Report(final, len(parts), total, copied, time.monotonic() - started)
