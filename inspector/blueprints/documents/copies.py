"""The company's copy of a rider's notice (Tapurah Lei 406/2001 Art. 27 I): its PDF, the
act page's "Cópia à empresa" line, the form where a supervisor records the remittance, and
the pending copies on the deadlines page. Supervisors and admins of the town.
See documents/copies.py and docs/documents.md."""
from __future__ import annotations

from flask import Response, abort, flash, g, redirect, render_template, request, url_for

from inspector import clock, documents
from inspector.errors import ValidationFailed, error_body, wants_json
from inspector.extensions import db
from inspector.models import Role, Sanction
from inspector.security import get_in_town, roles_required

VIEWERS = (Role.SUPERVISOR, Role.ADMIN)


def _copy(ident: int):
    act = get_in_town(Sanction, ident)
    row = documents.copy_of(act.notice) if act.notice is not None else None
    if row is None:
        abort(404)
    return act, row


@roles_required(*VIEWERS)
def copy_pdf(ident: int):
    """The company's copy as made at issuance ("CÓPIA — remetida à empresa ...")."""
    act, row = _copy(ident)
    resp = Response(row.pdf, mimetype="application/pdf")
    name = act.notice.number.replace("/", "-")
    resp.headers["Content-Disposition"] = f'inline; filename="{name}-copia-empresa.pdf"'
    resp.headers["Cache-Control"] = "private, no-store"
    resp.headers["X-Content-SHA256"] = row.sha256
    return resp


def _refused(act: Sanction, errors: dict, status: int):
    db.session.rollback()
    message = " ".join(errors.values())
    if wants_json():
        return error_body(status, message, fields=errors), status
    from inspector.blueprints.review.actions import act_context
    act = db.session.get(Sanction, act.id)
    return render_template("review/act.html", **act_context(act), copy_errors=errors), status


@roles_required(*VIEWERS)
def record_copy(ident: int):
    """Record how and when the copy of the notice went to the company (once)."""
    act, row = _copy(ident)
    form = request.form
    try:
        documents.record_remittance(row, g.user, clock.now(), day=form.get("data"),
                                        via=form.get("meio"), ref=form.get("referencia"))
    except documents.CopyNotAllowed:  # each refusal has its own status and page here
        db.session.rollback()
        abort(403)
    except documents.AlreadyRemitted as e:
        return _refused(act, e.errors, 409)
    except ValidationFailed as e:
        return _refused(act, e.errors, 422)
    db.session.commit()
    text = documents.remittance_text(row)
    if wants_json():
        return {"status": "remitted", "text": text}
    flash(f"Cópia à empresa {row.company_name}: {text}.", "info")
    return redirect(url_for("review.act", ident=act.id, _anchor="copia-empresa"), 303)
