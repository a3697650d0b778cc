"""The town's vistorias for its staff: the list, one vistoria (result, what to fix, return
date, certificate), the certificate's PDF, and the town's return days (docs/vistoria.md)."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for

from inspector import vistorias
from inspector.clock import local_day
from inspector.extensions import db
from inspector.models import Role, Vistoria
from inspector.security import roles_required, town_id

bp = Blueprint("vistorias", __name__, url_prefix="/vistorias")

STAFF = (Role.SUPERVISOR, Role.ADMIN, Role.AGENT)


def _mine(v: Vistoria | None) -> Vistoria:
    """A vistoria of the user's town (an agent: their own), else 404."""
    if v is None or v.municipality_id != town_id():
        abort(404)
    if g.user.role == Role.AGENT and v.agent_id != g.user.id:
        abort(404)
    return v


@bp.get("")
@roles_required(*STAFF)
def index():
    """The town's vistorias, newest first (an agent: their own)."""
    rows = db.session.scalars(
        db.select(Vistoria).where(Vistoria.municipality_id == town_id(),
                                  *([Vistoria.agent_id == g.user.id]
                                    if g.user.role == Role.AGENT else []))
        .order_by(Vistoria.performed_on.desc(), Vistoria.id.desc()).limit(200)).all()
    today = local_day()
    return render_template("vistorias/index.html", rows=rows, today=today,
                           state=lambda v: vistorias.certificate_state(v, today)
                           if v.token else None, return_days=vistorias.return_days(town_id()),
                           max_days=vistorias.MAX_RETURN_DAYS)


@bp.get("/<int:ident>")
@roles_required(*STAFF)
def detail(ident: int):
    """One vistoria: its result, what to fix with the articles, the return date, the
    certificate and its state today."""
    v = _mine(db.session.get(Vistoria, ident))
    today = local_day()
    return render_template("vistorias/detail.html", v=v, to_fix=vistorias.to_fix(v),
                           state=vistorias.certificate_state(v, today) if v.token else None)


@bp.get("/<int:ident>/certificado.pdf")
@roles_required(*STAFF)
def certificate_pdf(ident: int):
    """The certificate's PDF as issued (its SHA-256 in a header)."""
    v = _mine(db.session.get(Vistoria, ident))
    if v.pdf is None:
        abort(404)
    resp = Response(v.pdf, mimetype="application/pdf")
    name = (v.certificate_number or "certificado").replace("/", "-")
    resp.headers["Content-Disposition"] = f'inline; filename="{name}.pdf"'
    resp.headers["Cache-Control"] = "private, no-store"
    resp.headers["X-Content-SHA256"] = v.pdf_sha256
    return resp


@bp.post("/configuracao")
@roles_required(Role.ADMIN)
def settings():
    """The town's days for a rejected vehicle to come back (1 to MAX_RETURN_DAYS)."""
    raw = request.form.get("return_days", "").strip()
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= vistorias.MAX_RETURN_DAYS:
        flash(f"Prazo de retorno: um número inteiro de dias, de 1 a "
              f"{vistorias.MAX_RETURN_DAYS}.", "error")
        return redirect(url_for("vistorias.index")), 303
    vistorias.set_return_days(town_id(), int(raw), g.user)
    db.session.commit()
    flash(f"Prazo de retorno após vistoria reprovada: {int(raw)} dias.", "success")
    return redirect(url_for("vistorias.index")), 303
