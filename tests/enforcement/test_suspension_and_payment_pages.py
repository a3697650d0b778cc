"""What people see of a suspension's period and of a fine's payments: the review card (the
length within the pack's bounds, 422 with the reason inline), the decision PDF, the
passenger page before and after the tick lifts the suspension, the payment form (422 with
inline errors, nothing written), the holder's notice page, the public authenticity page and
the supervisors' "Multas em aberto". Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

import pytest
from sqlalchemy import func, select

from inspector import enforcement
from inspector.clock import default_day
from inspector.credentials.issuing import issue
from inspector.documents.issuing import current_document
from inspector.extensions import db
from inspector.models import FinePayment, Licence, Notice, Sanction, Status
from tests import factories
from tests.support.credentials import banner
from tests.support.documents import pdf_text
from tests.support.enforcement import GRAVE, deliver, fleet, inspect, running_daily_fine
from tests.support.fines import pay
from tests.support.instants import (
    CUIABA,
)
from tests.support.web import HX, login


def _dmy(day) -> str:
    return day.strftime("%d/%m/%Y")


@pytest.fixture
def nortelandia(app):
    """A Nortelândia taxi with its QR credential, and the suspension of its Alvará proposed
    an hour ago for a dirty car: chosen by the supervisor for the gravity of the fault instead
    of the notice the finding proposes (Lei 127/2009 Art. 26)."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        f = fleet("nortelandia", "taxi")
        agent = factories.user("agent", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        db.session.commit()
        insp = inspect(f["vehicle"], agent, {"clean": "fail"},
                       datetime.now(UTC) - timedelta(hours=1))
        [act] = enforcement.choose(insp, sup, datetime.now(UTC) - timedelta(minutes=50),
                                   key="gravity:suspension", reason=GRAVE)
        cred = issue(f["vehicle"], actor="test")
        db.session.commit()
        return {"act": act.id, "licence": f["licence"].id, "token": cred.token,
                "supervisor": sup.username, "agent": agent.username}


def test_the_supervisor_sets_the_length_and_sees_the_period_and_the_pdf_says_it(
        app, nortelandia, tmp_path):
    c = login(app, nortelandia["supervisor"])
    act = nortelandia["act"]
    page = c.get(f"/revisao/atos/{act}").get_data(as_text=True)
    assert "Duração proposta" in page and "30 dias (de 1 a 90" in page
    assert 'name="days"' in page and 'max="90"' in page
    bad = c.post_form(f"/revisao/atos/{act}/confirmar", {"days": "120"}, headers=HX)
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422 and "A suspensão deve durar de 1 a 90 dias" in html
    assert 'class="field-error"' in html
    with app.app_context():
        assert db.session.get(Licence, nortelandia["licence"]).status == Status.ACTIVE
    # the act names the alvará it suspends by its number, not the vehicle's plate
    with app.app_context():
        licence = db.session.get(Licence, nortelandia["licence"])
        number, plate = licence.number, licence.vehicle.plate
    assert f"Alvará: nº {number} (veículo {plate})" in html
    ok = c.post_form(f"/revisao/atos/{act}/confirmar", {"days": "10"}, headers=HX)
    card = ok.get_data(as_text=True)
    code = re.search(r"<strong>([A-Z0-9]{5}-[A-Z0-9]{5})</strong>", card).group(1)
    assert ok.status_code == 200
    # decided in the office: the period starts when the document is delivered
    assert "10 dias, a contar da entrega (ainda não registrada)" in card
    with app.app_context():
        notice = db.session.scalar(select(Notice).where(Notice.sanction_id == act))
        text = pdf_text(current_document(notice).pdf, tmp_path)
        assert db.session.get(Licence, nortelandia["licence"]).status == Status.ACTIVE
    # the card links the issued document; the link opens the PDF as issued
    link = f'href="/documentos/nortelandia/{notice.number}/pdf"'
    assert link in card
    got = c.get(f"/documentos/nortelandia/{notice.number}/pdf")
    assert got.status_code == 200 and got.mimetype == "application/pdf"
    assert "10 dias, a contar do recebimento deste documento" in text
    assert "volta automaticamente à situação anterior" in text
    first = default_day(datetime.now(UTC))
    last = first + timedelta(days=9)
    ok = c.post_form(f"/revisao/atos/{act}/entrega",
                     {"delivered_on": first.isoformat(), "delivered_via": "hand",
                      "delivery_ref": "Recebido pelo titular"}, headers=HX)
    card = ok.get_data(as_text=True)
    assert ok.status_code == 200
    assert f"Suspenso de {_dmy(first)} a {_dmy(last)} (10 dias)" in card
    registry = c.get(f"/cadastro/alvaras/{nortelandia['licence']}").get_data(as_text=True)
    assert f"até {_dmy(last)}</span>" in registry
    # the holder's page, opened with the code printed on the decision
    path = f"nortelandia/{notice.number}"
    client = app.test_client()
    holder = client.holder_page(path, code)
    assert f"<dd data-suspension>suspenso de {_dmy(first)} a {_dmy(last)} (10 dias)</dd>" \
        in holder


def test_the_passenger_page_says_until_when_and_is_regular_again_after_the_tick(
        app, client, nortelandia):
    assert banner(client.get(f"/v/{nortelandia['token']}").get_data(as_text=True)) == "REGULAR"
    with app.app_context():
        act = db.session.get(Sanction, nortelandia["act"])
        sup = factories.user("supervisor", "nortelandia")
        enforcement.confirm(act, sup, datetime.now(UTC), days=3)
        db.session.commit()
        assert act.suspension_end is None  # not delivered yet: still regular
    assert banner(client.get(f"/v/{nortelandia['token']}").get_data(as_text=True)) == "REGULAR"
    with app.app_context():
        act = db.session.get(Sanction, nortelandia["act"])
        deliver(act, db.session.merge(sup), datetime.now(UTC))
        db.session.commit()
        last = act.suspension_end
    html = client.get(f"/v/{nortelandia['token']}").get_data(as_text=True)
    assert banner(html) == f"SUSPENSO até {_dmy(last)}"
    assert f"suspensa pela prefeitura até {_dmy(last)}" in html
    with app.app_context():
        midnight = datetime.combine(last + timedelta(days=1), time(0), CUIABA)
        assert enforcement.tick(midnight - timedelta(seconds=1)).lifted == []
        assert banner(client.get(f"/v/{nortelandia['token']}").get_data(as_text=True)) == \
            f"SUSPENSO até {_dmy(last)}"
        assert enforcement.tick(midnight).lifted == [nortelandia["act"]]
    assert banner(client.get(f"/v/{nortelandia['token']}").get_data(as_text=True)) == "REGULAR"


# --- payments -------------------------------------------------------------------------------
def test_a_payment_is_validated_inline_and_shows_on_every_page(app, client, fine):
    c = login(app, fine["supervisor"])
    act = fine["act"]
    card = c.get(f"/revisao/atos/{act}").get_data(as_text=True)
    assert "Pagamento da multa" in card and "em aberto: R$ 525,00" in card
    tomorrow = (default_day(datetime.now(UTC)) + timedelta(days=1)).isoformat()
    bad = pay(c, act, paid_on=tomorrow, amount_paid="-10", receipt="")
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422
    for message in ("A data do pagamento não pode ser futura.",
                    "O valor pago não pode ser negativo.",
                    "Informe o número do DAM ou do recibo."):
        assert f'<p class="field-error">{message}</p>' in html
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(FinePayment)) == 0
    # what was typed stays in the form, to be corrected rather than typed again
    assert f'name="paid_on" required value="{tomorrow}"' in html
    assert 'name="amount_paid" inputmode="decimal" required value="-10"' in html
    today = default_day(datetime.now(UTC)).isoformat()
    ok = pay(c, act, paid_on=today, amount_paid="200,00", receipt="DAM 2026/77")
    assert ok.status_code == 200
    assert "paga parcialmente: R$ 200,00 de R$ 525,00, faltam R$ 325,00" in ok.get_data(
        as_text=True)
    # the holder's page, opened with the printed code
    path = f"tapurah/{fine['number']}"
    holder = client.holder_page(path, fine["code"])
    assert "Multa paga parcialmente: R$ 200,00 de R$ 525,00" in holder
    # the public authenticity page: the state, no amounts, no names
    public = app.test_client().get(f"/documentos/{path}").get_data(as_text=True)
    assert '<dd id="pagamento">paga parcialmente</dd>' in public and "R$" not in public
    # the supervisors' list, then paid in full
    listed = c.get("/revisao/multas").get_data(as_text=True)
    assert fine["number"] in listed and "paga parcialmente" in listed and "R$ 325,00" in listed
    assert pay(c, act, paid_on=today, amount_paid="325", receipt="DAM 2026/78").status_code \
        == 200
    assert "Nenhuma multa em aberto" in c.get("/revisao/multas").get_data(as_text=True)
    public = app.test_client().get(f"/documentos/{path}").get_data(as_text=True)
    assert '<dd id="pagamento">quitada</dd>' in public


def test_only_the_towns_supervisors_and_admins_record_payments_and_see_the_list(app, fine):
    agent = login(app, fine["agent"])
    assert agent.get("/revisao/multas").status_code == 403
    assert pay(agent, fine["act"], paid_on="2026-01-01", amount_paid="1",
                receipt="DAM-1").status_code == 403
    other = login(app, fine["other"])
    assert pay(other, fine["act"], paid_on="2026-01-01", amount_paid="1",
                receipt="DAM-1").status_code == 404
    assert fine["number"] not in other.get("/revisao/multas").get_data(as_text=True)
    no_csrf = login(app, fine["supervisor"]).post(f"/revisao/atos/{fine['act']}/pagamento",
                                                   data={"paid_on": "2026-01-01"})
    assert no_csrf.status_code in (400, 403)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(FinePayment)) == 0


def test_a_running_daily_fine_says_that_paying_does_not_stop_it(app):
    """Tapurah Art. 29 § ú: the notice's 72 hours ran out; only the fix stops the daily fine."""
    with app.app_context():
        _notice, daily, sup = running_daily_fine()
        username, daily_id = sup.username, daily.id
    c = login(app, username)
    card = c.get(f"/revisao/atos/{daily_id}").get_data(as_text=True)
    assert "em aberto: R$ 1.945,20 (até agora)" in card     # 2 days of R$ 972,60
    assert "registrar um pagamento não interrompe a contagem" in card
    listed = c.get("/revisao/multas").get_data(as_text=True)
    assert "(correndo)" in listed and "registrar um pagamento não interrompe" in listed
