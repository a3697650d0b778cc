"""The act's page offers "Registrar recurso" only when an appeal can be recorded: not while
one is pending (it would be refused), not after it was decided (the law gives one)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from inspector import enforcement
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Appeal, Sanction
from tests import factories
from tests.support.enforcement import fleet, inspect

OFFER = "<summary>Registrar recurso</summary>"


def test_the_appeal_form_is_offered_only_while_an_appeal_can_be_filed(instant, app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        started = datetime.now(UTC) - timedelta(hours=2)
        [notice] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"},
                                               started))
        db.session.commit()
        username, act_id = sup.username, notice.id
    c = app.test_client()
    assert c.login(username).status_code == 302
    page = lambda: c.get(f"/revisao/atos/{act_id}").get_data(as_text=True)  # noqa: E731
    assert OFFER not in page()                                   # proposed: nothing to appeal
    with app.app_context():
        act, user = db.session.get(Sanction, act_id), factories.user("supervisor", "tapurah")
        enforcement.confirm(act, user, datetime.now(UTC) - timedelta(hours=1))
        db.session.commit()
    assert OFFER in page()
    with app.app_context():
        act, user = db.session.get(Sanction, act_id), factories.user("supervisor", "tapurah")
        appeal = enforcement.file_appeal(act, filed_on=default_day(), filed_by="João da Silva",
                                         filed_by_role="driver", text_="O retrovisor estava lá.",
                                         user=user, now=datetime.now(UTC))
        db.session.commit()
        appeal_id = appeal.id
    assert OFFER not in page()                                   # pending
    with app.app_context():
        appeal, user = db.session.get(Appeal, appeal_id), factories.user("supervisor", "tapurah")
        enforcement.decide_appeal(appeal, user, datetime.now(UTC), accepted=False,
                                  text_="A foto mostra um só retrovisor.")
        db.session.commit()
    html = page()
    assert "Recurso negado" in html and OFFER not in html        # decided
