"""The appeal rows of a document decided in the office, printed before anyone knows when it will
be delivered: Nortelândia Lei 030/1998 Art. 16 § 2º, "no prazo de 10 (dez) dias, contados a
partir da intimação" (the document's receipt). Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from inspector import enforcement
from inspector.documents import issuing
from inspector.documents.pdf import Rows
from inspector.extensions import db
from inspector.rules import calendar
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect
from tests.support.instants import (
    CUIABA,
)


def _appeal_rows(notice) -> dict:
    sheet = issuing.notice_sheet(notice)
    [section] = [s for s in sheet.sections if s.title == "Recurso"]
    return dict(r for b in section.blocks if isinstance(b, Rows) for r in b.rows)


def test_the_appeal_rows_count_from_the_receipt_of_the_document(instant, app):
    with app.app_context():
        f = fleet("nortelandia", "mototaxi")
        agent = factories.user("agent", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        now = datetime.now(UTC)
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"brakes": "fail"},
                                            now - timedelta(hours=3), ack=None))
        enforcement.confirm(act, sup, now - timedelta(hours=2))
        db.session.commit()
        db.session.expire_all()
        assert act.awaiting_delivery and act.appeal_days == 10
        rows = _appeal_rows(act.notice)
        # it printed "10 dias a contar da ciência" and, as the last day,
        # "conta-se do recebimento deste documento" (not a day, and another word for it);
        # the days are business days: "na forma prevista no Código de Processo Civil" (Art. 16
        # § 2º; CPC Art. 219)
        assert rows["Prazo"] == ("10 dias úteis a contar do recebimento deste documento "
                                 "(CPC, art. 219; Lei 030/1998, Art. 16, § 2º)")
        assert rows["Último dia"] == "o 10º dia útil após o recebimento deste documento"
        assert "Contagem" not in rows   # nothing counted yet
        handed = now - timedelta(hours=1)
        deliver(act, sup, handed, recorded=now)
        db.session.flush()
        rows = _appeal_rows(act.notice)   # a copy made after delivery has the date
        assert rows["Último dia"] == f"{act.appeal_until:%d/%m/%Y}"
        assert act.appeal_until == calendar.deadline_days(handed.astimezone(CUIABA).date(), 10,
                                                       "business").last_day
        assert rows["Contagem"] == act.appeal_explain
        assert rows["Contagem"].startswith("10 dias úteis (CPC, art. 219): ")
