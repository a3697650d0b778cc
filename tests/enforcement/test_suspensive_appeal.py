"""Nortelândia Lei 030/1998 Art. 16 § 2º: the company may appeal any penalty to the mayor
within 10 days of the notice, "com efeito suspensível". While that window is open the act
holds no effect yet, so the public authenticity page (/documentos) and the holder's page
say the window is open until its last day and that the appeal suspends; once it closed with
no appeal the act is "Em vigor"; a filed appeal says the effects are suspended.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest

from inspector import enforcement
from inspector.clock import default_day
from inspector.documents import issuing
from inspector.enforcement.acts import schedule
from inspector.extensions import db
from inspector.models import Notice, Sanction, User
from inspector.rules import calendar
from tests import factories
from tests.support.enforcement import fleet, inspect


@pytest.fixture
def warned(app):
    """A written warning to the company (Art. 16 § 1º) for the rider's vest (Art. 10, IV),
    confirmed two hours ago and delivered to the company an hour ago."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    now = datetime.now(UTC)
    with app.app_context():
        f = fleet("nortelandia", "mototaxi")
        agent, sup = (factories.user(r, "nortelandia") for r in ("agent", "supervisor"))
        db.session.commit()
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"},
                                            now - timedelta(hours=3)))
        decision = enforcement.confirm(act, sup, now - timedelta(hours=2))
        act.notified_at = now - timedelta(hours=1)   # the company received it (intimação)
        schedule(act)
        db.session.commit()
        assert act.appeal_suspensive is True and act.appeal_days == 10
        # 10 business days: "na forma prevista no Código de Processo Civil" (CPC Art. 219)
        assert act.appeal_until == calendar.deadline_days(default_day(act.notified_at), 10,
                                                       "business").last_day
        return {"act": act.id, "notice": decision.notice.id, "number": decision.notice.number,
                "code": decision.access_code, "until": act.appeal_until.strftime("%d/%m/%Y"),
                "last_day": act.appeal_until, "sup": sup.id}


def _situacao(client, number: str) -> str:
    html = client.get(f"/documentos/nortelandia/{number}").get_data(as_text=True)
    return unescape(re.search(r'<dd id="situacao">([^<]*)</dd>', html).group(1))


def test_an_open_suspensive_appeal_window_is_not_shown_as_in_force(app, client, warned):
    status = _situacao(client, warned["number"])
    assert status == (f"Prazo de recurso aberto até {warned['until']} "
                      "(o recurso tem efeito suspensivo)")
    holder = unescape(client.holder_page(f"nortelandia/{warned['number']}", warned["code"]))
    shown = re.search(r"<strong data-status>([^<]*)</strong>", holder).group(1)
    assert shown == status   # the holder's page says what the document's page says


def test_in_force_once_the_window_closed_and_suspended_once_appealed(app, client, warned):
    with app.app_context():
        notice = db.session.get(Notice, warned["notice"])
        assert issuing.public_status(notice, today=warned["last_day"]).startswith(
            "Prazo de recurso aberto")                         # the last day still counts
        after = warned["last_day"] + timedelta(days=1)
        assert issuing.public_status(notice, today=after) == "Em vigor"
        act = db.session.get(Sanction, warned["act"])
        enforcement.file_appeal(act, filed_on=default_day(), filed_by="Moto Rápida Ltda",
                                filed_by_role="holder", text_="O colete foi entregue ao mototaxista.",
                                user=db.session.get(User, warned["sup"]), now=datetime.now(UTC))
        db.session.commit()
    assert _situacao(client, warned["number"]) == \
        "Em recurso (aguarda decisão) (efeitos suspensos pelo recurso)"
