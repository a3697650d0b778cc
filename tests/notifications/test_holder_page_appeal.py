"""The holder's page (/notificacoes/<town>/<number>, opened with the printed code) says what
became of the appeal: pending since the day it was filed, then denied or upheld with the
grounds, not only "situação: Recurso negado" next to a "Recurso até" date."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape

from inspector import enforcement
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Appeal, Sanction
from tests import factories
from tests.support.enforcement import fleet, inspect

GROUNDS = "A foto da vistoria mostra um só retrovisor."


def _appeal_line(client, path: str, code: str) -> str | None:
    html = unescape(client.holder_page(path, code))
    found = re.search(r"<dd data-appeal>([^<]*)</dd>", html)
    return found.group(1) if found else None


def test_the_holder_reads_the_appeal_and_its_outcome(instant, app, client):
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        now = datetime.now(UTC)
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"},
                                            now - timedelta(hours=3)))
        d = enforcement.confirm(act, sup, now - timedelta(hours=2))
        db.session.commit()
        path, code, act_id = f"tapurah/{d.notice.number}", d.access_code, act.id
    assert _appeal_line(client, path, code) is None
    today = default_day().strftime("%d/%m/%Y")
    with app.app_context():
        act, user = db.session.get(Sanction, act_id), factories.user("supervisor", "tapurah")
        appeal = enforcement.file_appeal(act, filed_on=default_day(), filed_by="Ana Souza",
                                         filed_by_role="holder", user=user,
                                         now=datetime.now(UTC),
                                         text_="O retrovisor foi trocado no mesmo dia.")
        db.session.commit()
        appeal_id = appeal.id
    assert _appeal_line(client, path, code) == f"protocolado em {today}, aguardando decisão"
    with app.app_context():
        appeal, user = db.session.get(Appeal, appeal_id), factories.user("supervisor", "tapurah")
        enforcement.decide_appeal(appeal, user, datetime.now(UTC), accepted=False, text_=GROUNDS)
        db.session.commit()
    assert _appeal_line(client, path, code) == (f"protocolado em {today}; negado em {today}: "
                                                f"{GROUNDS}")
