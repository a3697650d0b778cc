"""The protocol day of an appeal: not in the future, and not before the act was notified (the
day its appeal window starts). Refused on the act's card with the reason next to the field
(422) and nothing written. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from inspector import enforcement
from inspector.clock import default_day
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Appeal, AuditEntry, EnforcementEvent, Sanction, SanctionStatus
from tests import factories
from tests.support.enforcement import confirm_delivered, fleet, inspect, set_values

HX = {"HX-Request": "true"}


@pytest.fixture
def act(instant, app):
    """Tapurah Art. 14 § ú: the holder fined, inspected five days ago, confirmed three days
    ago and handed over to the company then (notified); Tapurah gives 8 days to appeal."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        set_values("tapurah", fiscal_unit=5.25)
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        now = datetime.now(UTC)
        _, fine = enforcement.acts_of(inspect(f["vehicle"], agent, {"one-passenger": "fail"},
                                              now - timedelta(days=5)))
        confirm_delivered(fine, sup, now - timedelta(days=3))
        db.session.commit()
        return {"id": fine.id, "supervisor": sup.username,
                "notified": default_day(fine.notified_at.replace(tzinfo=UTC))}


def _counts() -> tuple[int, int, int]:
    return (db.session.scalar(select(func.count(Appeal.id))),
            db.session.scalar(select(func.count(AuditEntry.id))),
            db.session.scalar(select(func.count(EnforcementEvent.id))))


def _file(client, act_id: int, day) -> object:
    return client.post_form(f"/revisao/atos/{act_id}/recurso", {
        "filed_on": day.isoformat(), "filed_by": "João da Silva", "filed_by_role": "holder",
        "text": "A passageira era a minha filha de oito anos; segue a certidão."}, headers=HX)


@pytest.mark.parametrize("days_before", [1, 2000])
def test_an_appeal_filed_before_the_act_was_notified_is_refused(app, client, act, days_before):
    assert client.login(act["supervisor"]).status_code == 302
    with app.app_context():
        before = _counts()
    day = act["notified"] - timedelta(days=days_before)
    r = _file(client, act["id"], day)
    html = r.get_data(as_text=True)
    assert r.status_code == 422, html
    first = act["notified"].strftime("%d/%m/%Y")
    assert (f'<p class="field-error">A data do protocolo não pode ser anterior a {first}, '
            f'dia em que o ato foi notificado') in html
    assert "segue a certidão.</textarea>" in html   # what was typed is kept
    with app.app_context():
        assert _counts() == before
        assert db.session.get(Sanction, act["id"]).status == SanctionStatus.CONFIRMED


def test_an_appeal_filed_on_the_day_the_act_was_notified_is_recorded(app, client, act):
    assert client.login(act["supervisor"]).status_code == 302
    r = _file(client, act["id"], act["notified"])
    assert r.status_code == 200, r.get_data(as_text=True)
    assert "Aguardando decisão" in r.get_data(as_text=True)
    with app.app_context():
        [appeal] = db.session.scalars(select(Appeal)).all()
        assert appeal.filed_on == act["notified"] and appeal.admitted is not False
        assert db.session.get(Sanction, act["id"]).status == SanctionStatus.APPEALED


def test_the_first_day_is_the_street_notice_when_the_driver_signed_it(instant, app):
    """An act the agent gives on a signed inspection is notified on the street, and its
    appeal window runs from that day (Tapurah Art. 27, I; Art. 30): an appeal filed that
    day is recorded even though the supervisor confirmed the act two days later; the day
    before is refused."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        street = datetime.now(UTC) - timedelta(days=4)
        [notice] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"}, street))
        enforcement.confirm(notice, sup, street + timedelta(days=2))
        db.session.commit()
        day = default_day(street)
        with pytest.raises(ValidationFailed) as e:
            enforcement.file_appeal(notice, filed_on=day - timedelta(days=1), filed_by="Condutor",
                                    filed_by_role="driver", text_="Retrovisor trocado no dia.",
                                    user=sup, now=datetime.now(UTC))
        assert day.strftime("%d/%m/%Y") in e.value.errors["filed_on"]
        appeal = enforcement.file_appeal(notice, filed_on=day, filed_by="Condutor",
                                         filed_by_role="driver", text_="Retrovisor trocado no dia.",
                                         user=sup, now=datetime.now(UTC))
        assert appeal.admitted is not False and appeal.filed_on == day
