"""A supervisor amending an act may pick any rung of the ladder (the laws grade by gravity),
but not a measure the law gives only on a repeat before the offender has reached it. Runs on
SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import timedelta

import pytest

from inspector import enforcement
from inspector.errors import ValidationFailed
from inspector.extensions import db
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local


def _first_act(town: str, item: str):
    f = fleet(town, "mototaxi")
    agent = factories.user("agent", town)
    sup = factories.user("supervisor", town)
    db.session.commit()
    [act] = [a for a in enforcement.acts_of(inspect(f["vehicle"], agent, {item: "fail"},
                                                    local(2026, 3, 2, 10)))
             if a.kind in ("written_warning", "notice")]
    db.session.commit()
    assert act.occurrence == 1
    return act, sup


def test_nortelandia_first_offence_cannot_take_the_repeat_fine(app):
    """Lei 030/1998 Art. 16, II: "Multa de até 10 (dez) UFM ..., podendo, em caso de
    reincidência, ser de até 100 (cem) UFM". A first offence is no reincidência: the fine of
    up to 100 UFM is not offered (nor accepted); the fine of up to 10 UFM and the suspension
    or revocation of Art. 16, III (no repeat required) still are."""
    with app.app_context():
        act, sup = _first_act("nortelandia", "vest")
        keys = {o.key: o.label for o in enforcement.amend_options(act)}
        assert "step:repeat-fine:0" not in keys, keys
        assert "step:fine:0" in keys
        assert "step:repeat-fine:1:suspension" in keys
        with pytest.raises(ValidationFailed) as info:
            enforcement.amend(act, sup, local(2026, 3, 3), option="step:repeat-fine:0",
                              amount="80", reason="Gravidade da falta.")
        assert "option" in info.value.errors
        db.session.rollback()


def test_tapurah_removal_request_only_after_the_third_notice(app):
    """Lei 406/2001 Art. 27, III: the agent may "solicitar o afastamento do condutor após a
    terceira notificação". On a rider's first notice the removal request (and the label of
    the third or later notice) is not an option."""
    with app.app_context():
        act, sup = _first_act("tapurah", "mirrors")
        keys = {o.key for o in enforcement.amend_options(act)}
        assert not any(k.startswith("step:third-notice") for k in keys), keys
        with pytest.raises(ValidationFailed):
            enforcement.amend(act, sup, local(2026, 3, 2, 11), option="step:third-notice:1",
                              reason="Condutor reincidente.")
        db.session.rollback()


def test_a_third_occasion_still_offers_the_repeat_fine(app):
    """Lei 030/1998 Art. 16, II: once the company is a repeat offender - the same provision
    broken again within 12 months after an earlier penalty became final (product owner,
    December 2026) - the fine of up to 100 UFM is the proposal and an option. The warning and
    the fine are delivered at their decision; the warning's 10 business days to appeal are
    over long before the third finding, so it is final."""
    with app.app_context():
        f = fleet("nortelandia", "mototaxi")
        agent = factories.user("agent", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        db.session.commit()
        start = local(2026, 3, 2, 10)
        for n in range(2):
            when = start + timedelta(days=10 * n)
            for a in enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"}, when)):
                enforcement.confirm(a, sup, when + timedelta(hours=1),
                                    amount="5" if a.kind == "fine" else None)
                db.session.commit()
                deliver(a, sup, when + timedelta(hours=1))
            db.session.commit()
        acts = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"},
                                           start + timedelta(days=30)))
        fine = next(a for a in acts if a.kind == "fine")
        assert (fine.step_id, fine.occurrence) == ("repeat-fine", 3)
        assert "step:repeat-fine:0" in {o.key for o in enforcement.amend_options(fine)}
