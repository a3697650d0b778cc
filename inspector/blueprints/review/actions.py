"""Review decisions (POST): confirm, amend, reject an act; the mayor's decision (admin);
the delivery of a decided act; appeals filed and decided; comments and "reviewed" on an inspection.

With htmx the act's card is answered (swapped in place, 422 with the reasons inline);
without it, a 303 back to the page. Every decision is the service's: it checks roles,
bounds and windows, and writes the audit log. A refusal is answered by the app's one
handler (inspector/errors.py) with the page each view declares (`on_refusal`): the act's
card or page, or the inspection's page, with the reasons beside the fields.
"""
from __future__ import annotations

from datetime import date

from flask import flash, g, make_response, render_template, request, url_for

from inspector import clock, enforcement
from inspector.blueprints.fragments import wants_fragment
from inspector.blueprints.review.common import VIEWERS, go
from inspector.blueprints.review.routes import FILER_LABELS, SUSPENSIVE, inspection_context
from inspector.clock import now
from inspector.errors import ValidationFailed, on_refusal
from inspector.extensions import db
from inspector.models import Appeal, Inspection, Role, Sanction, SanctionStatus
from inspector.security import get_in_town, roles_required


def act_context(act: Sanction, errors: dict | None = None, code: str | None = None,
                message: str | None = None) -> dict:
    """What `review/_act.html` needs for one act."""
    from inspector.models import AppealStatus

    return {"act": act, "act_errors": errors or {}, "access_code": code, "message": message,
            "act_options": enforcement.amend_options(act)
            if act.status == SanctionStatus.PROPOSED else [],
            "filers": FILER_LABELS, "delivery_means": enforcement.OFFICE_MEANS,
            "suspensive": SUSPENSIVE,
            # the delivery's date picker offers the days the service accepts (decision..today)
            "today": clock.town_day(g.user.municipality, now()),
            "AppealStatus": AppealStatus, "SanctionStatus": SanctionStatus}


def _back(act: Sanction) -> str:
    if act.inspection_id:
        return url_for("review.inspection", ident=act.inspection_id, _anchor=f"ato-{act.id}")
    return url_for("review.act", ident=act.id)


def _done(act: Sanction, message: str, code: str | None = None):
    db.session.commit()
    if wants_fragment():
        html = render_template("review/_act.html", **act_context(act, code=code, message=message))
        # on the inspection's page its state badge follows (htmx out-of-band); the act's own
        # page has none, and htmx reports an out-of-band element without a target as an error
        if act.inspection is not None and "/vistorias/" in request.headers.get("HX-Current-URL", ""):
            html += render_template("review/_review_state.html", oob=True,
                                    state=enforcement.inspection_review_state(
                                        act.inspection, enforcement.acts_of(act.inspection)))
        response = make_response(html)
        response.vary.add("HX-Request")
        return response
    flash(message + (f" Código de acesso do titular: {code}." if code else ""), "info")
    return go(_back(act))


def _refused(act: Sanction, e: ValidationFailed):
    """The act's card (htmx) or the page it is on, again, with the reasons."""
    status = 403 if isinstance(e, enforcement.NotAllowed) else e.status   # 409: decided first
    if wants_fragment():
        return make_response(render_template("review/_act.html",
                                             **act_context(act, errors=e.errors)), status)
    if act.inspection_id:
        return make_response(render_template(
            "review/inspection.html", **inspection_context(act.inspection, e.errors, act.id)),
            status)
    return make_response(render_template("review/act.html", **act_context(act, e.errors)),
                         status)


def _form(name: str) -> str:
    return (request.form.get(name) or "").strip()


def act_refused(e: ValidationFailed):
    """`on_refusal` of a decision on the act `ident`."""
    return _refused(get_in_town(Sanction, request.view_args["ident"]), e)


def _appeal_refused(e: ValidationFailed):
    return _refused(get_in_town(Appeal, request.view_args["ident"]).sanction, e)


def _inspection_refused(status: int | None = None):
    """`on_refusal` of a POST on the inspection `ident`: its page with the reasons; `status`:
    always that one (else the error's, 403 for a role the law does not name)."""
    def render(e: ValidationFailed):
        insp = get_in_town(Inspection, request.view_args["ident"])
        code = status or (403 if isinstance(e, enforcement.NotAllowed) else e.status)
        return make_response(render_template("review/inspection.html",
                                             **inspection_context(insp, e.errors)), code)
    return render


@roles_required(*VIEWERS)
def act(ident: int):
    """One act on its own page (acts the law applied by itself have no inspection)."""
    return render_template("review/act.html", **act_context(get_in_town(Sanction, ident)))


@roles_required(*VIEWERS)
@on_refusal(act_refused)
def confirm(ident: int):
    """Confirm a proposed act (a mayor's act is forwarded to the mayor)."""
    a = get_in_town(Sanction, ident)
    d = enforcement.confirm(a, g.user, now(), amount=_form("amount") or None,
                            comment=_form("comment"), days=_form("days") or None)
    msg = "Encaminhado ao prefeito." if a.awaiting_mayor else "Ato confirmado."
    return _done(a, msg, d.access_code)


@roles_required(*VIEWERS)
@on_refusal(act_refused)
def amend(ident: int):
    """Decide with another measure or amount within the law's bounds, with a reason."""
    a = get_in_town(Sanction, ident)
    d = enforcement.amend(a, g.user, now(), option=_form("option") or None,
                          amount=_form("amount") or None, reason=_form("reason"),
                          comment=_form("comment"), days=_form("days") or None)
    msg = "Alterado e encaminhado ao prefeito." if a.awaiting_mayor else "Ato alterado."
    return _done(a, msg, d.access_code)


@roles_required(*VIEWERS)
@on_refusal(act_refused)
def reject(ident: int):
    """Reject a proposed act; the reason goes back to the agent's app."""
    a = get_in_town(Sanction, ident)
    enforcement.reject(a, g.user, now(), reason=_form("reason"))
    return _done(a, "Ato rejeitado.")


@roles_required(Role.ADMIN)
@on_refusal(act_refused)
def mayor(ident: int):
    """Record the mayor's decision (confirm, amend or reject) with the mayor's act number."""
    a = get_in_town(Sanction, ident)
    d = enforcement.record_mayor_decision(
        a, g.user, now(), decision=_form("decision"), ref=_form("ref"),
        reason=_form("reason"), option=_form("option") or None,
        amount=_form("amount") or None, comment=_form("comment"),
        days=_form("days") or None)
    return _done(a, "Decisão do prefeito registrada.", d.access_code)


@roles_required(*VIEWERS)
@on_refusal(act_refused)
def appeal(ident: int):
    """Record an appeal with the day it was filed (protocol)."""
    a = get_in_town(Sanction, ident)
    try:
        filed_on = date.fromisoformat(_form("filed_on"))
    except ValueError:
        raise ValidationFailed({"filed_on": "Informe a data do protocolo."}) from None
    ap = enforcement.file_appeal(a, filed_on=filed_on, filed_by=_form("filed_by"),
                                 filed_by_role=_form("filed_by_role"),
                                 text_=_form("text"), user=g.user, now=now())
    return _done(a, "Recurso registrado." if ap.admitted
                 else f"Recurso não admitido: {ap.decision_text}")


@roles_required(*VIEWERS)
@on_refusal(act_refused)
def deliver(ident: int):
    """Record the delivery of a decided act (day, means, reference): its deadline, appeal
    window and suspension run from there (enforcement/delivery.py)."""
    a = get_in_town(Sanction, ident)
    enforcement.record_delivery(a, g.user, now(), day=_form("delivered_on"),
                                at=_form("delivered_time"), via=_form("delivered_via"),
                                ref=_form("delivery_ref"))
    return _done(a, "Entrega registrada: os prazos contam a partir dela.")


@roles_required(*VIEWERS)
@on_refusal(_appeal_refused)
def decide_appeal(ident: int):
    """Uphold or dismiss an appeal (the mayor's: recorded by an admin with the act number)."""
    ap = get_in_town(Appeal, ident)
    a = ap.sanction
    enforcement.decide_appeal(ap, g.user, now(), accepted=_form("accepted") == "1",
                              text_=_form("decision_text"), ref=_form("ref"))
    return _done(a, "Recurso decidido.")


@roles_required(*VIEWERS)
@on_refusal(_inspection_refused(422))
def comment(ident: int):
    """A comment on the inspection for the agent (shown in the field app after a sync)."""
    insp = get_in_town(Inspection, ident)
    enforcement.comment_inspection(insp, g.user, now(), _form("comment"))
    db.session.commit()
    flash("Comentário enviado ao agente.", "info")
    return go(url_for("review.inspection", ident=insp.id, _anchor="historico"))


@roles_required(*VIEWERS)
@on_refusal(_inspection_refused(422))
def reviewed(ident: int):
    """Mark an inspection reviewed (when no act waits for a decision)."""
    insp = get_in_town(Inspection, ident)
    enforcement.mark_reviewed(insp, g.user, now())
    db.session.commit()
    flash("Vistoria marcada como revisada.", "info")
    return go(url_for("review.inspection", ident=insp.id))


@roles_required(*VIEWERS)
def propose(ident: int):
    """Propose the acts of failed items that have none yet (idempotent)."""
    insp = get_in_town(Inspection, ident)
    if insp.status.value == "incomplete":
        flash("A vistoria ainda espera fotos do celular do agente.", "error")
        return go(url_for("review.inspection", ident=insp.id))
    made = enforcement.propose_for_inspection(insp, now())
    db.session.commit()
    flash(f"{len(made)} ato(s) proposto(s).", "info")
    return go(url_for("review.inspection", ident=insp.id))


@roles_required(*VIEWERS)
@on_refusal(_inspection_refused())
def choose(ident: int):
    """Propose a sanction the law allows here that no checklist item proposes (seizure
    request, employer's revocation, permit, ban...), with the reason; decided like any act."""
    insp = get_in_town(Inspection, ident)
    made = enforcement.choose(insp, g.user, now(), key=_form("choice"),
                              reason=_form("reason"))
    db.session.commit()
    flash(f"{len(made)} ato(s) proposto(s): confirme-o(s) abaixo.", "info")
    return go(url_for("review.inspection", ident=insp.id, _anchor="outras-sancoes"))
