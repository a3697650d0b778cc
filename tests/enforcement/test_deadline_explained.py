"""Every deadline says how it was counted where it is shown: the act's card, the document (PDF),
the holder's page and the push that names the day. Tapurah Lei 406/2001
Art. 30 (8 days to appeal) counted by Lei 9.784/1999 Art. 66: delivered Fri 06/03/2026, the
8th day is Sat 14/03, and a municipal holiday on Mon 16/03 carries it to Tue 17/03 (§ 1º);
Art. 29 § único's 72 hours run minute to minute. Runs on SQLite and PostgreSQL."""
from __future__ import annotations

from datetime import date
from html import unescape

from sqlalchemy import select

from inspector import enforcement
from inspector.documents import issuing
from inspector.documents.pdf import Rows
from inspector.extensions import db
from inspector.laws import town_calendar
from inspector.models import Holder, Notification
from inspector.notifications import subscriptions
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local
from tests.support.push import Subscriber

APPEAL = ("8 dias (Lei 9.784/1999, art. 66): 07/03/2026 a 14/03/2026; prorrogado para 17/03/2026 "
          "(art. 66, § 1º): 14/03 sábado, 15/03 domingo, 16/03 feriado municipal: Emancipação "
          "(Lei nº 200/1998, de 10/03/1998)")
HOURS = "72 horas, contadas minuto a minuto: 06/03/2026 11:00 a 09/03/2026 11:00"


def _rows(notice, title: str) -> dict:
    [section] = [s for s in issuing.notice_sheet(notice).sections if s.title == title]
    return dict(r for b in section.blocks if isinstance(b, Rows) for r in b.rows)


def test_the_count_is_on_the_card_the_pdf_the_holder_page_and_the_push(app, client, service):
    app.config.update(PUSH_ALLOW_HTTP_LOOPBACK=True, HOLDER_CODE_MIN_SECONDS=0.01,
                      HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        town = factories.town("tapurah")
        admin = factories.user("admin", "tapurah")
        town_calendar.add_closure(town, {"day": "2026-03-16", "reason": "Emancipação",
                                         "act": "Lei nº 200/1998", "act_date": "1998-03-10",
                                         "kind": "feriado municipal"}, admin)
        town_calendar.set_year_entered(town, 2026, True, admin)
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        subscriptions.save_subscription(Subscriber(service.endpoint("h")).as_json(),
                                holder=db.session.get(Holder, f["holder"].id))
        db.session.commit()
        insp = inspect(f["vehicle"], agent, {"leg-guard": "fail"}, local(2026, 3, 6, 9),
                       ack=None)
        [act] = enforcement.acts_of(insp)
        decision = enforcement.confirm(act, sup, local(2026, 3, 6, 10))
        db.session.commit()   # decided in the office; delivered an hour later
        deliver(act, sup, local(2026, 3, 6, 11))
        db.session.commit()
        assert act.appeal_until == date(2026, 3, 17)
        assert (act.appeal_explain, act.deadline_explain) == (APPEAL, HOURS)
        number, code, insp_id, sup_name = (decision.notice.number, decision.access_code,
                                           insp.id, sup.username)
        rows = _rows(act.notice, "Recurso")
        assert rows["Último dia"] == "17/03/2026" and rows["Contagem"] == APPEAL
        assert rows["Prazo"] == "8 dias a contar da ciência (Lei 9.784/1999, art. 66)"
        assert _rows(act.notice, "Providências e prazo")["Contagem"] == HOURS
        [told] = db.session.scalars(select(Notification).where(
            Notification.kind == "act_delivered")).all()
        assert f"recurso até 17/03/2026 [{APPEAL}]" in told.body
        assert f"(horário de MT) [{HOURS}]" in told.body
    holder = unescape(client.holder_page(f"tapurah/{number}", code))
    assert APPEAL in holder and HOURS in holder
    assert client.login(sup_name).status_code == 302
    card = unescape(client.get(f"/revisao/vistorias/{insp_id}").get_data(as_text=True))
    assert APPEAL in card and HOURS in card
