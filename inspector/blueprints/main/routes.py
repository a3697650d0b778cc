"""Home, health check, favicon."""
from __future__ import annotations

from flask import (
    Blueprint,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    send_from_directory,
    url_for,
)
from sqlalchemy import text

from inspector.extensions import db
from inspector.security import login_required, public

bp = Blueprint("main", __name__)


@bp.get("/")
@public
def index():
    """Send a signed-in user to their start page, anyone else to the login page."""
    if g.get("user") is None:
        return redirect(url_for("auth.login"))
    return redirect(url_for("main.home"))


@bp.get("/inicio")
@login_required
def home():
    """The signed-in user's start page: what their role can do in their town."""
    return render_template("main/home.html")


@bp.get("/healthz")
@public
def healthz():
    """200 once the database answers; the program's version (docs/releases.md)."""
    from inspector.config import version

    db.session.execute(text("SELECT 1"))
    return jsonify({"status": "ok", "database": db.engine.dialect.name, "version": version()})


@bp.get("/favicon.ico")
@public
def favicon():
    """The app's icon where browsers look for it by default (a PNG; cached for a day)."""
    return send_from_directory(current_app.static_folder, "icons/icon-192.png",
                               mimetype="image/png", max_age=86400)
