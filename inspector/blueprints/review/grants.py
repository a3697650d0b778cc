"""The supervisor grants or removes the discretionary deadline of a proposed notice (Tapurah
Lei 406/2001 Art. 19): `POST /revisao/atos/<id>/prazo` and `.../prazo/retirar`, answered like
every other decision on the act's card (htmx: the card; else a 303 back). The service
(`enforcement.grants`) checks the role, the law and the reason, and writes the audit log."""
from __future__ import annotations

from flask import g

from inspector import enforcement
from inspector.blueprints.review.actions import _done, _form, act_refused
from inspector.blueprints.review.common import VIEWERS
from inspector.clock import now
from inspector.errors import on_refusal
from inspector.models import Sanction
from inspector.security import get_in_town, roles_required


@roles_required(*VIEWERS)
@on_refusal(act_refused)
def grant_deadline(ident: int):
    """Grant the law's discretionary deadline (days and a reason) before deciding the act."""
    a = get_in_town(Sanction, ident)
    enforcement.give_grant(a, g.user, now(), days=_form("grant_days"),
                           reason=_form("grant_reason"), seen=_form("grant_seen") or None)
    return _done(a, f"Prazo concedido: {a.deadline_text}.")


@roles_required(*VIEWERS)
@on_refusal(act_refused)
def remove_grant(ident: int):
    """Take the granted days back (the law's own deadline again), with a reason."""
    a = get_in_town(Sanction, ident)
    enforcement.remove_grant(a, g.user, now(), reason=_form("grant_reason"),
                             seen=_form("grant_seen") or None)
    return _done(a, f"Prazo concedido retirado: {a.deadline_text}.")
