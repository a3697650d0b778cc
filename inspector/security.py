"""Sign-in state, role checks and the headers every response carries."""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from functools import wraps

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import Flask, abort, current_app, g, redirect, request, session, url_for
from sqlalchemy.orm import joinedload

from inspector.extensions import db
from inspector.models import Role, User, UserSession

_hasher = PasswordHasher()

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",  # the QR decoder is WebAssembly; no inline script
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Permissions-Policy": "camera=(self), geolocation=(self), microphone=()",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def hash_password(password: str) -> str:
    """An Argon2id hash of a password."""
    return _hasher.hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether a password matches its stored Argon2 hash."""
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def _now() -> datetime:
    return datetime.now(UTC)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start_session(user: User) -> None:
    """Sign a user in: a fresh server-side session, a fresh cookie."""
    session.clear()
    token = secrets.token_urlsafe(32)
    now = _now()
    db.session.add(UserSession(token_hash=_digest(token), user_id=user.id, created_at=now,
                               last_seen_at=now,
                               user_agent=(request.user_agent.string or "")[:200]))
    db.session.commit()
    session["sid"] = token
    session.permanent = True


def end_session() -> None:
    """Sign out: the server-side session is deleted, so a copied cookie is worthless."""
    token = session.get("sid")
    if token:
        UserSession.query.filter_by(token_hash=_digest(token)).delete()
        db.session.commit()
    session.clear()


def end_all_sessions(user: User) -> None:
    """End every session of a user (account disabled, password changed elsewhere)."""
    UserSession.query.filter_by(user_id=user.id).delete()


def load_user() -> None:
    """Find the signed-in user for this request, if the session is still valid."""
    g.user = None
    token = session.get("sid")
    if not token:
        return
    # the user's town comes along: every signed-in page shows its name, the API uses it
    row = db.session.scalar(db.select(UserSession).filter_by(token_hash=_digest(token))
                            .options(joinedload(UserSession.user)
                                     .joinedload(User.municipality)))
    if row is None or not row.user.active:
        session.clear()
        return
    now = _now()
    last = row.last_seen_at if row.last_seen_at.tzinfo else row.last_seen_at.replace(tzinfo=UTC)
    if now - last > current_app.config["SESSION_IDLE_TIMEOUT"]:
        db.session.delete(row)
        db.session.commit()
        session.clear()
        return
    if (now - last).total_seconds() > 300:  # don't write on every request
        row.last_seen_at = now
        db.session.commit()
    g.user = row.user


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return request.path.startswith("/api/") or (
        best == "application/json"
        and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"])


def login_required(view: Callable) -> Callable:
    """Refuse anonymous requests: a redirect to the login page, or 401 for JSON clients."""
    @wraps(view)
    def wrapped(*args, **kwargs):
        if g.get("user") is None:
            if _wants_json() or request.method not in ("GET", "HEAD"):
                abort(401)
            return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)
    wrapped.access = getattr(view, "access", "login")
    return wrapped


def roles_required(*roles: Role) -> Callable:
    """Allow only signed-in users holding one of these roles (403 otherwise)."""
    def decorator(view: Callable) -> Callable:
        @login_required
        @wraps(view)
        def wrapped(*args, **kwargs):
            if g.user.role not in roles:
                abort(403)
            return view(*args, **kwargs)
        wrapped.access = tuple(r.value for r in roles)
        return wrapped
    return decorator


def public(view: Callable) -> Callable:
    """Mark a view as open to anyone; the URL-map test checks every other one."""
    view.access = "public"
    return view


def no_store(response):
    """Mark a public answer as neither cached nor indexed (live status, personal data)."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Robots-Tag"] = "noindex"
    return response


def config_limit(key: str, default: str) -> Callable[[], str]:
    """A Flask-Limiter limit read from the config at request time (tests and benches tune it)."""
    return lambda: current_app.config.get(key, default)


def town_id() -> int:
    """The signed-in user's town: every query of town data filters by it."""
    return g.user.municipality_id


def get_in_town(model, ident: int):
    """A row of the user's own town, or 404 (never 403: don't confirm it exists)."""
    row = db.session.get(model, ident)
    if row is None or row.municipality_id != town_id():
        abort(404)
    return row


def init_app(app: Flask) -> None:
    """Load the user before each request; add security headers to every response."""
    app.before_request(load_user)

    @app.after_request
    def headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if request.is_secure:
            response.headers.setdefault("Strict-Transport-Security",
                                        "max-age=31536000; includeSubDomains")
        if g.get("user") is not None:
            response.headers.setdefault("Cache-Control", "private, no-store")
        return response
