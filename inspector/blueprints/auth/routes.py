"""Login, logout and password change."""
from __future__ import annotations

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for
from flask_limiter.util import get_remote_address

from inspector import audit, notifications
from inspector.accounts import password_problem
from inspector.extensions import db, limiter
from inspector.models import User
from inspector.passwords import dummy_hash
from inspector.security import (
    config_limit,
    end_session,
    hash_password,
    login_required,
    public,
    safe_redirect_target,
    start_session,
    verify_password,
)

bp = Blueprint("auth", __name__)

@bp.route("/entrar", methods=["GET", "POST"])
@public
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"])
def login():
    """Sign in with username and password."""
    error = None
    if request.method == "POST":
        username = request.form.get("username", "").strip().lower()
        password = request.form.get("password", "")
        user = db.session.scalar(db.select(User).filter_by(username=username))
        ok = verify_password(user.password_hash if user else dummy_hash(), password)
        if user and ok and user.active:
            start_session(user)
            current_app.logger.info("login", extra={"fields": {"user_id": user.id}})
            if user.must_change_password:   # a password someone else chose: theirs first
                return redirect(url_for("auth.change_password"))
            return redirect(safe_redirect_target(request.args.get("next"),
                                                 url_for("main.home")))
        error = ("Esta conta está desativada. Fale com o administrador."
                 if user and ok else "Usuário ou senha incorretos.")
        current_app.logger.info("login failed", extra={"fields": {"username": username[:80]}})
        return render_template("auth/login.html", error=error, username=username), 401
    if g.get("user") is not None:
        return redirect(url_for("main.home"))
    return render_template("auth/login.html", error=error, username="")


@bp.post("/sair")
@public
def logout():
    """Sign out (POST only, with the CSRF token: a link cannot sign anyone out). With
    `push_endpoint` (this browser's push subscription, sent by the field app and the site's
    Sair), the browser stops receiving the signed-out user's notifications."""
    endpoint = request.form.get("push_endpoint", "")
    if endpoint and notifications.release_on_sign_out(endpoint):
        db.session.commit()
    end_session()
    flash("Você saiu.", "info")
    return redirect(url_for("auth.login"))


def _own_account() -> str:
    """The password form is limited per account (a stolen session from many addresses counts
    once) and per address."""
    return f"user:{g.user.id}" if g.get("user") is not None else get_remote_address()


@bp.route("/senha", methods=["GET", "POST"])
@login_required
@limiter.limit(config_limit("PASSWORD_RATE_LIMIT", "10 per minute;50 per hour"),
               methods=["POST"], key_func=_own_account)
def change_password():
    """Change one's own password; other sessions of the account end."""
    errors: dict[str, str] = {}
    if request.method == "POST":
        current = request.form.get("current", "")
        new = request.form.get("new", "")
        confirm = request.form.get("confirm", "")
        if not verify_password(g.user.password_hash, current):
            errors["current"] = "Senha atual incorreta."
        if problem := password_problem(new, g.user.username):
            errors["new"] = problem[0].upper() + problem[1:] + "."
        elif new == current:
            errors["new"] = "A nova senha precisa ser diferente da atual."
        elif new != confirm:
            errors["confirm"] = "A confirmação não é igual à nova senha."
        if not errors:
            user = g.user
            user.password_hash = hash_password(new)
            user.must_change_password = False
            from inspector.models import UserSession
            UserSession.query.filter_by(user_id=user.id).delete()
            audit.record("password_changed", "user", user.id, actor=user,
                         municipality_id=user.municipality_id)
            db.session.commit()
            start_session(user)
            flash("Senha alterada.", "success")
            return redirect(url_for("main.home"))
    return render_template("auth/password.html", errors=errors,
                           forced=g.user.must_change_password), (422 if errors else 200)
