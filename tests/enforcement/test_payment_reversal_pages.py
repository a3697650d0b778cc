"""Reversing (estorno) a fine payment on the review card: the supervisor gives a reason, the
payment stays in the fine's history struck through with "estornado em dd/mm/aaaa por X:
motivo", and the fine is "em aberto" again on every page. Twice (409), another town's
payment (404), an agent (403), no reason (422 inline) or no CSRF token (400) each answer a
pt-BR message and change nothing. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime

from sqlalchemy import func, select

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import AuditEntry, FinePayment
from tests.support.fines import pay
from tests.support.web import HX, login


def _today() -> str:
    return default_day(datetime.now(UTC)).isoformat()


def _paid(app, c, act) -> int:
    """The fine paid in full with one DAM through the form; the payment's id."""
    ok = pay(c, act, paid_on=_today(), amount_paid="525,00", receipt="DAM 2026/90")
    assert ok.status_code == 200 and "quitada (R$ 525,00 de R$ 525,00)" in ok.get_data(
        as_text=True)
    with app.app_context():
        return db.session.scalar(select(FinePayment.id))


def _reverse(c, payment, reason, **kw):
    return c.post_form(f"/revisao/pagamentos/{payment}/estorno", {"reason": reason}, **kw)


def _state(app) -> tuple:
    with app.app_context():
        p = db.session.scalar(select(FinePayment))
        return (p.reversed_at, p.reversal_reason,
                db.session.scalar(select(func.count()).select_from(AuditEntry)))


def test_the_supervisor_reverses_a_payment_and_the_fine_is_open_again_everywhere(
        app, client, fine):
    c = login(app, fine["supervisor"])
    act = fine["act"]
    payment = _paid(app, c, act)
    card = c.get(f"/revisao/atos/{act}").get_data(as_text=True)
    assert "Estornar este pagamento" in card and \
        f'action="/revisao/pagamentos/{payment}/estorno"' in card
    assert "Registrar pagamento</summary>" not in card          # paid: no payment form
    assert "Nenhuma multa em aberto" in c.get("/revisao/multas").get_data(as_text=True)
    ok = _reverse(c, payment, "Valor lançado no ato errado <b>x</b>", headers=HX)
    html = ok.get_data(as_text=True)
    assert ok.status_code == 200
    assert "Pagamento estornado. Multa em aberto: R$ 525,00." in html
    day = default_day(datetime.now(UTC)).strftime("%d/%m/%Y")
    for page in (html, c.get(f"/revisao/atos/{act}").get_data(as_text=True)):
        item = re.search(rf'<li id="pagamento-item-{payment}" class="reversed">(.*?)</li>',
                         page, re.S).group(1)
        assert re.search(r"<del>\d\d/\d\d/\d{4}: R\$ 525,00 — DAM/recibo DAM2026/90</del>",
                         item)
        assert (f"estornado em {day} por Supervisor de Teste: Valor lançado no ato errado "
                "&lt;b&gt;x&lt;/b&gt;") in item                    # escaped, never markup
        assert "Estornar este pagamento" not in item
        assert "em aberto: R$ 525,00" in page and "Registrar pagamento</summary>" in page
    listed = c.get("/revisao/multas").get_data(as_text=True)
    assert fine["number"] in listed and "em aberto" in listed
    public = app.test_client().get(f"/documentos/tapurah/{fine['number']}").get_data(
        as_text=True)
    assert '<dd id="pagamento">em aberto</dd>' in public
    path = f"tapurah/{fine['number']}"
    assert "Multa em aberto: R$ 525,00" in client.holder_page(path, fine["code"])
    # the same DAM, now with the right amount, is accepted again
    again = pay(c, act, paid_on=_today(), amount_paid="500", receipt="DAM 2026/90")
    assert again.status_code == 200
    assert "paga parcialmente: R$ 500,00 de R$ 525,00" in again.get_data(as_text=True)


def test_without_htmx_the_reversal_redirects_back_with_a_message(app, fine):
    c = login(app, fine["supervisor"])
    payment = _paid(app, c, fine["act"])
    done = _reverse(c, payment, "DAM de outra multa.")
    assert done.status_code == 303
    page = c.get(done.headers["Location"]).get_data(as_text=True)
    assert "Pagamento estornado. Multa em aberto: R$ 525,00." in page
    assert 'class="reversed"' in page


def test_refusals_answer_4xx_in_portuguese_and_change_nothing(app, fine):
    sup = login(app, fine["supervisor"])
    payment = _paid(app, sup, fine["act"])
    before = _state(app)
    empty = _reverse(sup, payment, "   ", headers=HX)
    html = empty.get_data(as_text=True)
    assert empty.status_code == 422
    assert '<p class="field-error">Informe o motivo do estorno.</p>' in html
    assert "<details open>" in html and "quitada" in html
    full = _reverse(sup, payment, "")
    assert full.status_code == 422 and "Informe o motivo do estorno." in full.get_data(
        as_text=True)
    agent = _reverse(login(app, fine["agent"]), payment, "Engano de digitação.")
    assert agent.status_code == 403
    assert "Seu perfil não tem acesso a esta página." in agent.get_data(as_text=True)
    other = _reverse(login(app, fine["other"]), payment, "Engano de digitação.")
    assert other.status_code == 404 and "Pagamento não encontrado." in other.get_data(
        as_text=True)
    assert _reverse(sup, 999999, "Engano de digitação.").status_code == 404
    no_csrf = sup.post(f"/revisao/pagamentos/{payment}/estorno",
                       data={"reason": "Engano de digitação."})
    assert no_csrf.status_code == 400
    assert "Formulário expirado ou inválido" in no_csrf.get_data(as_text=True)
    assert _state(app) == before
    # once reversed, a second reversal is a conflict that says who did it and why
    assert _reverse(sup, payment, "Engano de digitação.", headers=HX).status_code == 200
    before = _state(app)
    twice = _reverse(sup, payment, "De novo, por engano.", headers=HX)
    html = twice.get_data(as_text=True)
    assert twice.status_code == 409
    assert "Este pagamento já foi estornado em " in html and \
        "por Supervisor de Teste: Engano de digitação." in html
    assert _state(app) == before
