"""The owner-driver's ciente (product owner, December 2026): when the rider who signs the ciente
on the street is the holder himself (the same CPF), the holder has been notified in person, so
the copy of a Tapurah notice owed to the holder (Lei 406/2001 Art. 27 I, "conseqüente remessa
de cópia da notificação à empresa") is delivered by that ciente: nothing is left pending. An
auxiliary's or an employee's ciente is not the holder's: the copy still waits for its
remittance."""
from __future__ import annotations

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import AuditEntry, Notice
from inspector.models.enforcement import NoticeCompanyCopy
from tests.support.documents import company_notice


def _copy(app, notice_id: int):
    with app.app_context():
        row = db.session.scalar(select(NoticeCompanyCopy)
                                .where(NoticeCompanyCopy.notice_id == notice_id))
        notice = db.session.get(Notice, notice_id)
        remitted = db.session.scalar(select(AuditEntry.id).where(
            AuditEntry.action == "notice_copy_remitted", AuditEntry.entity_id == str(notice_id)))
        return (row.remitted_on, row.remitted_via, row.remittance_ref, notice.ack_name,
                remitted is not None)


def test_the_holders_own_ciente_delivers_the_holders_copy(app, client):
    out = company_notice(app, owner_driver=True)
    day, via, ref, ack, audited = _copy(app, out["notice_id"])
    assert ack and day is not None and via == "ciente" and "mesmo CPF" in ref and audited
    client.login(out["sup"])
    page = client.get(f"/revisao/atos/{out['act_id']}").get_data(as_text=True)
    assert "ciente do próprio titular na rua (mesmo CPF)" in page
    assert "Registrar a remessa da cópia" not in page


def test_an_auxiliarys_ciente_leaves_the_holders_copy_to_be_remitted(app, client):
    out = company_notice(app)
    day, via, _, ack, audited = _copy(app, out["notice_id"])
    assert ack and day is None and via is None and not audited
    client.login(out["sup"])
    page = client.get(f"/revisao/atos/{out['act_id']}").get_data(as_text=True)
    assert "Registrar a remessa da cópia" in page and "pendente" in page
