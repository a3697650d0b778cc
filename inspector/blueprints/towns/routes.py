"""/municipio: the town's "Configuração do município" for its admin — what is still missing
before the agents can work, each with a link to where it is fixed — and the form for the
fiscal unit's value and the minimum wage (CSRF-checked, audited)."""
from __future__ import annotations

from flask import Blueprint, flash, g, make_response, redirect, render_template, request, url_for

from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality, Role
from inspector.security import roles_required, town_id
from inspector.towns import setup as town_setup

bp = Blueprint("towns", __name__)
ADMIN = roles_required(Role.ADMIN)


def _render(errors: dict | None = None, values=None, status: int = 200):
    town = db.session.get(Municipality, town_id())
    view = town_setup.setup_of(town)
    return make_response(render_template(
        "towns/setup.html", view=view, errors=errors or {}, values=dict(values or {}),
        kinds=town_setup.DATED_KINDS,
        dated=sorted(town.dated_values, key=lambda v: (v.kind, v.valid_from))), status)


@bp.get("/municipio")
@ADMIN
def setup():
    """What the town still lacks before its agents can work, with where to fix each."""
    return _render()


@bp.post("/municipio/valores")
@ADMIN
def set_value():
    """Record the fiscal unit's value in reais or the minimum wage from a date, with its act."""
    town = db.session.get(Municipality, town_id())
    try:
        row = town_setup.set_dated_value(town, request.form, g.user)
    except ValidationFailed as e:
        db.session.rollback()
        return _render(e.errors, request.form, 422)
    db.session.commit()
    flash(f"{town_setup.DATED_KINDS[row.kind].capitalize()}: R$ {row.value_brl} a partir de "
          f"{row.valid_from:%d/%m/%Y} ({row.source}).", "success")
    return redirect(url_for("towns.setup", _anchor="valores"))
