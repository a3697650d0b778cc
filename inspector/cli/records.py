"""`audit`, `evidence` and `users`: the log, the photos' files and the accounts."""
from __future__ import annotations

import json
import sys

import click
from flask.cli import AppGroup

from inspector.cli.common import fail
from inspector.extensions import db

audit_cli = AppGroup("audit", help="The hash-chained audit log.")
users_cli = AppGroup("users", help="Accounts of agents, supervisors and admins.")
evidence_cli = AppGroup("evidence", help="Evidence photos: packs (EVIDENCE_DIR) or the "
                        "object store (EVIDENCE_S3_*).")


def _anchor(value: str) -> tuple[int, str]:
    """SEQ:HASH as printed on an issued document."""
    seq, _, digest = value.partition(":")
    digest = digest.strip().lower()
    seq = seq.strip()
    if not (seq.isascii() and seq.isdigit()) or len(digest) != 64 or any(c not in "0123456789abcdef"
                                                              for c in digest):
        fail(f"--expect {value!r}: use NÚMERO:SHA256 (64 algarismos hexadecimais), como "
             "impresso no documento")
    return int(seq), digest


def _kept_digest(value: str):
    """DAY:SHA256 as published at /transparencia/registro/resumos."""
    from datetime import date

    day, _, digest = value.partition(":")
    digest = digest.strip().lower()
    try:
        when = date.fromisoformat(day.strip())
    except ValueError:
        when = None
    if when is None or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        fail(f"--digest {value!r}: use AAAA-MM-DD:SHA256 (64 algarismos hexadecimais), como "
             "publicado em /transparencia/registro/resumos")
    return when, digest


def _town_id(slug: str | None):
    """The id of the town named by --town; one pt-BR line and exit 2 when there is none."""
    from sqlalchemy import select

    from inspector.models import Municipality

    slug = (slug or "").strip().lower()
    town_id = db.session.scalar(select(Municipality.id).where(Municipality.slug == slug))
    if town_id is None:
        fail(f"município {slug!r} não existe (veja `flask --app inspector towns list`)")
    return town_id


@audit_cli.command("verify")
@click.option("--town", "slug", metavar="SLUG", help="Only this town's chain (default: every "
              "chain: each town's, the deployment's and the legacy one).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--expect", "anchors", multiple=True, metavar="SEQ:HASH",
              help="An entry a document printed (repeatable): the log must still hold it.")
@click.option("--digest", "digests", multiple=True, metavar="DAY:SHA256",
              help="A daily digest kept from /transparencia/registro/resumos (repeatable): "
                   "the log's digest of that day must be the same.")
def audit_verify(slug: str | None, as_json: bool, anchors: tuple[str, ...],
                 digests: tuple[str, ...]) -> None:
    """Walk each town's chain (and the deployment's); report each chain's first broken link
    (exit 1) or that it holds. Then replay each town's audited transitions against the law's
    order (enforcement/lifecycle.py): an entry the transition table forbids (two decisions of
    one act, a daily fine from a deadline that never started...) fails too (exit 1), named.
    Without --town, also that every daily digest still matches the heads it recorded (a
    chain rewritten after its digest shows). With --expect, also that every entry printed on
    a document is still there (a truncated tail leaves a chain that holds, but not the
    documents' entries)."""
    from sqlalchemy import select

    from inspector import audit
    from inspector.enforcement import replay
    from inspector.models import AuditEntry

    town_id = _town_id(slug) if slug is not None else None
    expected = [_anchor(a) for a in anchors]
    kept = [_kept_digest(d) for d in digests]
    checks = audit.chains(town_id) if slug is not None else audit.chains()
    orders = {}
    for check in checks:
        if check.chain in (audit.LEGACY, audit.DEPLOYMENT):
            continue
        orders[check.chain] = replay(db.session.scalars(
            select(AuditEntry).where(AuditEntry.municipality_id == check.town_id)
            .order_by(AuditEntry.seq).execution_options(yield_per=1000)))
    problems = audit.missing_anchors(expected)
    digest_problems = audit.digest_problems(kept) if slug is None else []
    breaks = [c.broken for c in checks if c.broken is not None]
    broken = min(breaks, key=lambda b: (b.seq is None, b.seq or 0)) if breaks else None
    disorders = [o for o in orders.values() if o is not None]
    order = min(disorders, key=lambda o: o.seq) if disorders else None
    count = sum(c.count for c in checks)
    ok = broken is None and order is None and not problems and not digest_problems
    if as_json:
        click.echo(json.dumps({
            "ok": ok, "verified": count,
            "broken": None if broken is None else broken.__dict__,
            "out_of_order": None if order is None else order.__dict__,
            "chains": [{"chain": c.chain, "entries": c.count,
                        "head": None if c.head is None else {"seq": c.head[0],
                                                             "sha256": c.head[1]},
                        "broken": None if c.broken is None else c.broken.__dict__,
                        "out_of_order": None if orders.get(c.chain) is None
                        else orders[c.chain].__dict__} for c in checks],
            "digest_problems": digest_problems,
            "anchors": len(expected), "anchor_problems": problems}, ensure_ascii=False))
    else:
        for c in checks:
            if c.broken is None:
                click.echo(f"ok: {c.chain}: {c.count} entries, chain intact")
            else:
                where = f"entry #{c.broken.seq}" if c.broken.seq is not None else "its end"
                click.echo(f"BROKEN: {c.chain}: at {where}"
                           f"{f' (id {c.broken.entry_id})' if c.broken.entry_id else ''}: "
                           f"{c.broken.reason}; {c.count} entries before it hold")
        if not breaks:
            click.echo(f"ok: {count} entries in {len(checks)} chain(s), every chain intact")
        for chain, o in orders.items():
            if o is not None:
                click.echo(f"OUT OF ORDER: {chain}: at entry #{o.seq} (id {o.entry_id}): "
                           f"{o.reason}")
        if order is None:
            click.echo("ok: every act's entries follow the law's order")
        for problem in digest_problems:
            click.echo(f"DIGEST: {problem}")
        if slug is None and not digest_problems:
            click.echo("ok: every daily digest matches the chains' heads it recorded")
        for problem in problems:
            click.echo(f"DOCUMENT: {problem}")
        if expected and not problems:
            click.echo(f"ok: the {len(expected)} entries printed on documents are there")
    if not ok:
        sys.exit(1)


@audit_cli.command("head")
@click.option("--town", "slug", metavar="SLUG", help="Only this town's chain.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def audit_head(slug: str | None, as_json: bool) -> None:
    """Print each chain's last entry as NÚMERO:SHA256 (one town's with --town), to publish
    (the town's official gazette, its site) and check later with `audit verify --expect`;
    /transparencia/registro shows the same to anyone."""
    from inspector import audit

    if slug is not None:
        town_id = _town_id(slug)
        head = audit.head(town_id)
        if as_json:
            click.echo(json.dumps({"town": slug.strip().lower(), "seq": head[0],
                                   "sha256": head[1]} if head else
                                  {"town": slug.strip().lower(), "seq": 0, "sha256": None}))
        elif head is None:
            click.echo("o registro deste município está vazio")
        else:
            click.echo(f"{head[0]}:{head[1]}")
        return
    heads = audit.heads_now()
    if as_json:
        click.echo(json.dumps([{"town": h["town"], "position": h["position"], "seq": h["seq"],
                                "sha256": h["sha256"]} for h in heads]))
    elif not heads:
        click.echo("o registro está vazio")
    else:
        for h in heads:
            click.echo(f"{h['town'] or audit.DEPLOYMENT} {h['seq']}:{h['sha256']}")


@audit_cli.command("digest")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def audit_digest(as_json: bool) -> None:
    """Take today's digest of every chain's head (the tick does it; a second run the same day
    prints the one already taken). Published at /transparencia/registro/resumos."""
    from inspector import audit

    row, taken = audit.take_digest()
    db.session.commit()
    if as_json:
        click.echo(json.dumps({"day": row.day.isoformat(), "digest": row.digest,
                               "taken": taken, "heads": json.loads(row.heads)}))
    else:
        click.echo(f"{row.day.isoformat()}:{row.digest} "
                   f"({'tomado agora' if taken else 'já tomado hoje'}, "
                   f"{len(json.loads(row.heads))} cadeia(s))")


@evidence_cli.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def evidence_verify(as_json: bool) -> None:
    """Hash the bytes of every received photo, in the packs or in the object store; list
    those missing or altered (exit 1)."""
    from flask import current_app
    from sqlalchemy import select

    from inspector import inspections
    from inspector.models import Inspection, Municipality, Photo

    rows = db.session.execute(select(Photo.sha256, Photo.pack, Photo.pack_offset, Photo.size,
                                     Municipality.slug)
                              .join(Inspection, Inspection.id == Photo.inspection_id)
                              .join(Municipality, Municipality.id == Inspection.municipality_id)
                              .where(Photo.received_at.is_not(None))
                              .order_by(Photo.pack, Photo.pack_offset, Photo.sha256)).all()
    db.session.rollback()
    from botocore.exceptions import BotoCoreError, ClientError

    where, loose = str(inspections.evidence_root()), None
    try:
        problems = list(inspections.check_evidence_files(iter(rows)))
        if current_app.config.get("EVIDENCE_S3_BUCKET"):
            # objects no row points to: an upload whose commit failed, a town moved back
            # to the packs (the source is left as it was). Harmless: counted, not a failure.
            objects = inspections.object_store()
            where += f" e s3://{objects.s.bucket}/{objects.s.prefix}"
            pointed = {objects.key(r.slug, r.sha256) for r in rows
                       if r.pack == inspections.IN_S3}
            loose = sum(1 for key in objects.keys() if key not in pointed)
    except inspections.NotConfigured as e:
        fail(f"há fotos no armazenamento de objetos, mas {e}")
    except (inspections.StoreError, BotoCoreError, ClientError) as e:
        fail(f"o armazenamento de objetos não respondeu como esperado: {e}")
    if as_json:
        click.echo(json.dumps({"ok": not problems, "verified": len(rows),
                               "problems": [{"sha256": h, "problem": p} for h, p in problems],
                               "directory": str(inspections.evidence_root()),
                               "objects": sum(r.pack == inspections.IN_S3 for r in rows),
                               "unreferenced_objects": loose}))
    else:
        for sha, problem in problems:
            click.echo(f"{sha}: {problem}")
        click.echo(f"{'ok' if not problems else 'PROBLEMS'}: {len(rows)} photos checked in "
                   f"{where}, {len(problems)} missing or altered")
        if loose:
            click.echo(f"{loose} objetos no armazenamento sem foto que aponte para eles "
                       "(envio sem registro gravado, ou município migrado de volta; "
                       "inofensivos)")
    if problems:
        sys.exit(1)


@evidence_cli.command("migrate")
@click.option("--town", "slug", required=True, help="Town slug.")
@click.option("--to", "to", required=True, metavar="s3|packs",
              help="Destination: s3 (the object store) or packs (EVIDENCE_DIR).")
def evidence_migrate(slug: str, to: str) -> None:
    """Move a town's evidence photos to the object store or back to the packs, one at a time,
    each hashed and confirmed at the destination before its row changes; run it again to
    resume (what is already there is skipped, checked by its hash). Exit 1 when a photo
    could not be moved (missing or altered at the source: listed)."""
    from inspector import inspections

    to = to.strip().lower()
    if to not in ("s3", "packs"):
        fail(f"--to {to!r}: use s3 (armazenamento de objetos) ou packs (pacotes locais)")
    town = inspections.town_by_slug(slug)
    if town is None:
        fail(f"município {slug!r} não existe")
    try:
        out = inspections.move_evidence(town, to)
    except inspections.NotConfigured as e:
        fail(str(e))
    except inspections.StoreError as e:
        fail(f"{e}; rode de novo para continuar de onde parou")
    for sha, problem in out.problems:
        click.echo(f"{sha}: {problem}")
    click.echo(f"{out.town}: {out.total} fotos agora em {to} ({out.moved} copiadas, "
               f"{out.already} já estavam lá, conferidas pelo SHA-256); "
               f"{len(out.problems)} com problema")
    if out.problems:
        sys.exit(1)


def _password_argv(_ctx, _param, value):
    if value is not None:
        fail("a senha não vai na linha de comando (fica no histórico do shell e na lista de "
             "processos): digite-a quando for pedida ou envie-a pela entrada padrão com "
             "--password-stdin")
    return value


def read_password(from_stdin: bool) -> str:
    """A password typed twice at a prompt, or the first line of standard input."""
    if from_stdin:
        line = sys.stdin.readline().rstrip("\r\n")
        if not line:
            fail("--password-stdin: a entrada padrão não trouxe a senha (uma linha)")
        return line
    return click.prompt("Senha", hide_input=True, confirmation_prompt=True)


@users_cli.command("create")
@click.option("--town", required=True, help="Town slug.")
@click.option("--username", required=True)
@click.option("--name", required=True)
@click.option("--role", type=click.Choice(["agent", "supervisor", "admin"]), required=True)
@click.option("--badge", default="", help="Badge or registration number (required of an "
              "agent: it is printed on every notice).")
@click.option("--password-stdin", "password_stdin", is_flag=True,
              help="Read the password from the first line of standard input.")
@click.option("--password", hidden=True, expose_value=False, callback=_password_argv)
def users_create(town: str, username: str, name: str, role: str, badge: str,
                 password_stdin: bool) -> None:
    """Create an account; the password is typed twice (or --password-stdin), never given
    as an argument. The holder must choose their own at the first sign-in."""
    from inspector.accounts import create_user
    from inspector.errors import ValidationFailed
    from inspector.towns import BADGE

    badge = badge.strip()
    if role == "agent" and not badge:
        fail("o agente precisa do número do crachá ou matrícula (--badge): ele sai em cada "
             "notificação")
    if badge and (len(badge) > 30 or not BADGE.fullmatch(badge)):
        fail("--badge: use até 30 letras, números, ponto, barra ou hífen (ex.: 0123/2026)")
    password = read_password(password_stdin)
    try:
        user = create_user(town_slug=town, username=username, name=name, role=role,
                           password=password, badge_number=badge, actor="cli")
    except ValidationFailed as e:
        db.session.rollback()
        fail("conta não criada: " + "; ".join(f"{k}: {v}" for k, v in e.errors.items()))
    db.session.commit()
    click.echo(f"conta criada: {user.username} ({user.role.label}, {town}"
               + (f", crachá {badge}" if badge else "") + "); a senha deverá ser trocada no "
               "primeiro acesso")


@users_cli.command("disable")
@click.argument("username")
def users_disable(username: str) -> None:
    """Disable an account; its sessions end at once."""
    from inspector.accounts import set_active
    from inspector.errors import ValidationFailed

    try:
        set_active(username, False)
    except ValidationFailed as e:
        fail(str(e))
    db.session.commit()
    click.echo(f"disabled {username}")


@users_cli.command("password")
@click.argument("username")
@click.option("--generate", is_flag=True, help="Make a random password and print it once.")
@click.option("--password-stdin", "password_stdin", is_flag=True,
              help="Read the password from the first line of standard input.")
def users_password(username: str, generate: bool, password_stdin: bool) -> None:
    """Set an account's password (typed twice, --password-stdin or --generate); its sessions
    end at once and its holder must choose their own at the next sign-in (an operator chose
    this one)."""
    import secrets

    from inspector.accounts import set_password
    from inspector.errors import ValidationFailed

    password = secrets.token_urlsafe(12) if generate else read_password(password_stdin)
    try:
        set_password(username, password, actor="cli", must_change=True)
    except ValidationFailed as e:
        fail(str(e))
    db.session.commit()
    click.echo(f"senha de {username} trocada" + (f": {password}  (anote: não será mostrada "
                                                 "de novo)" if generate else "")
               + "; deverá ser trocada no próximo acesso")
