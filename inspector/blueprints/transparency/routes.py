"""`/transparencia/registro`: the head of each town's audit chain, public, so that copies
kept elsewhere witness it; `/transparencia/registro/resumos`: the daily digests of every
chain's head.

Every change the app makes is an entry of its town's hash-chained log (audit.py). A
chain shows an edited or deleted entry in the middle, but not a cut tail: a chain whose
newest entries were deleted still verifies. Issued documents print their town's head when
they are issued; this page prints every head at any moment, for anyone (the town's chamber,
the press, an archive) to keep, and checks a kept pair (number, SHA-256) against the log as
it is now. The daily digest covers every town at once, so a rewrite of the whole deployment
shows against a digest kept elsewhere. No login, no personal data: entry numbers and hashes.
Heads are read without the chains' locks, so the pages cannot hold up a writer; they are
rate-limited like every public page.
"""
from __future__ import annotations

import json
import re
from datetime import date, timedelta

from flask import Blueprint, jsonify, make_response, render_template, request
from sqlalchemy import select

from inspector import audit, clock
from inspector.extensions import db, limiter
from inspector.models import AuditDigest, Municipality
from inspector.security import config_limit, no_store, public

bp = Blueprint("transparency", __name__, url_prefix="/transparencia")

_limit = config_limit("TRANSPARENCY_RATE_LIMIT", "30 per minute;300 per hour")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SEQ_PREFIX = re.compile(r"^(?:n\s*[º°o.]?|#|entrada)\s*")  # "nº 12", "#12" as printed
MAX_SEQ = 10**12


class BadAnchor(ValueError):
    """A kept pair that cannot be read: the message says what to fix, in pt-BR."""


def _anchor() -> tuple[int, str] | None:
    """The (number, SHA-256) asked about in the query string, None when none was asked."""
    raw_seq = _SEQ_PREFIX.sub("", request.args.get("numero", "").strip().lower())
    raw_hash = re.sub(r"\s+", "", request.args.get("codigo", "")).lower()
    if not raw_seq and not raw_hash:
        return None
    if not (raw_seq.isascii() and raw_seq.isdigit()) or not 0 < int(raw_seq) < MAX_SEQ:
        raise BadAnchor("Informe o número da entrada (só algarismos, por exemplo 1234).")
    if not _HEX64.fullmatch(raw_hash):
        raise BadAnchor("O código SHA-256 tem 64 caracteres, de 0 a 9 e de a a f; confira a "
                        "cópia guardada.")
    return int(raw_seq), raw_hash


def _check(seq: int, digest: str, head: tuple[int, str] | None) -> dict:
    """What the log says today about a kept pair: holds, missing or altered, in words."""
    found = audit.hash_of(seq)
    if found == digest:
        return {"holds": True, "state": "holds", "message":
                f"Confere: a entrada nº {seq} continua no registro com este mesmo código."}
    if found is None:
        last = head[0] if head else 0
        return {"holds": False, "state": "missing", "message":
                f"NÃO confere: o registro não tem a entrada nº {seq} (a última é a nº {last}). "
                "Ou o número foi copiado errado, ou o registro perdeu entradas depois que esta "
                "cópia foi guardada."}
    return {"holds": False, "state": "altered", "message":
            f"NÃO confere: a entrada nº {seq} tem hoje outro código ({found[:16]}…). Ou o "
            "código foi copiado errado, ou o registro foi reescrito depois que esta cópia foi "
            "guardada."}


def _now_text() -> str:
    # the register holds every town's chain: its pages belong to no one town's clock
    return clock.default_now().strftime("%d/%m/%Y %H:%M")


@bp.errorhandler(429)
def too_many(_e):
    """A small pt-BR page (or JSON) for a rate-limited visitor."""
    if request.path.endswith(".json"):
        return no_store(make_response(jsonify(
            error="Muitas consultas. Aguarde alguns minutos e tente de novo."), 429))
    return no_store(make_response(render_template(
        "public/message.html", title="Muitas consultas",
        message="Aguarde alguns minutos e tente de novo."), 429))


def _names() -> dict[str, str]:
    return dict(db.session.execute(select(Municipality.slug, Municipality.name)).all())


def _chains() -> list[dict]:
    """Each chain's head now, with the town's name (the deployment's chain: no town)."""
    names = _names()
    return [{**h, "name": names.get(h["town"], h["town"]) if h["town"] else None}
            for h in audit.heads_now()]


@bp.get("/registro")
@public
@limiter.shared_limit(_limit, scope="transparency")
def head_page():
    """Each chain's head to keep, and the check of a pair kept before."""
    head = audit.latest()
    status, check, error = 200, None, None
    try:
        asked = _anchor()
    except BadAnchor as e:
        asked, error, status = None, str(e), 400
    if asked is not None:
        check = _check(*asked, head)
    return no_store(make_response(render_template(
        "transparency/registro.html", head=head, chains=_chains(), check=check, error=error,
        now_text=_now_text(), asked=request.args), status))


@bp.get("/registro.json")
@public
@limiter.shared_limit(_limit, scope="transparency")
def head_json():
    """The same as JSON, for archives that keep it on a schedule."""
    head = audit.latest()
    try:
        asked = _anchor()
    except BadAnchor as e:
        return no_store(make_response(jsonify(error=str(e)), 400))
    body = {"seq": head[0] if head else 0, "sha256": head[1] if head else None,
            "chains": [{"town": c["town"], "position": c["position"], "seq": c["seq"],
                        "sha256": c["sha256"]} for c in _chains()],
            "consulted_at": clock.default_now().isoformat(timespec="seconds")}
    if asked is not None:
        body["check"] = {"seq": asked[0], "sha256": asked[1], **_check(*asked, head)}
    return no_store(make_response(jsonify(body), 200))


DIGEST_DAYS = 31  # the digests listed by default: a month, newest first


def _asked_day() -> date | None:
    raw = request.args.get("dia", "").strip()
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise BadAnchor("Informe o dia como AAAA-MM-DD, por exemplo 2026-12-06.") from None


def _digests(day: date | None) -> list[dict]:
    query = select(AuditDigest).order_by(AuditDigest.day.desc())
    if day is not None:
        query = query.where(AuditDigest.day == day)
    else:
        query = query.where(AuditDigest.day > clock.default_day() - timedelta(days=DIGEST_DAYS))
    return [{"day": d.day.isoformat(), "digest": d.digest, "prev_digest": d.prev_digest,
             "taken_at": clock.utc(d.taken_at).isoformat(timespec="seconds"),
             "heads": json.loads(d.heads)} for d in db.session.scalars(query)]


@bp.get("/registro/resumos")
@public
@limiter.shared_limit(_limit, scope="transparency")
def digests_page():
    """The daily digests of every chain's head: the last month, or one day (?dia=)."""
    status, error, day = 200, None, None
    try:
        day = _asked_day()
    except BadAnchor as e:
        error, status = str(e), 400
    return no_store(make_response(render_template(
        "transparency/resumos.html", digests=[] if error else _digests(day), names=_names(),
        day=day, error=error, days=DIGEST_DAYS, now_text=_now_text()), status))


@bp.get("/registro/resumos.json")
@public
@limiter.shared_limit(_limit, scope="transparency")
def digests_json():
    """The same as JSON, for archives that keep them."""
    try:
        day = _asked_day()
    except BadAnchor as e:
        return no_store(make_response(jsonify(error=str(e)), 400))
    return no_store(make_response(jsonify(
        {"digests": _digests(day),
         "consulted_at": clock.default_now().isoformat(timespec="seconds")}), 200))
