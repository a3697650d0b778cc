"""A sanction the supervision chose with its reason (Nova Santa Helena 535 Art. 25 III: the
permit's suspension, decided by the mayor) prints that reason on the decision: the document
says why, not only what."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from inspector import enforcement
from inspector.documents.content import build_sheet
from inspector.documents.pdf import Rows
from inspector.extensions import db
from inspector.models import Notice, Sanction
from tests.support.enforcement import chosen_permit_suspension, nsh_failed_seat_belts

REASON = "Terceira recusa do condutor em trocar o cinto, apurada pela supervisão."


def test_the_decision_on_a_chosen_suspension_states_the_reason(app):
    with app.app_context():
        insp, users = nsh_failed_seat_belts("admin")
        act = chosen_permit_suspension(insp, users["supervisor"], REASON, confirmed=True)
        now = datetime.now(UTC)
        enforcement.record_mayor_decision(act, users["admin"], now - timedelta(minutes=10),
                                          decision="confirm", ref="Decreto nº 5/2026")
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        notice = db.session.scalar(db.select(Notice).where(Notice.sanction_id == act.id))
        sheet = build_sheet(notice, url="https://x.example/d", access_code=None)
        measure = next(s for s in sheet.sections
                       if s.title == "Penalidade aplicada e seu fundamento")
        rows = {k: v for b in measure.blocks if isinstance(b, Rows) for k, v in b.rows}
    assert rows["Motivo"] == f"Proposta da supervisão: {REASON}"
    assert rows["Penalidade / medida"] == "Suspensão — Suspensão ou cassação do Termo de Permissão"
    assert rows["Decisão"].endswith("Decreto nº 5/2026")
