"""What a failed item's act tells the offender to do, wherever it is read: the act, the notice
(PDF) and the holder's page. Tapurah Lei 406/2001 Art. 29: the notice says what must be fixed;
Art. 15: "02 (dois) retrovisores". The pack's help text describes the item as the law wants
it, so the act must not read as if the motorcycle had its mirrors."""
from __future__ import annotations

from html import unescape

from inspector import enforcement
from inspector.documents import issuing
from inspector.documents.pdf import Text
from inspector.extensions import db
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local

TODO = ("Regularizar “Dois retrovisores”. Exigido: A motocicleta tem os dois retrovisores. "
        "Observação do agente: Falta o retrovisor esquerdo.")


def test_the_act_says_what_to_fix_and_the_deadline_reads_apart(app, client):
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        factories.town("tapurah")
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, local(2026, 3, 6, 9), ack=None,
                       notes={"mirrors": "Falta o retrovisor esquerdo"})
        [act] = enforcement.acts_of(insp)
        assert act.required_action == TODO
        decision = enforcement.confirm(act, sup, local(2026, 3, 6, 10))
        db.session.commit()
        deliver(act, sup, local(2026, 3, 6, 11))
        db.session.commit()
        sheet = issuing.notice_sheet(act.notice)
        texts = [b.text for s in sheet.sections for b in s.blocks if isinstance(b, Text)]
        assert f"Providências necessárias: {TODO}" in texts
        number, code = decision.notice.number, decision.access_code
    holder = " ".join(unescape(client.holder_page(f"tapurah/{number}", code)).split())
    assert f"{TODO} Prazo: até" in holder
