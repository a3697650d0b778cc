"""The town's vistorias for its staff: the list, one vistoria (result, what to fix, return
date, certificate), the certificate's PDF, and the town's return days (docs/vistoria.md)."""
from __future__ import annotations

from datetime import date

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError

from inspector import clock, laws, vistorias
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Role, Vistoria, VistoriaAppointment, VistoriaResult
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
    """The town's vistorias, newest first (an agent: their own); ?mes=AAAA-MM and
    ?resultado=approved|rejected narrow it (the dashboard's links)."""
    where = [Vistoria.municipality_id == town_id()]
    if g.user.role == Role.AGENT:
        where.append(Vistoria.agent_id == g.user.id)
    month, shown = _month_arg(), []
    if month is not None:
        first = month
        after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        where += [Vistoria.performed_on >= first, Vistoria.performed_on < after]
        shown.append(f"{first:%m/%Y}")
    result = request.args.get("resultado", "")
    if result in {r.value for r in VistoriaResult}:
        where.append(Vistoria.result == VistoriaResult(result))
        shown.append(VistoriaResult(result).label.lower() + "s")
    rows = db.session.scalars(
        db.select(Vistoria).where(*where)
        .order_by(Vistoria.performed_on.desc(), Vistoria.id.desc()).limit(200)).all()
    today = clock.today(g.user.municipality)
    return render_template("vistorias/index.html", rows=rows, today=today, filters=shown,
                           state=lambda v: vistorias.certificate_state(v, today)
                           if v.token else None, return_days=vistorias.return_days(town_id()),
                           max_days=vistorias.MAX_RETURN_DAYS)


def _month_arg() -> date | None:
    """?mes=AAAA-MM as its first day; None for none or a bad one."""
    raw = request.args.get("mes", "")
    try:
        first = date.fromisoformat(f"{raw}-01") if len(raw) == 7 else None
    except ValueError:
        return None
    return first if first is not None and laws.FIRST_YEAR <= first.year <= laws.LAST_YEAR else None


@bp.get("/<int:ident>")
@roles_required(*STAFF)
def detail(ident: int):
    """One vistoria: its result, what to fix with the articles, the return date, the
    certificate and its state today."""
    v = _mine(db.session.get(Vistoria, ident))
    today = clock.today(g.user.municipality)
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


def _day_arg() -> date:
    """The day asked for (?dia=AAAA-MM-DD), today for none, for a bad one or for a year the
    legal calendar does not cover."""
    raw = request.args.get("dia", "")
    try:
        day = date.fromisoformat(raw) if raw else None
    except ValueError:
        day = None
    if day is None or not laws.FIRST_YEAR <= day.year <= laws.LAST_YEAR:
        return clock.today(g.user.municipality)
    return day


def _agenda_page(errors: dict | None = None, values: dict | None = None, status: int = 200):
    day = _day_arg()
    places = vistorias.agenda_places(town_id())
    chosen = next((p for p in places if str(p.id) == request.args.get("local", "")),
                  places[0] if places else None)
    free = vistorias.free_slots(chosen, day) if chosen else None
    return render_template("vistorias/agenda.html", day=day, places=places, chosen=chosen,
                           free=free, appointments=vistorias.day_appointments(town_id(), day),
                           weekdays=vistorias.WEEKDAYS, errors=errors or {},
                           values=values or {}), status


@bp.get("/agenda")
@roles_required(Role.SUPERVISOR, Role.ADMIN)
def agenda():
    """The day's vistorias at the town's places, the free slots, the booking form."""
    return _agenda_page()


@bp.post("/agenda/locais")
@roles_required(Role.ADMIN)
def agenda_place():
    """Add a place where vistorias happen (weekdays, hours, slots an hour)."""
    data = {k: request.form.get(k, "") for k in ("name", "address", "start_hour", "end_hour",
                                                 "slots_per_hour")}
    data["weekdays"] = request.form.getlist("weekdays")
    try:
        vistorias.save_place(town_id(), data, g.user)
        db.session.commit()
    except ValidationFailed as e:
        db.session.rollback()
        return _agenda_page(e.errors, data, 422)
    flash("Local de vistoria salvo.", "success")
    return redirect(url_for("vistorias.agenda")), 303


@bp.post("/agenda/agendar")
@roles_required(Role.ADMIN)
def agenda_book():
    """Book a vehicle into a free slot."""
    values = {k: request.form.get(k, "") for k in ("plate", "place", "when", "kind")}
    place = values["place"]
    try:
        appt = vistorias.book_vistoria(town_id(), values["plate"],
                                       int(place) if place.isascii() and place.isdigit()
                                       and len(place) < 10 else None,
                                       values["when"], values["kind"], g.user)
        db.session.commit()
    except ValidationFailed as e:
        db.session.rollback()
        return _agenda_page(e.errors, values, 422)
    except IntegrityError:  # the slot was taken between the check and the write
        db.session.rollback()
        return _agenda_page({"when": "este horário acabou de ser reservado: escolha outro"},
                            values, 409)
    local = clock.town_moment(g.user.municipality, appt.starts_at)
    flash(f"Vistoria agendada: {appt.vehicle.plate} em {local:%d/%m/%Y %H:%M}.", "success")
    return redirect(url_for("vistorias.agenda", dia=local.date().isoformat())), 303


@bp.post("/agenda/<int:ident>/<any(no_show, cancelled):status>")
@roles_required(Role.SUPERVISOR, Role.ADMIN)
def agenda_mark(ident: int, status: str):
    """Record that a booked vehicle did not come, or cancel the booking."""
    appt = db.session.get(VistoriaAppointment, ident)
    if appt is None or appt.municipality_id != town_id():
        abort(404)
    day = clock.town_day(g.user.municipality, appt.starts_at)
    try:
        vistorias.mark_appointment(appt, status, g.user)
        db.session.commit()
    except ValidationFailed as e:
        db.session.rollback()
        flash(next(iter(e.errors.values())).capitalize() + ".", "error")
    return redirect(url_for("vistorias.agenda", dia=day.isoformat())), 303
