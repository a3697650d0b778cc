"""/conformidade/calendario: a town's own days without office (holidays and closures set by
its law or decree) and the years it has entered; supervisors and admins read, admins change.

Each change is audited (laws.town_calendar). A closure entered before a deadline falls due
moves the deadlines it reaches that are not yet past (enforcement.move_for_closure, audited
per act); a removed closure moves nothing back (a deadline keeps the date it was issued with).
"""
from __future__ import annotations

from flask import abort, flash, g, make_response, redirect, render_template, request, url_for

from inspector import enforcement, laws
from inspector.clock import now, town_day
from inspector.errors import ValidationFailed, on_refusal
from inspector.extensions import db
from inspector.laws import fmt_date
from inspector.models import CLOSURE_KINDS, Municipality, Role, TownClosure
from inspector.security import get_in_town, roles_required, town_id

READ = roles_required(Role.SUPERVISOR, Role.ADMIN)
WRITE = roles_required(Role.ADMIN)


def today():
    """Today on the town's own clock (municipalities.timezone): the calendar is the town's."""
    return town_day(db.session.get(Municipality, town_id()))


def _year_arg() -> int:
    raw = (request.values.get("ano") or "").strip()
    if not raw:
        return today().year
    if not (raw.isascii() and raw.isdigit()) \
            or not laws.FIRST_YEAR <= int(raw) <= laws.LAST_YEAR:
        abort(400, f"Ano inválido: {raw!r}.")
    return int(raw)


def _render(town: Municipality, year: int, errors: dict | None = None, values=None,
            status: int = 200):
    html = render_template("laws/calendar.html", town=town, view=laws.year_view(
        town.id, year), entered=laws.entered_years(town.id), kinds=CLOSURE_KINDS,
        errors=errors or {}, values=values or {}, fmt_date=fmt_date, act_text=laws.act_text,
        weekday=_weekday)
    return make_response(html, status)


def _weekday(day) -> str:
    return ("segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo")[day.weekday()]


def _refused(e: ValidationFailed):
    """The calendar again with the reasons: the year of the day typed when it is one."""
    day = (request.form.get("day") or "")[:4]
    year = int(day) if day.isascii() and day.isdigit() else 0
    if not laws.FIRST_YEAR <= year <= laws.LAST_YEAR:  # "0000-00-00": show this year
        year = today().year
    return _render(db.session.get(Municipality, town_id()), year, e.errors, request.form, 422)


@READ
def calendar():
    """The town's own closures of a year, the official holidays, and whether the year is entered."""
    town = db.session.get(Municipality, town_id())
    return _render(town, _year_arg())


@WRITE
@on_refusal(_refused)
def add_closure():
    """Record a day without office with its act; deadlines not yet past that it reaches move."""
    town = db.session.get(Municipality, town_id())
    row = laws.add_closure(town, request.form, g.user)
    moved = enforcement.move_for_closure(town.id, row.day, now(), actor=g.user)
    db.session.commit()
    flash(f"Dia sem expediente registrado: {fmt_date(row.day)} — {row.reason} "
          f"({laws.act_text(row)})."
          + (f" {len(moved)} prazo(s) ainda em curso foram prorrogados." if moved else ""),
          "success")
    return redirect(url_for("laws.calendar", ano=row.day.year))


@WRITE
def remove_closure(ident: int):
    """Remove a closure entered by mistake (deadlines already issued keep their dates)."""
    row = get_in_town(TownClosure, ident)
    year, text = row.day.year, f"{fmt_date(row.day)} — {row.reason}"
    laws.remove_closure(row, g.user)
    db.session.commit()
    flash(f"Dia removido do calendário: {text}. Prazos já emitidos mantêm suas datas.", "success")
    return redirect(url_for("laws.calendar", ano=year))


@WRITE
@on_refusal(lambda e: _render(db.session.get(Municipality, town_id()), today().year, e.errors,
                              request.form, 422))
def set_year():
    """Say the year's own closures are all entered (or reopen it)."""
    town = db.session.get(Municipality, town_id())
    entered = request.form.get("entered") == "1"
    year = laws.set_year_entered(town, request.form.get("year"), entered, g.user)
    db.session.commit()
    flash(f"Calendário municipal de {year} marcado como completo." if entered else
          f"Calendário municipal de {year} reaberto: os prazos dirão que ele não foi informado.",
          "success")
    return redirect(url_for("laws.calendar", ano=year))
