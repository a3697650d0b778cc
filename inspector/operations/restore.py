"""`backup verify SRC` and `backup restore SRC`: check a backup against its manifest, and put
it back into an empty instance (a new server after a loss).

Nothing is written until every part of the backup has the size and SHA-256 its manifest
gives (and the manifest its own recorded SHA-256), the target is empty (no rows in the
database, no evidence files), the backup's schema is one this code knows, and the secret key
that will be used is the backup's (it decrypts the QR signing keys kept in the database).
The town's law comes back too: the packs and law texts of RULES_EXTRA_DIR go into the first
folder of this server's RULES_EXTRA_DIR (refused, before anything is written, when it is not
set or holds a file of the same name with other content), and a pack the program shipped
must be in this program. After the restore the photo count and the audit log's last entry
are compared with the manifest's, and every town's pack with the version its acts were
judged under.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from sqlalchemy import MetaData, inspect, select, text
from sqlalchemy.engine import make_url

from inspector import laws
from inspector.extensions import db
from inspector.operations.backup import (
    FORMAT,
    MANIFEST,
    BackupError,
    facts,
    file_sha256,
    instance_dir,
    key_check,
    libpq_url,
)

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"   # read as files, not imported


class RestoreRefused(BackupError):
    """A backup that does not match its manifest, or a target that is not empty: each
    problem is one pt-BR line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass
class Restored:
    """What a restore put back."""

    parts: int
    bytes: int
    photos: int
    audit_entries: int


def read_manifest(src: Path) -> dict:
    """The manifest of a backup folder, checked against its recorded SHA-256."""
    body_path, sum_path = src / MANIFEST, src / "manifest.sha256"
    if not body_path.is_file() or not sum_path.is_file():
        raise RestoreRefused([f"{src}: não é um backup completo (falta {MANIFEST} ou "
                              "manifest.sha256)"])
    body = body_path.read_bytes()
    if hashlib.sha256(body).hexdigest() != sum_path.read_text().strip():
        raise RestoreRefused([f"{body_path}: o manifesto foi alterado (SHA-256 não confere "
                              "com manifest.sha256)"])
    manifest = json.loads(body)
    if manifest.get("format") != FORMAT or manifest.get("app") != "inspector":
        raise RestoreRefused([f"{body_path}: formato de backup desconhecido"])
    return manifest


def verify_backup(src: Path | str) -> tuple[dict, list[str]]:
    """(manifest, problems): every part of the backup is there with its size and SHA-256."""
    src = Path(src)
    manifest = read_manifest(src)
    root = src.parent
    problems = []
    for part in manifest["parts"]:
        path = root / part["path"]
        if not path.is_file():
            problems.append(f"{part['path']}: ausente")
        elif path.stat().st_size != part["size"]:
            problems.append(f"{part['path']}: {path.stat().st_size} bytes, o manifesto diz "
                            f"{part['size']}")
        elif file_sha256(path) != part["sha256"]:
            problems.append(f"{part['path']}: SHA-256 não confere com o manifesto")
    return manifest, problems


def _code_revisions() -> set[str]:
    """Every schema revision this code's migrations know."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return {s.revision for s in ScriptDirectory.from_config(cfg).walk_revisions()}


def _version_tuple(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(x) for x in str(text).split(".")[:3])
    except ValueError:
        return None


def rules_target(app: Flask) -> Path | None:
    """Where a restore puts the packs and law texts: the first folder of RULES_EXTRA_DIR."""
    from inspector.operations.packs import extra_folders

    dirs = extra_folders(app)
    return dirs[0] if dirs else None


def _rules_problems(app: Flask, manifest: dict, src: Path) -> list[str]:
    """Why the backup's law cannot be put back here (nothing written yet)."""
    from inspector.operations import packs

    out = []
    files = [p for p in manifest["parts"] if p["restore"].startswith("rules/")]
    target = rules_target(app)
    if files and target is None:
        out.append(f"o backup traz {len(files)} arquivo(s) de leis e pacotes de regras de fora "
                   "do programa: defina RULES_EXTRA_DIR com a pasta onde pô-los (ex.: "
                   "RULES_EXTRA_DIR=/srv/inspector-leis, uma pasta vazia) e rode de novo")
    for part in files if target is not None else []:
        there = target / part["restore"].removeprefix("rules/")
        if there.exists() and file_sha256(there) != part["sha256"]:
            out.append(f"{there} já existe e difere do arquivo do backup: compare e retire-o "
                       "antes")
    have = packs.loaded_packs()
    for pack_id, info in sorted((manifest.get("rule_packs") or {}).items()):
        if info["origin"] == "program" and (pack_id not in have or not have[pack_id].shipped):
            out.append(f"o pacote {pack_id} vinha com o programa (versão "
                       f"{manifest.get('version', '?')}) e esta versão não o tem: instale a "
                       "versão de origem ou mais nova antes de restaurar")
    return out


def _target_problems(app: Flask, manifest: dict, src: Path) -> list[str]:
    """Why this instance cannot take the backup: not empty, another key, newer schema or
    program, the town's law that cannot be put back."""
    from inspector.config import version

    out = []
    theirs, ours = _version_tuple(manifest.get("version", "")), _version_tuple(version())
    if theirs and ours and theirs > ours:
        out.append(f"o backup é da versão {manifest['version']} do programa, mais nova que "
                   f"esta ({version()}): instale a versão de origem ou mais nova antes de "
                   "restaurar")
    out += _rules_problems(app, manifest, src)
    revision = manifest["database"].get("revision")
    if revision and revision not in _code_revisions():
        out.append(f"o backup é de uma versão mais nova do programa (esquema {revision}): "
                   "instale a versão de origem ou mais nova antes de restaurar")
    dialect = make_url(app.config["SQLALCHEMY_DATABASE_URI"]).get_backend_name()
    if dialect != manifest["database"]["dialect"]:
        out.append(f"o backup é de um banco {manifest['database']['dialect']}, este servidor "
                   f"usa {dialect}")
    with app.app_context():
        names = [t for t in inspect(db.engine).get_table_names() if t != "alembic_version"]
        meta = MetaData()
        meta.reflect(bind=db.engine, only=names)
        full = [t.name for t in meta.sorted_tables
                if db.session.execute(select(text("1")).select_from(t).limit(1)).first()]
        db.session.remove()
        db.engine.dispose()
    if full:
        out.append(f"o banco de dados de destino não está vazio ({', '.join(full[:4])}"
                   f"{'…' if len(full) > 4 else ''}): restaure numa instância nova")
    evidence = Path(app.config["EVIDENCE_DIR"])
    if evidence.exists() and any(p.is_file() for p in evidence.rglob("*")):
        out.append(f"a pasta de evidências {evidence} não está vazia")
    inst = instance_dir(app)
    has_file = any(p["restore"] == "instance/secret_key" for p in manifest["parts"])
    key = (src / "instance" / "secret_key").read_text().strip() if has_file \
        else app.config.get("SECRET_KEY")
    if has_file and os.environ.get("SECRET_KEY") and os.environ["SECRET_KEY"] != key:
        out.append("SECRET_KEY do ambiente difere da do backup (instance/secret_key): "
                   "retire-a do ambiente ou use a do servidor de origem")
    elif key_check(key) != manifest["secret_key_check"]:
        out.append("a SECRET_KEY deste servidor não é a do backup: as chaves de assinatura "
                   "dos QR, cifradas com ela, não poderiam ser lidas; defina SECRET_KEY igual "
                   "à do servidor de origem")
    config = inst / "config.py"
    kept = src / "instance" / "config.py"
    if config.is_file() and kept.is_file() and config.read_bytes() != kept.read_bytes():
        out.append(f"{config} já existe e difere da do backup: compare e retire-a antes")
    return out


def _restore_database(app: Flask, path: Path, dialect: str) -> None:
    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"])
    with app.app_context():
        db.engine.dispose()
        if dialect == "sqlite":
            target = Path(url.database)
            target.parent.mkdir(parents=True, exist_ok=True)
            src, dst = sqlite3.connect(f"file:{path}?mode=ro", uri=True), sqlite3.connect(target)
            try:
                src.backup(dst)     # page by page into the target, as SQLite writes it
            finally:
                src.close()
                dst.close()
            return
        meta = MetaData()
        meta.reflect(bind=db.engine)
        meta.drop_all(bind=db.engine)   # empty tables (checked above) of a `db upgrade` done
        db.engine.dispose()
    done = subprocess.run(["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error",
                           "--dbname", libpq_url(url), str(path)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise BackupError(f"pg_restore falhou: {done.stderr.strip()[-300:]}")


def _restore_evidence(root: Path, manifest: dict, evidence: Path) -> int:
    written = 0
    for part in sorted((p for p in manifest["parts"] if not p["restore"].startswith(
            ("database", "instance/", "rules/", "program/"))),
            key=lambda p: (p["restore"], p["offset"])):
        target = evidence / part["restore"]
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(root / part["path"], "rb") as f, open(target, "r+b" if target.exists()
                                                         else "wb") as out:
            out.seek(part["offset"])
            shutil.copyfileobj(f, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())
        written += part["size"]
    return written


def _use_law_of(app: Flask) -> None:
    """Read the packs of this app's RULES_EXTRA_DIR (one app per process in production; a
    test process holds several)."""
    from inspector import laws, rules
    from inspector.operations.packs import extra_folders

    if rules.set_extra_dirs(extra_folders(app)):
        rules.law_texts.cache_clear()
        laws.forget_rules()


def _restore_rules(app: Flask, root: Path, manifest: dict) -> int:
    """Put the packs and law texts of RULES_EXTRA_DIR back, then read every pack again (a
    pack that does not load is reported as at a start)."""
    from inspector import rules
    from inspector.rules import RulePackError

    target, written = rules_target(app), 0
    for part in manifest["parts"]:
        if not part["restore"].startswith("rules/"):
            continue
        there = target / part["restore"].removeprefix("rules/")
        there.parent.mkdir(parents=True, exist_ok=True)
        if not there.exists():
            shutil.copyfile(root / part["path"], there)
            written += part["size"]
    rules.load_all.cache_clear()
    rules.law_texts.cache_clear()
    laws.forget_rules()
    try:
        rules.load_all()
        rules.law_texts()
    except RulePackError as e:
        raise BackupError(f"restaurado, mas um pacote de regras foi recusado: {e}") from None
    return written


def restore_backup(app: Flask, src: Path | str) -> Restored:
    """Put a backup back into this empty instance (see the module docstring)."""
    src = Path(src)
    _use_law_of(app)
    manifest, problems = verify_backup(src)
    if problems:
        raise RestoreRefused(problems)
    problems = _target_problems(app, manifest, src)
    if problems:
        raise RestoreRefused(problems)
    database = next(p for p in manifest["parts"] if p["restore"] == "database")
    _restore_database(app, src.parent / database["path"], manifest["database"]["dialect"])
    written = database["size"] + _restore_evidence(src.parent, manifest,
                                                   Path(app.config["EVIDENCE_DIR"]))
    inst = instance_dir(app)
    for part in manifest["parts"]:
        if part["restore"].startswith("instance/"):
            inst.mkdir(parents=True, exist_ok=True)
            target = inst / part["restore"].removeprefix("instance/")
            shutil.copyfile(src.parent / part["path"], target)
            target.chmod(0o600)
            written += part["size"]
    written += _restore_rules(app, src.parent, manifest)
    from inspector.operations import packs

    with app.app_context():
        found = facts()
        law = packs.problems()
        db.session.remove()
        db.engine.dispose()
    if found != manifest["facts"]:
        raise BackupError(f"restaurado, mas não confere com o manifesto: {found} ≠ "
                          f"{manifest['facts']}")
    if law:
        raise BackupError("restaurado, mas a lei dos municípios não confere: " + "; ".join(law))
    return Restored(len(manifest["parts"]), written, found["photos"], found["audit_entries"])
