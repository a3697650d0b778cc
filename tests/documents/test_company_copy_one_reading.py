"""The company's copy (Tapurah Lei 406/2001 Art. 27 I) is drawn from the content read for
the notice: the database is read once per issued notice, and both PDFs are byte for byte
what a fresh reading gives, each with the audit log's tail when it was made: the last entry
committed before the transaction that issued them (their own entries are chained at its
commit). SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re

from sqlalchemy import select

from inspector import audit
from inspector.documents import content, copies, drawing, issuing
from inspector.extensions import db
from inspector.models import AuditEntry, Notice, NoticeDocument
from inspector.models.enforcement import NoticeCompanyCopy
from tests import factories
from tests.support.documents import COMPANY, company_notice, pdf_text


def _entry(action: str, notice_id: int) -> AuditEntry:
    return db.session.scalars(select(AuditEntry).where(
        AuditEntry.action == action, AuditEntry.entity == "notice",
        AuditEntry.entity_id == str(notice_id))).one()


def _printed_anchor(pdf: bytes, tmp_path) -> tuple[int, str]:
    """The audit entry a document names as the log's tail, as the log holds it."""
    seq = int(re.search(r"terminava na entrada nº (\d+)", pdf_text(pdf, tmp_path)).group(1))
    entry = db.session.scalars(select(AuditEntry).where(AuditEntry.seq == seq)).one()
    return entry.seq, entry.hash


def test_a_tapurah_notice_and_its_copy_read_the_database_once(app, monkeypatch):
    calls = []
    real = content.build_sheet

    def counted(*a, **kw):
        calls.append(a[0].number)
        return real(*a, **kw)

    monkeypatch.setattr(drawing, "build_sheet", counted)
    out = company_notice(app)
    assert calls == [out["number"]]  # two PDFs, one reading
    with app.app_context():
        assert db.session.scalar(select(NoticeCompanyCopy.notice_id)) == out["notice_id"]
        assert db.session.scalar(select(NoticeDocument.notice_id)) == out["notice_id"]


def test_both_pdfs_are_what_a_fresh_reading_gives_with_the_logs_tail_when_made(app, tmp_path):
    with app.app_context():  # the town's chain already holds its setup, as any town's does
        town = factories.town("tapurah")
        audit.record("town_setup", "municipality", town.id, actor="teste",
                     municipality_id=town.id)
        db.session.commit()
    out = company_notice(app)
    with app.app_context():
        notice = db.session.get(Notice, out["notice_id"])
        original = db.session.scalar(select(NoticeDocument).where(
            NoticeDocument.notice_id == notice.id))
        copy = copies.copy_of(notice)
        issued = _entry("notice_document_issued", notice.id)
        made = _entry("notice_company_copy_made", notice.id)
        anchor = _printed_anchor(original.pdf, tmp_path)
        # made in one transaction, both name the last entry committed before it, which
        # precedes the records of their own issue
        assert _printed_anchor(copy.pdf, tmp_path) == anchor
        assert anchor[0] < issued.seq < made.seq
        assert anchor[1] in pdf_text(original.pdf, tmp_path)
        fresh = issuing.render_notice_pdf(notice, out["code"], anchor)
        assert original.pdf == fresh
        fresh_copy = issuing.render_notice_pdf(
            notice, out["code"], anchor, copy_mark=copies.copy_mark(COMPANY))
        assert copy.pdf == fresh_copy and copy.pdf != fresh
        # one reading drawn twice gives the same bytes as two readings
        sheet = issuing.notice_sheet(notice, out["code"])
        assert issuing.render_notice_pdf(notice, out["code"], anchor,
                                                  sheet=sheet) == fresh
        assert issuing.render_notice_pdf(
            notice, out["code"], anchor,
            copy_mark=copies.copy_mark(COMPANY), sheet=sheet) == fresh_copy
