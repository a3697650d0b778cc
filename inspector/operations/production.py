"""`INSPECTOR_ENV=production`: what must hold before the web server serves a real town.

The server refuses to start, with one pt-BR line per reason, while
- any active account still signs in with the demo password (`config.py`);
- the secret key is missing or weak: a known demo or test value, or an estimated entropy
  under 256 bits (32 bytes) — see `key_entropy_bits`;
- `PUBLIC_BASE_URL` (printed in every QR code and document) is unset or not https;
- a town's rule pack is missing, or a pack from RULES_EXTRA_DIR differs from the version its
  acts were judged under (`operations/packs.py`); a start that passes records the packs it
  sees for the first time.
- `PUSH_ALLOW_HTTP_LOOPBACK` (tests only: pushes to a fake service on 127.0.0.1) is on.

Cost: the demo password is verified against each active account's Argon2id hash, one
verification per distinct hash (about 0.1 s each on a quiet 2-core machine, 0.3 s under
load: ~1-4 s for a town of a dozen accounts). It runs once per start of the web server —
`gunicorn --preload` runs it in the master before the workers fork — and never for a
command line (`flask ...` must still run to fix what is wrong, e.g. `users password`).
"""
from __future__ import annotations

import math
import string
import sys

import click
from flask import Flask
from sqlalchemy import inspect, select

from inspector.config import DEMO_PASSWORD
from inspector.extensions import db
from inspector.models import User
from inspector.security import verify_password

PRODUCTION = "production"
MIN_KEY_BITS = 256
# Values that were ever written in this repository as a secret key (tests, examples).
KNOWN_KEYS = frozenset({"test-secret", "dev", "secret", "change-me", "changeme", "troque-me",
                        "development", "inspector", "vistoria-demo"})
_ALPHABETS = (string.digits, string.hexdigits.lower(), string.hexdigits.upper(),
              string.ascii_lowercase, string.ascii_uppercase,
              string.ascii_letters + string.digits,
              string.ascii_letters + string.digits + "-_=",
              string.ascii_letters + string.digits + "+/=")


def is_production(config) -> bool:
    """Whether this app runs for a real town (INSPECTOR_ENV=production)."""
    return config.get("INSPECTOR_ENV") == PRODUCTION


def key_entropy_bits(key: str | bytes) -> float:
    """A cautious estimate of a key's entropy: its length times log2 of the smallest usual
    alphabet holding all its characters (decimal digits 10, hex 16, one-case letters 26,
    letters and digits 62, base64 65, any other text 95, raw bytes 256), and at most 32
    bits for each distinct character it uses (so 'abab…' or a repeated word scores low)."""
    if isinstance(key, bytes):
        try:
            key = key.decode("ascii")
        except UnicodeDecodeError:
            return min(len(key) * 8.0, len(set(key)) * 32.0)
    if not key:
        return 0.0
    chars = set(key)
    size = next((len(set(a)) for a in _ALPHABETS if chars <= set(a)), 95)
    return min(len(key) * math.log2(size), len(chars) * 32.0)


def config_problems(config) -> list[str]:
    """What is wrong with the settings alone (no database needed), one pt-BR line each."""
    out = []
    key = config.get("SECRET_KEY")
    if not key:
        out.append("SECRET_KEY ausente: defina SECRET_KEY no ambiente ou crie "
                   "instance/secret_key com 32 bytes aleatórios (docs/production.md)")
    elif (key.decode(errors="replace") if isinstance(key, bytes) else key).strip() in KNOWN_KEYS:
        out.append("SECRET_KEY fraca: é um valor de teste ou de demonstração conhecido; "
                   "gere outra com 32 bytes aleatórios")
    elif (bits := key_entropy_bits(key)) < MIN_KEY_BITS:
        out.append(f"SECRET_KEY fraca: cerca de {int(bits)} bits de entropia, o mínimo é "
                   f"{MIN_KEY_BITS} (32 bytes aleatórios, ex.: 64 algarismos hexadecimais)")
    url = config.get("PUBLIC_BASE_URL") or ""
    if not url:
        out.append("PUBLIC_BASE_URL ausente: defina o endereço https que os QR e os "
                   "documentos imprimem (ex.: https://fiscaliza.tapurah.mt.gov.br)")
    elif not url.startswith("https://"):
        out.append(f"PUBLIC_BASE_URL={url} não é https: os QR e os documentos impressos "
                   "precisam de um endereço https")
    evidence = config.get("EVIDENCE_BACKEND") or "packs"
    if evidence not in ("packs", "s3"):
        out.append(f"EVIDENCE_BACKEND={evidence!r} não é válido: use packs ou s3")
    elif evidence == "s3" and not (config.get("EVIDENCE_S3_BUCKET") or "").strip():
        out.append("EVIDENCE_BACKEND=s3 sem EVIDENCE_S3_BUCKET: defina o bucket das fotos de "
                   "prova (docs/object-storage.md)")
    if config.get("PUSH_ALLOW_HTTP_LOOPBACK"):
        out.append("PUSH_ALLOW_HTTP_LOOPBACK ligado: é só para testes (o servidor enviaria "
                   "notificações para 127.0.0.1); retire-o da configuração")
    return out


def demo_password_accounts() -> list[str]:
    """Usernames of active accounts whose password is the demo one (one Argon2
    verification per distinct hash)."""
    rows = db.session.execute(select(User.username, User.password_hash)
                              .where(User.active.is_(True)).order_by(User.username)).all()
    verdict: dict[str, bool] = {}
    out = []
    for username, stored in rows:
        if stored not in verdict:
            verdict[stored] = verify_password(stored, DEMO_PASSWORD)
        if verdict[stored]:
            out.append(username)
    return out


def database_problems() -> list[str]:
    """What is wrong in the database: no schema, accounts with the demo password, a town's
    rule pack missing or changed."""
    from inspector.operations import packs

    if not inspect(db.engine).has_table("users"):
        return ["banco de dados sem tabelas: rode `flask --app inspector db upgrade` antes"]
    out = packs.problems()
    names = demo_password_accounts()
    if not names:
        return out
    shown = ", ".join(names[:8]) + (f" e mais {len(names) - 8}" if len(names) > 8 else "")
    return [f"{len(names)} conta(s) ativa(s) com a senha de demonstração ({shown}): troque "
            "com `flask --app inspector users password USUÁRIO` ou desative com "
            "`users disable`"] + out


def production_problems(app: Flask) -> list[str]:
    """Every reason this app may not serve a real town, one pt-BR line each."""
    from inspector.operations.database import DATABASE_ERRORS, explain_database_error

    out = config_problems(app.config)
    with app.app_context():
        try:
            out += database_problems()
        except DATABASE_ERRORS as e:   # the start's one line, not SQLAlchemy's traceback
            line = explain_database_error(e, app.config.get("SQLALCHEMY_DATABASE_URI"))
            if line is None:
                raise
            out.append(line)
        finally:
            db.session.remove()
            db.engine.dispose()  # gunicorn --preload: no connection crosses the fork
    return out


def refuse_unsafe_start(app: Flask) -> None:
    """Stop a production web server that is not safe to serve: each reason on stderr, exit
    status 2. Commands (`flask ...`) are let through: they are how an admin fixes them."""
    if click.get_current_context(silent=True) is not None:
        return
    found = production_problems(app)
    if not found:
        record_packs(app)
        return
    for line in found:
        print(f"inspector: produção recusada: {line}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def record_packs(app: Flask) -> None:
    """Record the rule packs this start sees for the first time (operations/packs.py)."""
    from inspector.operations import packs

    with app.app_context():
        try:
            if packs.record_packs("start"):
                db.session.commit()
        finally:
            db.session.remove()
            db.engine.dispose()  # gunicorn --preload: no connection crosses the fork
