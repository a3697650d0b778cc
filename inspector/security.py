"""Sign-in state, role checks and the headers every response carries."""
from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import partial, wraps
from urllib.parse import unquote, urlsplit

from argon2.exceptions import InvalidHashError, VerificationError
from flask import Flask, abort, current_app, g, has_request_context, redirect, request, session, url_for
from sqlalchemy import bindparam
from sqlalchemy.orm import joinedload
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter
from werkzeug.urls import iri_to_uri

from inspector import clock
from inspector.config import DEFAULT_PUBLIC_BASE_URL
from inspector.errors import error_response
from inspector.extensions import db
from inspector.models import Role, User, UserSession
from inspector.passwords import password_hasher

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


# Ids in URLs: the id columns are PostgreSQL `integer` (SQLite holds the same values); a
# larger or smaller number names no row and answers 404 before any query is made.
ID_MAX = 2**31 - 1
MAX_REDIRECT = 2048
# Control characters (a browser drops tabs and newlines: "/\t/evil" is "//evil" to it) and
# the backslash (read as "/" by browsers: "/\evil" is "//evil"); raw spaces too.
_NOT_IN_TARGET = re.compile(r"[\x00-\x1f\x7f\\]")
_NOT_RAW = re.compile(r"[\x00-\x20\x7f\\]")


def whole_number(raw: object, default: int | None = None, *, lo: int = 1,
                 hi: int = ID_MAX) -> int | None:
    """A whole number typed in a query or a form (a page, an id): ASCII digits only (int()
    also reads "١٢" and str.isdigit() passes "²"), between `lo` and `hi`; else `default`."""
    text = raw.strip() if isinstance(raw, str) else ""
    if not text or not text.isascii() or not text.isdigit() or len(text) > len(str(hi)):
        return default
    number = int(text)
    return number if lo <= number <= hi else default


# A day typed in a filter: a year no register holds is refused before any arithmetic on it
# (9999-12-31 plus one day does not exist).
FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(2999, 12, 31)


def day_in_range(raw: object) -> date | None:
    """A day written AAAA-MM-DD between FIRST_DAY and LAST_DAY, or None."""
    text = raw.strip() if isinstance(raw, str) else ""
    if len(text) != 10 or not text.isascii():
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return None
    return day if FIRST_DAY <= day <= LAST_DAY else None


def safe_redirect_target(value: object, default: str) -> str:
    """Where to send the browser after a form when the place comes from input (a `next`
    argument, a stored link): a path of this site, or `default`. Refused: anything that is not
    a path starting with one "/" (schemes such as https:, javascript:, data:; another host
    after "//" or a slash and a backslash; userinfo), control characters, backslashes,
    whatever percent-decoding turns into one of those (/%2F/evil, /%09/evil), values over
    2 KB, text that cannot be a URL (lone surrogates). The result is what the Location
    header carries (non-ASCII letters percent-encoded, so a lookalike of "/" is only a path)."""
    if not isinstance(value, str) or not value or len(value) > MAX_REDIRECT:
        return default
    if _NOT_RAW.search(value):
        return default
    decoded = unquote(value)
    if not decoded.startswith("/") or decoded.startswith("//") or _NOT_IN_TARGET.search(decoded):
        return default
    try:
        target = iri_to_uri(value)
    except (UnicodeError, ValueError):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.isascii() or not target.isprintable() \
            or _NOT_RAW.search(target) or not target.startswith("/") or target.startswith("//"):
        return default
    return target


def hash_password(password: str) -> str:
    """An Argon2id hash of a password."""
    return password_hasher().hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether a password matches its stored Argon2 hash."""
    try:
        return password_hasher().verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def _now() -> datetime:
    return clock.now()


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


# The user's town comes along: every signed-in page shows its name, the API uses it. Built
# once: every request runs it, and building it (its eager loads' cache key) cost more than
# the look-up.
_SESSION_OF = (db.select(UserSession).where(UserSession.token_hash == bindparam("token_hash"))
               .options(joinedload(UserSession.user).joinedload(User.municipality)))


def load_user() -> None:
    """Find the signed-in user for this request, if the session is still valid."""
    g.user = None
    # a static file is the same for everyone: no look-up (a phone installing the field app
    # fetches some forty of them) and no sign of activity for the idle timeout
    token = session.get("sid") if request.endpoint != "static" else None
    if not token:
        return
    row = db.session.scalar(_SESSION_OF, {"token_hash": _digest(token)})
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


# What an account that must choose its own password may still open: the password page,
# signing out, and what is open to anyone anyway (the passenger's page, the law, static files).
OWN_PASSWORD_PAGES = frozenset({"auth.change_password", "auth.logout", "static"})


def require_own_password():
    """An account made with a password someone else chose (an admin's form, `users create`)
    is served nothing but the password page until its holder chose their own: a page asks
    are sent there, the API gets 403."""
    user = g.get("user")
    if user is None or not user.must_change_password or request.endpoint in OWN_PASSWORD_PAGES:
        return None
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, "access", None) == "public":
        return None
    if _wants_json() or request.method not in ("GET", "HEAD"):
        abort(403, description="troque a senha antes de continuar: /senha")
    return redirect(url_for("auth.change_password"))


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


def viewer_town():
    """The signed-in user's town (its clock is the one every staff page shows times on), or
    None outside a request or with no one signed in."""
    user = g.get("user") if has_request_context() else None
    return getattr(user, "municipality", None)


def get_in_town(model, ident: int):
    """A row of the user's own town, or 404 (never 403: don't confirm it exists; an id no
    column can hold names no row)."""
    if not isinstance(ident, int) or not 1 <= ident <= ID_MAX:
        abort(404)
    row = db.session.get(model, ident)
    if row is None or row.municipality_id != town_id():
        abort(404)
    return row


def refuse_nul() -> None:
    """A NUL character in the path, the query or a form field is refused (400) before any
    view: no person types one, and PostgreSQL cannot store or compare it in text (it raised
    DataError, a 500, on a rejection reason or a document number holding one)."""
    values = [request.path, *request.args.values()]
    if request.method in ("POST", "PUT", "PATCH", "DELETE") and request.mimetype in (
            "application/x-www-form-urlencoded", "multipart/form-data"):
        values += request.form.values()
    if any("\x00" in value for value in values):
        return error_response(400, "O pedido contém um caractere inválido (NUL). "
                                   "Apague-o e tente de novo.")
    return None


def trust_proxies(app: Flask) -> None:
    """Behind `TRUSTED_PROXIES` reverse proxies (config or environment, default 0), take the
    client's address from the X-Forwarded-For entry each of them added (werkzeug's ProxyFix),
    so rate limits count clients, not the proxy. With 0 the header is never read: anyone can
    send it, and a limit keyed on it would be dodged by changing it."""
    count = int(app.config.get("TRUSTED_PROXIES") or 0)
    if count < 0:
        raise SystemExit(f"erro: TRUSTED_PROXIES={count} não é válido: use 0 ou mais")
    if count:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=count, x_proto=count, x_host=0)


def public_url(endpoint: str, **values) -> str:
    """An absolute link to a route, for pages, files and feeds: PUBLIC_BASE_URL and the route's
    path, never the request's Host header (anyone can write it, and a cached answer would keep
    it for everyone)."""
    base = (current_app.config.get("PUBLIC_BASE_URL") or DEFAULT_PUBLIC_BASE_URL).rstrip("/")
    return base + current_app.url_map.bind("localhost").build(endpoint, values)


def init_app(app: Flask) -> None:
    """Load the user before each request; add security headers to every response; bound
    every `<int:...>` in a URL to the id columns' range (1..ID_MAX; outside it: 404)."""
    app.url_map.converters["int"] = partial(IntegerConverter, min=1, max=ID_MAX)
    trust_proxies(app)
    app.before_request(load_user)
    app.before_request(require_own_password)
    app.before_request(refuse_nul)

    @app.after_request
    def headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        # No Strict-Transport-Security here: the TLS proxy sends it (deploy/nginx.conf), so
        # every answer carries exactly one.
        if g.get("user") is not None:
            response.headers.setdefault("Cache-Control", "private, no-store")
        return response
