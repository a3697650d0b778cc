"""An amendment refused for a missing reason comes back with the amendment form open and
what was chosen still there (not the rejection form open and the choice lost)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from inspector import enforcement
from inspector.clock import default_day
from inspector.extensions import db
from tests import factories
from tests.support.enforcement import (
    chosen_permit_suspension,
    fleet,
    inspect,
    nsh_failed_seat_belts,
)

GRAVE = "Reincidência grave apurada pela supervisão."


def _details(html: str, summary: str) -> str:
    return re.search(r"<details[^>]*>\s*<summary>" + re.escape(summary) + r"</summary>.*?</details>",
                     html, re.S).group(0)


def test_a_refused_amendment_keeps_the_chosen_measure_and_opens_its_form(app):
    with app.app_context():
        insp, users = nsh_failed_seat_belts()
        [act] = enforcement.acts_of(insp)
        options = [o.key for o in enforcement.amend_options(act)]
        username, act_id = users["supervisor"].username, act.id
    c = app.test_client()
    assert c.login(username).status_code == 302
    chosen = options[1]
    r = c.post_form(f"/revisao/atos/{act_id}/alterar",
                    {"option": chosen, "reason": "", "comment": "Veja o cinto traseiro."},
                    token_from=f"/revisao/atos/{act_id}")
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    amend = _details(html, "Alterar (dentro da lei)")
    assert amend.startswith("<details open")
    assert f'<option value="{chosen}" selected>' in amend
    assert 'value="Veja o cinto traseiro."' in amend
    assert "Informe o motivo da alteração." in amend
    assert not _details(html, "Rejeitar").startswith("<details open")


def test_a_refused_mayors_decision_keeps_what_the_admin_typed(app):
    """Nova Santa Helena 535 Art. 27: the permit's suspension is the mayor's; an admin
    records it. "Não aplicou" without a reason is refused; the choice and the act number
    stay."""
    with app.app_context():
        insp, users = nsh_failed_seat_belts("admin")
        act = chosen_permit_suspension(insp, users["supervisor"], GRAVE, confirmed=True)
        assert act.awaiting_mayor
        username, act_id = users["admin"].username, act.id
    c = app.test_client()
    assert c.login(username).status_code == 302
    r = c.post_form(f"/revisao/atos/{act_id}/prefeito",
                    {"decision": "reject", "ref": "Decreto nº 5/2026, de 01/12/2026",
                     "reason": ""}, token_from=f"/revisao/atos/{act_id}")
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert '<input type="radio" name="decision" value="reject" checked>' in html
    assert '<input type="radio" name="decision" value="confirm" checked>' not in html
    assert 'value="Decreto nº 5/2026, de 01/12/2026"' in html


def test_a_refused_appeal_decision_keeps_the_choice_and_the_text(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        now = datetime.now(UTC)
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"},
                                            now - timedelta(hours=2)))
        enforcement.confirm(act, sup, now - timedelta(hours=1))
        appeal = enforcement.file_appeal(act, filed_on=default_day(), filed_by="Ana Souza",
                                         filed_by_role="holder", user=sup, now=now,
                                         text_="O retrovisor foi trocado no mesmo dia.")
        db.session.commit()
        username, act_id, appeal_id = sup.username, act.id, appeal.id
    c = app.test_client()
    assert c.login(username).status_code == 302
    r = c.post_form(f"/revisao/recursos/{appeal_id}/decidir",
                    {"accepted": "1", "decision_text": "Ok"}, token_from=f"/revisao/atos/{act_id}")
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert '<input type="radio" name="accepted" value="1" checked>' in html
    assert re.search(r'<textarea name="decision_text"[^>]*>Ok</textarea>', html)


def test_a_refused_chosen_sanction_keeps_the_choice_and_the_reason(app):
    with app.app_context():
        insp, users = nsh_failed_seat_belts()
        username, insp_id = users["supervisor"].username, insp.id
    c = app.test_client()
    assert c.login(username).status_code == 302
    r = c.post_form(f"/revisao/vistorias/{insp_id}/sancoes",
                    {"choice": "permit-sanction:suspension", "reason": "x"},
                    token_from=f"/revisao/vistorias/{insp_id}")
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert re.search(r'name="choice" value="permit-sanction:suspension" required checked>', html)
    assert re.search(r'<textarea name="reason" rows="3" maxlength="4000" required>x</textarea>',
                     html)


def test_a_refused_confirmation_keeps_the_length_and_the_comment(app):
    with app.app_context():
        insp, users = nsh_failed_seat_belts()
        act = chosen_permit_suspension(insp, users["supervisor"], GRAVE)
        username, act_id = users["supervisor"].username, act.id
    c = app.test_client()
    assert c.login(username).status_code == 302
    r = c.post_form(f"/revisao/atos/{act_id}/confirmar",
                    {"days": "120", "comment": "Prazo longo pela reincidência."},
                    token_from=f"/revisao/atos/{act_id}")
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    form = html[html.index(f'action="/revisao/atos/{act_id}/confirmar"'):]
    form = form[:form.index("</form>")]
    assert 'value="120"' in form and 'value="Prazo longo pela reincidência."' in form
