"""The supervisor's "Registrar entrega" on a decided act, the acts list's "Aguardando entrega",
and the holder's page before and after: time runs from delivery (Nova Santa Helena Lei
535/2013 Art. 27 § único "Após o recebimento"; Nortelândia Lei 030/1998 Art. 16 § 2º
"contados a partir da intimação"). Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import AuditEntry, Licence, Sanction, Status
from tests import factories
from tests.support.enforcement import decided_in_office

HX = {"HX-Request": "true"}
WAITS = "Prazo começa a contar da entrega"


def _login(app, username):
    c = app.test_client()
    assert c.login(username).status_code == 302
    return c


@pytest.fixture
def decided(app):
    """Nortelândia 127 (Art. 26): a dirty taxi's Alvará suspended for 10 days, decided in the
    office two hours ago, its document issued (the access code kept), not yet delivered."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        now = datetime.now(UTC)
        o = decided_in_office("nortelandia", "taxi", {"clean": "fail"},
                              now - timedelta(hours=2), ack="Condutor de Teste",
                              gravity="suspension", days=10)
        return {"act": o.act.id, "licence": o.fleet["licence"].id,
                "supervisor": o.supervisor.username, "agent": o.agent.username,
                "code": o.decision.access_code, "path": f"nortelandia/{o.decision.notice.number}",
                "decided_on": default_day(now - timedelta(hours=2))}


def _deliver(c, act, **data):
    form = {"delivered_on": "", "delivered_time": "", "delivered_via": "hand",
            "delivery_ref": "Recebido pelo titular"} | data
    return c.post_form(f"/revisao/atos/{act}/entrega", form, headers=HX)


def test_an_undelivered_act_says_so_everywhere_and_is_listed_until_delivered(app, decided):
    c = _login(app, decided["supervisor"])
    page = c.get(f"/revisao/atos/{decided['act']}").get_data(as_text=True)
    assert "Aguardando entrega" in page and "a contar da entrega (ainda não registrada)" in page
    assert "Registrar entrega" in page and 'name="delivered_via"' in page
    assert "correio com AR" in page and "edital" in page
    listed = c.get("/revisao/atos?situacao=awaiting_delivery").get_data(as_text=True)
    assert f"/revisao/atos/{decided['act']}" in listed and WAITS in listed
    prazos = c.get("/revisao/prazos").get_data(as_text=True)
    assert f"/revisao/atos/{decided['act']}#entrega-{decided['act']}" in prazos
    holder = app.test_client().holder_page(decided["path"], decided["code"])
    assert "conta do dia em que este documento foi entregue a você" in holder
    assert "10 dias, a contar da entrega deste documento" in holder
    with app.app_context():
        assert db.session.get(Licence, decided["licence"]).status == Status.ACTIVE
    day = decided["decided_on"]
    ok = _deliver(c, decided["act"], delivered_on=day.isoformat(), delivered_via="mail_ar",
                  delivery_ref="AR JT123456789BR")
    card = ok.get_data(as_text=True)
    assert ok.status_code == 200 and "Entrega registrada" in card
    assert "correio com AR em" in card and "AR JT123456789BR" in card
    assert "Registrar entrega" not in card and "Aguardando entrega" not in card
    last = day + timedelta(days=9)
    assert f"Suspenso de {day:%d/%m/%Y} a {last:%d/%m/%Y} (10 dias)" in card
    listed = c.get("/revisao/atos?situacao=awaiting_delivery").get_data(as_text=True)
    assert f"/revisao/atos/{decided['act']}" not in listed
    assert f"#entrega-{decided['act']}" not in c.get("/revisao/prazos").get_data(as_text=True)
    holder = app.test_client().holder_page(decided["path"], decided["code"])
    assert WAITS not in holder
    assert f"suspenso de {day:%d/%m/%Y} a {last:%d/%m/%Y} (10 dias)" in holder
    with app.app_context():
        assert db.session.get(Licence, decided["licence"]).status == Status.SUSPENDED
        assert db.session.scalar(select(func.count()).select_from(AuditEntry).where(
            AuditEntry.action == "sanction_delivered")) == 1


def test_a_bad_delivery_answers_422_with_the_reason_next_to_the_field(app, decided):
    c = _login(app, decided["supervisor"])
    before = (decided["decided_on"] - timedelta(days=1)).isoformat()
    bad = _deliver(c, decided["act"], delivered_on=before)
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422
    assert "A data da entrega não pode ser anterior à decisão" in html
    assert 'class="field-error"' in html and f'value="{before}"' in html
    future = (datetime.now(UTC) + timedelta(days=3)).date().isoformat()
    bad = _deliver(c, decided["act"], delivered_on=future, delivered_via="",
                   delivery_ref="")
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422 and "A data da entrega não pode ser futura." in html
    assert "Escolha como o documento foi entregue" in html
    assert "Informe a referência da entrega" in html
    without_htmx = c.post_form(f"/revisao/atos/{decided['act']}/entrega",
                               {"delivered_on": "", "delivered_via": "hand",
                                "delivery_ref": "Recebido pelo titular"})
    assert without_htmx.status_code == 422
    assert "Informe a data da entrega." in without_htmx.get_data(as_text=True)
    with app.app_context():
        act = db.session.get(Sanction, decided["act"])
        assert act.notified_at is None and act.delivered_via is None
        assert db.session.get(Licence, decided["licence"]).status == Status.ACTIVE


def test_only_the_supervision_records_a_delivery_with_a_csrf_token(app, decided):
    agent = _login(app, decided["agent"])
    day = decided["decided_on"].isoformat()
    assert _deliver(agent, decided["act"], delivered_on=day).status_code == 403
    sup = _login(app, decided["supervisor"])
    no_token = sup.post(f"/revisao/atos/{decided['act']}/entrega",
                        data={"delivered_on": day, "delivered_via": "hand",
                              "delivery_ref": "Recebido pelo titular"})
    assert no_token.status_code == 400
    other = factories_user_of_other_town(app)
    assert _deliver(_login(app, other), decided["act"], delivered_on=day).status_code == 404
    with app.app_context():
        assert db.session.get(Sanction, decided["act"]).notified_at is None
    ok = _deliver(sup, decided["act"], delivered_on=day)
    assert ok.status_code == 200
    again = _deliver(sup, decided["act"], delivered_on=day)   # recorded already: a conflict
    assert again.status_code == 409 and "Este ato já foi entregue por " in \
        again.get_data(as_text=True)
    assert re.search(r"entregue em mãos em \d\d/\d\d/\d{4}", again.get_data(as_text=True))


def factories_user_of_other_town(app) -> str:
    """A supervisor of Tapurah (another town: the act is not theirs to see)."""
    with app.app_context():
        u = factories.user("supervisor", "tapurah")
        db.session.commit()
        return u.username
