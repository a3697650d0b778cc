"""/conformidade: a town's registry against its laws, for its supervisors and admins;
admins also set the values the laws leave to a decree (CSRF-checked, audited)."""
from __future__ import annotations

from flask import abort, flash, g, make_response, redirect, render_template, request, url_for

from inspector import clock, laws, registry
from inspector.errors import ValidationFailed, on_refusal
from inspector.extensions import db
from inspector.laws import fmt_date
from inspector.models import Municipality, Role
from inspector.registry import parse_date
from inspector.rules import number_text
from inspector.security import roles_required, town_id

READ = roles_required(Role.SUPERVISOR, Role.ADMIN)
WRITE = roles_required(Role.ADMIN)


def _render(town: Municipality, on, errors: dict | None = None, values=None, status: int = 200):
    view = laws.build_compliance_page(town, on)
    choices = registry.key_choices(town)
    values = dict(values or {})
    if not values.get("unit") and choices:
        values["unit"] = choices[0].unit
    html = render_template("laws/compliance.html", view=view, choices=choices,
                           units=registry.UNIT_LABELS,
                           unit_choices=registry.accepted_units(town), errors=errors or {},
                           values=values, fmt_date=fmt_date, pct=laws.pct,
                           is_today=on == clock.today(town))
    return make_response(html, status)


@READ
def compliance():
    """Quotas, company shares, auxiliaries, vehicle ages and documents due, with citations."""
    town = db.session.get(Municipality, town_id())
    raw = request.args.get("on", "").strip()
    on = parse_date(raw) if raw else clock.today(town)
    if on is None:
        abort(400, f"Data inválida: {raw!r}. Use AAAA-MM-DD.")
    return _render(town, on)


def _refused(e: ValidationFailed):
    town = db.session.get(Municipality, town_id())
    return _render(town, clock.today(town), e.errors, request.form, 422)


@WRITE
@on_refusal(_refused)
def set_decree_value():
    """Record a value a law leaves to a decree (amount, unit, from when, which decree)."""
    town = db.session.get(Municipality, town_id())
    row = registry.set_value(town, request.form, g.user)
    db.session.commit()
    flash(f"Valor do decreto registrado: {number_text(row.amount)} {registry.UNIT_LABELS[row.unit]} a "
          f"partir de {fmt_date(row.valid_from)} ({row.source}).", "success")
    return redirect(url_for("laws.compliance", _anchor="decretos"))
