"""The company's copy (Tapurah Lei 406/2001 Art. 27 I) is drawn from the content read for
the notice: the database is read once per issued notice, and both PDFs are byte for byte
what a fresh reading gives, each with the audit log's tail when it was made (the copy's is
the original's `notice_document_issued` entry). SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from sqlalchemy import select

from inspector.documents import content as notice_content
from inspector.documents import copies as notice_copies
from inspector.documents import issuing as notice_documents
from inspector.extensions import db
from inspector.models import AuditEntry, Notice, NoticeDocument
from inspector.models.enforcement import NoticeCompanyCopy
from tests.support.documents import COMPANY, company_notice


def _entry(action: str, notice_id: int) -> AuditEntry:
    return db.session.scalars(select(AuditEntry).where(
        AuditEntry.action == action, AuditEntry.entity == "notice",
        AuditEntry.entity_id == str(notice_id))).one()


def _before(entry: AuditEntry) -> tuple[int, str]:
    """The log's tail just before an entry was appended: (seq, hash)."""
    prev = db.session.scalars(select(AuditEntry).where(AuditEntry.seq < entry.seq)
                              .order_by(AuditEntry.seq.desc()).limit(1)).one()
    return prev.seq, prev.hash


def test_a_tapurah_notice_and_its_copy_read_the_database_once(app, monkeypatch):
    calls = []
    real = notice_content.build_sheet

    def counted(*a, **kw):
        calls.append(a[0].number)
        return real(*a, **kw)

    monkeypatch.setattr(notice_documents, "build_sheet", counted)
    out = company_notice(app)
    assert calls == [out["number"]]  # two PDFs, one reading
    with app.app_context():
        assert db.session.scalar(select(NoticeCompanyCopy.notice_id)) == out["notice_id"]
        assert db.session.scalar(select(NoticeDocument.notice_id)) == out["notice_id"]


def test_both_pdfs_are_what_a_fresh_reading_gives_each_with_its_own_anchor(app):
    out = company_notice(app)
    with app.app_context():
        notice = db.session.get(Notice, out["notice_id"])
        original = db.session.scalar(select(NoticeDocument).where(
            NoticeDocument.notice_id == notice.id))
        copy = notice_copies.copy_of(notice)
        issued = _entry("notice_document_issued", notice.id)
        made = _entry("notice_company_copy_made", notice.id)
        anchor = _before(issued)
        assert _before(made) == (issued.seq, issued.hash)  # the copy's tail: one further
        fresh = notice_documents.render_notice_pdf(notice, out["code"], anchor)
        assert original.pdf == fresh
        fresh_copy = notice_documents.render_notice_pdf(
            notice, out["code"], (issued.seq, issued.hash),
            copy_mark=notice_copies.copy_mark(COMPANY))
        assert copy.pdf == fresh_copy and copy.pdf != fresh
        # one reading drawn twice gives the same bytes as two readings
        sheet = notice_documents.notice_sheet(notice, out["code"])
        assert notice_documents.render_notice_pdf(notice, out["code"], anchor,
                                                  sheet=sheet) == fresh
        assert notice_documents.render_notice_pdf(
            notice, out["code"], (issued.seq, issued.hash),
            copy_mark=notice_copies.copy_mark(COMPANY), sheet=sheet) == fresh_copy
