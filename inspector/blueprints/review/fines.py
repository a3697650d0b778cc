"""Fines on the review pages: recording a payment of an act's fine (the day, the amount in
BRL and the DAM or receipt number from the treasury) and the town's list of open fines
("Multas em aberto"). Supervisors and admins of the town."""
from __future__ import annotations

from flask import g, request

from ...models import Sanction
from ...security import get_in_town, roles_required, town_id
from ...services.enforcement import payments, suspensions
from ...services.errors import ValidationFailed
from .actions import _done, _form, _refused
from .blueprint import VIEWERS, bp, now, page_or_fragment


@bp.app_template_global("act_balance")
def act_balance(act: Sanction):
    """The fine's balance (due, paid, "quitada" / "paga parcialmente" / "em aberto"), or None."""
    return payments.balance_of(act)


@bp.app_template_global("suspension_bounds")
def suspension_bounds(act: Sanction):
    """The pack's bounds for a suspension's length in days (None: the pack has none)."""
    return suspensions.bounds(act)


@bp.post("/atos/<int:ident>/pagamento")
@roles_required(*VIEWERS)
def payment(ident: int):
    """Record a payment of the act's fine, as the treasury's DAM or receipt shows it."""
    a = get_in_town(Sanction, ident)
    try:
        payments.record_payment(a, g.user, now(), paid_on=_form("paid_on"),
                                amount=_form("amount_paid"), receipt=_form("receipt"))
    except ValidationFailed as e:
        return _refused(a, ValidationFailed({("amount_paid" if k == "amount" else k): v
                                             for k, v in e.errors.items()}))
    balance = payments.balance_of(a)
    return _done(a, f"Pagamento registrado. Multa {balance.text}.")


@bp.get("/multas")
@roles_required(*VIEWERS)
def open_fines():
    """The town's fines not paid in full, oldest first."""
    value = request.args.get("pagina", "")
    page = int(value) if value.isdigit() and len(value) < 6 else 1
    rows, has_next = payments.open_fines(town_id(), page=max(page, 1))
    return page_or_fragment("review/fines.html", "review/_fines_rows.html", rows=rows,
                            page=max(page, 1), has_next=has_next,
                            running_note=payments.RUNNING_NOTE)
