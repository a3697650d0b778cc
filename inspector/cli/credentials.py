"""`flask --app inspector credentials ...`: issue, list, print, revoke, rotate keys.

Errors: one line on stderr, exit status 2.
"""
from __future__ import annotations

import errno
import json
import os
from datetime import date
from pathlib import Path

import click
from flask.cli import AppGroup
from sqlalchemy import select

from inspector import clock, credentials
from inspector.cli.common import fail
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Credential, Municipality

credentials_cli = AppGroup("credentials", help="QR credentials: stickers, vest badges, ID cards.")
SHEETS_HELP = "Sheet: " + ", ".join(credentials.SHEETS) + "."


def _kind(_ctx, _param, value: str | None) -> str | None:
    """Validate --kind with a one-line error (not click's usage text)."""
    if value is not None and value not in credentials.SHEETS:
        fail(f"--kind desconhecido: {value!r} (use {', '.join(credentials.SHEETS)})")
    return value


def _town(slug: str) -> Municipality:
    town = db.session.scalar(select(Municipality).filter_by(slug=slug))
    if town is None:
        fail(f"cidade desconhecida: {slug!r}")
    return town


def _row(c: Credential, today: date) -> dict:
    subject = credentials.subject_of(c)
    return {"id": c.id, "kind": c.kind.value, "sheet": credentials.sheet_of(c),
            "service": credentials.service_of(c).value,
            "vehicle_id": c.vehicle_id, "driver_id": c.driver_id,
            "plate": getattr(subject, "plate", None), "prefix": getattr(subject, "prefix", None),
            "name": getattr(subject, "name", None) if c.driver_id else None,
            "status": c.status_on(today), "kid": c.kid,
            "issued_at": c.issued_at.isoformat(), "expires_on": c.expires_on.isoformat(),
            "revoked_reason": c.revoked_reason, "url": credentials.public_url(c.token)}


@credentials_cli.command("list")
@click.option("--town", required=True, help="Town slug.")
@click.option("--kind", callback=_kind, help=SHEETS_HELP)
@click.option("--all", "include_revoked", is_flag=True, help="Include revoked credentials.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_cmd(town: str, kind: str | None, include_revoked: bool, as_json: bool) -> None:
    """Issued credentials of a town with the URL each QR encodes."""
    t = _town(town)
    today = clock.today(t)
    rows = [_row(c, today) for c in credentials.for_town(t.id, kind, include_revoked)]
    if as_json:
        click.echo(json.dumps({"town": t.slug, "credentials": rows}, ensure_ascii=False))
        return
    for r in rows:
        label = r["plate"] or r["name"]
        click.echo(f"{r['id']:>5}  {r['sheet']:<7} {label:<24} {r['status']:<8} "
                   f"até {r['expires_on']}  {r['url']}")
    if not rows:
        click.echo("nenhuma credencial emitida", err=True)


@credentials_cli.command("issue")
@click.option("--town", required=True, help="Town slug.")
@click.option("--kind", callback=_kind, help=SHEETS_HELP + " Default: all.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def issue_cmd(town: str, kind: str | None, as_json: bool) -> None:
    """Issue a credential to every vehicle and driver of the town that has none."""
    t = _town(town)
    made = []
    try:
        for sheet in [kind] if kind else credentials.offered_sheets(t.id):
            made += credentials.issue_missing(t.id, sheet, actor="cli")
    except ValidationFailed as e:
        db.session.rollback()
        fail(str(e))
    db.session.commit()
    today = clock.today(t)
    if as_json:
        click.echo(json.dumps({"issued": [_row(c, today) for c in made]}, ensure_ascii=False))
    else:
        click.echo(f"{len(made)} credenciais emitidas em {t.name}")


@credentials_cli.command("sheet")
@click.option("--town", required=True, help="Town slug.")
@click.option("--kind", callback=_kind, default="vehicle", show_default=True, help=SHEETS_HELP)
@click.option("--out", type=click.Path(dir_okay=False, writable=True), help="PDF file to write.")
@click.option("--issue-missing", is_flag=True, help="First issue credentials that are missing.")
@click.option("--id", "ids", type=int, multiple=True, help="Only these credential ids.")
def sheet_cmd(town: str, kind: str, out: str | None, issue_missing: bool,
              ids: tuple[int, ...]) -> None:
    """Write an A4 PDF of the town's active credentials (stickers, vest badges or ID cards).

    All or nothing: credentials issued by --issue-missing are committed only once the PDF
    that prints them is written; if it cannot be, none is issued."""
    t = _town(town)
    path = Path(out or f"credenciais-{t.slug}-{kind}.pdf")
    none = "; nenhuma credencial foi emitida" if issue_missing else ""
    if not path.parent.is_dir():  # before issuing anything
        fail(f"não foi possível gravar {path}: a pasta não existe{none}")
    if not os.access(path.parent, os.W_OK):
        fail(f"não foi possível gravar {path}: sem permissão para gravar{none}")
    try:
        credentials.check_sheet(t.id, kind)
        if issue_missing:
            credentials.issue_missing(t.id, kind, actor="cli")
    except ValidationFailed as e:
        db.session.rollback()
        fail(str(e))
    creds = credentials.for_town(t.id, kind, include_revoked=False)
    if ids:
        unknown = set(ids) - {c.id for c in creds}
        if unknown:
            db.session.rollback()
            fail(f"credencial não ativa ou de outra folha/cidade: {sorted(unknown)}")
        creds = [c for c in creds if c.id in ids]
    creds = credentials.printable(creds, kind, clock.today(t))
    existed = path.exists()
    try:
        path.write_bytes(credentials.render_pdf(creds, t, kind))
    except OSError as e:
        db.session.rollback()
        _drop(path, existed)
        fail(f"não foi possível gravar {path}: {_why_not_written(e)}{none}")
    try:
        db.session.commit()
    except Exception:
        db.session.rollback()
        _drop(path, existed)  # a sheet of credentials that were not issued would mislead
        raise
    click.echo(f"{path}: {len(creds)} credenciais")


def _drop(path: Path, existed: bool) -> None:
    """Remove what a failed run wrote (not a file that was there before)."""
    if not existed:
        path.unlink(missing_ok=True)


_WRITE_ERRORS = {errno.ENOENT: "a pasta não existe", errno.ENOTDIR: "a pasta não existe",
                 errno.EACCES: "sem permissão para gravar", errno.EPERM: "sem permissão para gravar",
                 errno.EISDIR: "é uma pasta, não um arquivo", errno.ENOSPC: "o disco está cheio",
                 errno.EROFS: "o disco é só de leitura"}


def _why_not_written(e: OSError) -> str:
    """Why a file could not be written, in Portuguese (the system says it in English)."""
    return _WRITE_ERRORS.get(e.errno, f"erro do sistema ({e.strerror or e})")


def _credential(ident: int) -> Credential:
    c = db.session.get(Credential, ident)
    if c is None:
        fail(f"credencial {ident} não existe")
    return c


@credentials_cli.command("revoke")
@click.argument("ident", type=int)
@click.option("--reason", required=True)
def revoke_cmd(ident: int, reason: str) -> None:
    """Cancel a credential (its QR answers CREDENCIAL CANCELADA)."""
    try:
        credentials.revoke(_credential(ident), reason, actor="cli")
    except ValidationFailed as e:
        db.session.rollback()
        fail(str(e))
    db.session.commit()
    click.echo(f"credencial {ident} cancelada")


@credentials_cli.command("reissue")
@click.argument("ident", type=int)
@click.option("--reason", required=True)
def reissue_cmd(ident: int, reason: str) -> None:
    """Cancel a credential and issue a new one to the same vehicle or driver."""
    try:
        new = credentials.reissue(_credential(ident), reason, actor="cli")
    except ValidationFailed as e:
        db.session.rollback()
        fail(str(e))
    db.session.commit()
    click.echo(f"credencial {ident} cancelada; nova {new.id}: {credentials.public_url(new.token)}")


@credentials_cli.command("rotate-key")
def rotate_cmd() -> None:
    """Start signing with a new key; the old one verifies what it signed until that expires."""
    key = credentials.rotate_keys(actor="cli")
    db.session.commit()
    click.echo(f"nova chave {key.kid} ativa")


@credentials_cli.command("keys")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def keys_cmd(as_json: bool) -> None:
    """The public keys a verifier needs."""
    keys = credentials.public_key_set()
    if as_json:
        click.echo(json.dumps({"keys": keys}))
        return
    for k in keys:
        click.echo(f"kid {k['kid']}  {'assina' if k['signing'] else 'aposentada'}  "
                   f"verifica até {k['verify_until'] or '-'}  x={k['x']}")
