"""`/transparencia/registro`: the audit log's head, public, so that copies kept elsewhere
witness it.

Every change the app makes is an entry of one hash-chained log (audit.py). The
chain shows an edited or deleted entry in the middle, but not a cut tail: a log whose
newest entries were deleted still verifies. Issued documents print the head when they are
issued; this page prints it at any moment, for anyone (the town's chamber, the press, an
archive) to keep, and checks a kept pair (number, SHA-256) against the log as it is now.
No login, no personal data: an entry number and a hash. The head is read without the
chain's lock, so the page cannot hold up a writer; it is rate-limited like every public page.
"""
from __future__ import annotations

import re

from flask import Blueprint, jsonify, make_response, render_template, request

from inspector import audit, clock
from inspector.extensions import limiter
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


@bp.get("/registro")
@public
@limiter.shared_limit(_limit, scope="transparency")
def head_page():
    """The log's head to keep, and the check of a pair kept before."""
    head = audit.latest()
    status, check, error = 200, None, None
    try:
        asked = _anchor()
    except BadAnchor as e:
        asked, error, status = None, str(e), 400
    if asked is not None:
        check = _check(*asked, head)
    return no_store(make_response(render_template(
        "transparency/registro.html", head=head, check=check, error=error,
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
            "consulted_at": clock.default_now().isoformat(timespec="seconds")}
    if asked is not None:
        body["check"] = {"seq": asked[0], "sha256": asked[1], **_check(*asked, head)}
    return no_store(make_response(jsonify(body), 200))
