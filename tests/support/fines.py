"""Fines to pay and reverse: Tapurah's fine of 100 UFIM confirmed at T0, a running daily
fine, and the review card's payment form."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Sanction
from tests import factories
from tests.support.enforcement import fleet, inspect, local, set_values
from tests.support.web import HX


def pay(c, act, **data):
    return c.post_form(f"/revisao/atos/{act}/pagamento", data, headers=HX)


T0 = local(2026, 3, 2, 10)


def confirmed_fine(town="tapurah", values=True):
    """Tapurah Art. 14 § ú: a second passenger, the holder fined 100 UFIM (R$ 525,00 with
    the UFIM at R$ 5,25), confirmed on 02/03/2026."""
    f = fleet(town, "mototaxi")
    if values:
        set_values(town, fiscal_unit=5.25)
    agent, sup = factories.user("agent", town), factories.user("supervisor", town)
    db.session.commit()
    _, fine = enforcement.acts_of(inspect(f["vehicle"], agent, {"one-passenger": "fail"}, T0))
    enforcement.confirm(fine, sup, T0 + timedelta(hours=1))
    db.session.commit()
    assert fine.fine.amount_brl == Decimal("525.00")
    return f, sup, fine


def daily_fine():
    """Tapurah: a notice signed on the street at T0, confirmed; its 72 hours run out."""
    f = fleet("tapurah", "mototaxi")
    agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
    db.session.commit()
    insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, T0)
    [notice] = enforcement.acts_of(insp)
    enforcement.confirm(notice, sup, T0 + timedelta(hours=1))
    db.session.commit()
    enforcement.tick(T0 + timedelta(hours=73))
    daily = db.session.scalar(select(Sanction).where(Sanction.parent_id == notice.id))
    return f, agent, sup, daily
