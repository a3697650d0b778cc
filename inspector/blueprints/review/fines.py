"""Fines on the review pages: recording a payment of an act's fine (the day, the amount in
BRL and the DAM or receipt number from the treasury), reversing one recorded by mistake
(estorno, with a reason) and the town's list of open fines ("Multas em aberto").
Supervisors and admins of the town."""
from __future__ import annotations

from flask import abort, g, request

from inspector import enforcement
from inspector.blueprints.fragments import page_or_fragment
from inspector.blueprints.review.actions import _done, _form, _refused, act_refused
from inspector.blueprints.review.common import VIEWERS
from inspector.clock import now
from inspector.errors import ValidationFailed, on_refusal
from inspector.extensions import db
from inspector.models import FinePayment, Sanction
from inspector.security import get_in_town, roles_required, town_id, whole_number


def _payment_refused(e: ValidationFailed):
    """The act's card, the amount's reason beside the form's field (amount_paid)."""
    return act_refused(type(e)({("amount_paid" if k == "amount" else k): v
                                for k, v in e.errors.items()}))


def _reversal_refused(e: ValidationFailed):
    """The act's card, the reason beside the reversal's own field (one per payment)."""
    p = db.session.get(FinePayment, request.view_args["ident"])
    ident = request.view_args["ident"]
    response = _refused(p.fine.sanction, type(e)({(f"reversal-{ident}" if k == "reason" else k): v
                                                  for k, v in e.errors.items()}))
    if isinstance(e, enforcement.AlreadyReversed):
        response.status_code = 409
    return response


@roles_required(*VIEWERS)
@on_refusal(_payment_refused)
def payment(ident: int):
    """Record a payment of the act's fine, as the treasury's DAM or receipt shows it."""
    a = get_in_town(Sanction, ident)
    enforcement.record_payment(a, g.user, now(), paid_on=_form("paid_on"),
                               amount=_form("amount_paid"), receipt=_form("receipt"))
    balance = enforcement.balance_of(a)
    return _done(a, f"Pagamento registrado. Multa {balance.text}.")


@roles_required(*VIEWERS)
@on_refusal(_reversal_refused)
def reverse_payment(ident: int):
    """Reverse (estornar) a payment recorded by mistake, with a reason; it stays in the
    fine's history, struck through, and no longer counts."""
    p = db.session.get(FinePayment, ident)
    if p is None or p.municipality_id != town_id():   # never confirm another town's rows
        abort(404, "Pagamento não encontrado.")
    a = p.fine.sanction
    enforcement.reverse_payment(p, g.user, now(), reason=_form("reason"))
    balance = enforcement.balance_of(a)
    return _done(a, f"Pagamento estornado. Multa {balance.text}.")


@roles_required(*VIEWERS)
def open_fines():
    """The town's fines not paid in full, oldest first."""
    page = whole_number(request.args.get("pagina"), 1, hi=99_999)
    rows, has_next = enforcement.open_fines(town_id(), page=max(page, 1))
    return page_or_fragment("review/fines.html", "review/_fines_rows.html", rows=rows,
                            page=max(page, 1), has_next=has_next,
                            running_note=enforcement.RUNNING_NOTE)
