"""/municipio: the town's "Configuração do município" for its admin — what is still missing
before the agents can work, each with a link to where it is fixed — and the form for the
fiscal unit's value and the minimum wage and the one for the size of the field app's photos
(CSRF-checked, audited); /municipio/contas: the
town's accounts, created and deactivated by its admin (towns.accounts)."""
from __future__ import annotations

from flask import Blueprint, flash, g, make_response, redirect, render_template, request, url_for

from inspector import towns
from inspector.errors import on_refusal
from inspector.extensions import db
from inspector.models import Municipality, Role, User
from inspector.rules import brl
from inspector.security import get_in_town, roles_required, town_id

bp = Blueprint("towns", __name__)
ADMIN = roles_required(Role.ADMIN)


def _render(errors: dict | None = None, values=None, status: int = 200,
            photo_errors: dict | None = None, photo_values=None):
    town = db.session.get(Municipality, town_id())
    view = towns.setup_of(town)
    return make_response(render_template(
        "towns/setup.html", view=view, errors=errors or {}, values=dict(values or {}),
        kinds=towns.DATED_KINDS, brl=brl, photo_sides=towns.PHOTO_SIDES,
        photo_errors=photo_errors or {}, photo_values=dict(photo_values or {}),
        quality_bounds=(towns.PHOTO_QUALITY_MIN, towns.PHOTO_QUALITY_MAX),
        dated=sorted(town.dated_values, key=lambda v: (v.kind, v.valid_from))), status)


@bp.get("/municipio")
@ADMIN
def setup():
    """What the town still lacks before its agents can work, with where to fix each."""
    return _render()


@bp.post("/municipio/valores")
@ADMIN
@on_refusal(lambda e: _render(e.errors, request.form, 422))
def set_value():
    """Record the fiscal unit's value in reais or the minimum wage from a date, with its act."""
    town = db.session.get(Municipality, town_id())
    row = towns.set_dated_value(town, request.form, g.user)
    db.session.commit()
    flash(f"{towns.DATED_KINDS[row.kind].capitalize()}: {brl(row.value_brl)} a partir de "
          f"{row.valid_from:%d/%m/%Y} ({row.source}).", "success")
    return redirect(url_for("towns.setup", _anchor="valores"))


@bp.post("/municipio/fotos")
@ADMIN
@on_refusal(lambda e: _render(status=422, photo_errors=e.errors, photo_values=request.form))
def set_photo_size():
    """The size and JPEG quality the field app keeps photos at (sent to the phones in the
    snapshot)."""
    town = db.session.get(Municipality, town_id())
    towns.set_photo_size(town, request.form, g.user)
    db.session.commit()
    side = towns.PHOTO_SIDES[town.photo_max_side]
    flash(f"Tamanho das fotos: {side}, qualidade {town.photo_quality}. Os celulares recebem "
          "na próxima atualização dos dados.", "success")
    return redirect(url_for("towns.setup", _anchor="fotos"))


def _accounts(errors: dict | None = None, values=None, created: User | None = None,
              password: str | None = None, status: int = 200):
    town = db.session.get(Municipality, town_id())
    shown = {k: v for k, v in dict(values or {}).items()
             if k not in ("password", "password_confirm", "csrf_token")}  # never echoed
    response = make_response(render_template(
        "towns/accounts.html", town=town, users=towns.accounts_of(town),
        roles=list(Role), errors=errors or {}, values=shown, created=created,
        password=password, min_password=towns.MIN_PASSWORD, badge_reason=towns.badge_reason(town),
        max_password=towns.MAX_PASSWORD), status)
    # a page that may hold a one-time password is kept by no cache, nor the browser's
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/municipio/contas")
@ADMIN
def accounts():
    """The town's accounts (agents with their badge, supervisors, admins) and the form for a
    new one."""
    return _accounts()


@bp.post("/municipio/contas")
@ADMIN
@on_refusal(lambda e: _accounts(e.errors, request.form, status=422))
def create_account():
    """Create an account of the admin's own town; a generated password is shown once, here."""
    town = db.session.get(Municipality, town_id())
    user, generated = towns.create_account(town, request.form, g.user)
    db.session.commit()
    return _accounts(created=user, password=generated, status=201)


@bp.post("/municipio/contas/<int:ident>/desativar")
@ADMIN
@on_refusal(lambda e: _accounts({"user": e.errors["user"]}, status=e.status))  # 409: done first
def deactivate_account(ident: int):
    """Deactivate an account of the town: it cannot sign in, its sessions end at once."""
    town = db.session.get(Municipality, town_id())
    user = get_in_town(User, ident)
    towns.deactivate(town, user, g.user)
    db.session.commit()
    flash(f"Conta {user.username} ({user.name}) desativada: não entra mais, e as sessões "
          "abertas foram encerradas.", "success")
    return redirect(url_for("towns.accounts"))
