"""`backup create DEST`, `backup verify SRC`, `backup restore SRC`: the database, the evidence
and the keys, with a manifest of every part's SHA-256 (docs/backups.md).

    flask --app inspector backup create /var/backups/inspector
    flask --app inspector backup verify /var/backups/inspector/20261201T023000Z
    flask --app inspector backup restore /var/backups/inspector/20261201T023000Z

Errors: one line each on stderr, exit status 2; a refused restore writes nothing.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup

from inspector.cli.common import fail

backup_cli = AppGroup("backup", help="Backups: database, evidence and keys, with a manifest.")


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


@backup_cli.command("create")
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def backup_create(dest: Path, as_json: bool) -> None:
    """A consistent backup into DEST/<date>/ while the server runs; evidence incremental."""
    from inspector.operations import BackupError, create_backup

    try:
        report = create_backup(current_app, dest)
    except (BackupError, OSError) as e:
        fail(f"backup não feito: {e}")
    if as_json:
        click.echo(json.dumps({"folder": str(report.folder), "parts": report.parts,
                               "bytes": report.total_bytes, "copied": report.copied_bytes,
                               "seconds": round(report.seconds, 3)}))
        return
    click.echo(f"ok: {report.folder} — {report.parts} partes, {_mb(report.total_bytes)} "
               f"({_mb(report.copied_bytes)} copiados agora) em {report.seconds:.1f} s")


@backup_cli.command("verify")
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
def backup_verify(src: Path) -> None:
    """Check every part of a backup against its manifest (exit 2 on any problem)."""
    from inspector.operations import RestoreRefused, verify_backup

    try:
        manifest, problems = verify_backup(src)
    except RestoreRefused as e:
        manifest, problems = None, e.problems
    for p in problems:
        click.echo(f"erro: {p}", err=True)
    if problems:
        sys.exit(2)
    click.echo(f"ok: {len(manifest['parts'])} partes conferem com o manifesto "
               f"({manifest['created_at']})")


@backup_cli.command("restore")
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
def backup_restore(src: Path) -> None:
    """Restore a backup into this empty instance; refused (nothing written) when a part
    does not match the manifest or the instance is not empty."""
    from inspector.operations import BackupError, RestoreRefused, restore_backup

    try:
        done = restore_backup(current_app, src)
    except RestoreRefused as e:
        for p in e.problems:
            click.echo(f"erro: {p}", err=True)
        fail("restauração recusada: nada foi escrito")
    except BackupError as e:
        fail(str(e))
    click.echo(f"ok: restaurado — {done.parts} partes, {_mb(done.bytes)}, {done.photos} fotos, "
               f"{done.audit_entries} registros de auditoria")
    click.echo("a seguir: flask --app inspector db upgrade; audit verify; evidence verify")
