"""The notice PDF and the holder's page print the deadline with the article that gives it:
Tapurah Lei 406/2001 Art. 29 § único's 72 hours, or the days granted at discretion under
Art. 19 with who granted them and why (product owner, December 2026)."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Sanction, User
from tests import factories
from tests.support.documents import pdf_text, stored_document
from tests.support.enforcement import fleet, inspect, set_values


def _notice(app, grants=None):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        set_values("tapurah", minimum_wage=1621, since=date(2020, 1, 1))
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        now = datetime.now(UTC) - timedelta(minutes=5)
        insp = inspect(f["vehicle"], agent, {"tank-sign": "fail"}, now - timedelta(hours=1),
                       grants=grants)
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id))
        d = enforcement.confirm(act, db.session.get(User, sup.id), now)
        db.session.commit()
        from inspector.blueprints.notifications.holder import page_path
        return {"notice_id": d.notice.id, "path": page_path(d.notice), "code": d.access_code}


@pytest.mark.parametrize("grants, printed, not_printed", [
    (None, "Prazo fixado 72 horas (Art. 29, parágrafo único)", "Art. 19"),
    ({"tank-sign": {"days": 10, "reason": "Adesivo encomendado na gráfica"}},
     "Prazo fixado 10 dias, concedidos pelo agente (Art. 19): Adesivo encomendado na gráfica",
     "72 horas"),
])
def test_the_notice_and_the_holder_page_print_the_deadline_with_its_article(
        app, tmp_path, grants, printed, not_printed):
    n = _notice(app, grants)
    text = pdf_text(stored_document(app, n["notice_id"]).pdf, tmp_path)
    assert printed in text, text
    assert not_printed not in text.split("Prazo para cumprir", 1)[1].split("Vence em", 1)[0]
    page = app.test_client().holder_page(n["path"], n["code"])
    assert printed.removeprefix("Prazo fixado ") in page
    if grants:   # counted by Lei 9.784/1999 Art. 66 from the ciente, and said so
        assert "10 dias a contar da ciência" in text and "(Lei 9.784/1999, art. 66)" in text
