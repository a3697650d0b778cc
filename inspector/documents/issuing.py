"""Legal documents: the PDF of each notice, warning, infraction record and decision.

The PDF is made once, when the enforcement services issue the notice (listener on
`notice_issued`, the only moment the holder's access code exists in clear), and kept with
its SHA-256 in `notice_documents`: the authenticity page shows that hash, so anyone can
check a printed or forwarded copy. A reprint with a new access code makes a new version
and supersedes the old one. No Flask request here; see docs/documents.md.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, select

from inspector import audit, clock
from inspector.documents.content import KIND_NAMES, day, utc
from inspector.documents.copies import copy_of, make_copy
from inspector.documents.drawing import notice_sheet, render_notice_pdf, town_of
from inspector.documents.pdf import Sheet
from inspector.extensions import db
from inspector.models import (
    DECIDED,
    Municipality,
    Notice,
    NoticeDocument,
    SanctionStatus,
)

PUBLIC_STATUS = {
    SanctionStatus.PROPOSED: "Em análise",
    SanctionStatus.CONFIRMED: "Em vigor",
    SanctionStatus.AMENDED: "Em vigor",
    SanctionStatus.COMPLIED: "Cumprido",
    SanctionStatus.CONVERTED_TO_DAILY_FINE: "Não cumprido no prazo: convertido em multa diária",
    SanctionStatus.APPEALED: "Em recurso (aguarda decisão)",
    SanctionStatus.APPEAL_ACCEPTED: "Anulado: recurso provido",
    SanctionStatus.APPEAL_REFUSED: "Em vigor: recurso negado",
    SanctionStatus.CLOSED: "Encerrado",
    SanctionStatus.REJECTED: "Anulado",
}


def current_document(notice: Notice) -> NoticeDocument | None:
    """The version of the notice's PDF in force (the latest), or None."""
    return db.session.scalar(select(NoticeDocument).where(NoticeDocument.notice_id == notice.id)
                             .order_by(NoticeDocument.version.desc()).limit(1))


def _store(notice: Notice, pdf: bytes, now: datetime, reason: str, actor) -> NoticeDocument:
    version = 1 + (db.session.scalar(select(func.max(NoticeDocument.version))
                                     .where(NoticeDocument.notice_id == notice.id)) or 0)
    doc = NoticeDocument(municipality_id=notice.municipality_id, notice_id=notice.id,
                         version=version, sha256=hashlib.sha256(pdf).hexdigest(),
                         size=len(pdf), pdf=pdf, created_at=utc(now), reason=reason)
    db.session.add(doc)
    db.session.flush()
    audit.record("notice_document_issued", "notice", notice.id, actor=actor,
                 municipality_id=notice.municipality_id,
                 after={"number": notice.number, "version": version, "sha256": doc.sha256,
                        "size": doc.size, "reason": reason})
    return doc


def issue_document(notice: Notice, access_code: str | None, *, actor=None,
                   sheet: Sheet | None = None) -> NoticeDocument:
    """Make and keep the notice's PDF as issued (idempotent: an existing one is returned);
    `sheet`: its content already read (`notice_sheet`)."""
    found = current_document(notice)
    if found is not None:
        return found
    act = notice.sanction
    actor = actor or act.decided_by_user or "enforcement-tick"
    pdf = render_notice_pdf(notice, access_code, audit.head(notice.municipality_id), sheet=sheet)
    return _store(notice, pdf, utc(notice.issued_at), "emissão", actor)


def reissue_document(notice: Notice, *, actor, now: datetime) -> tuple[NoticeDocument, str]:
    """A reprint with a new access code (the old code and paper are superseded)."""
    from inspector.enforcement import reset_access_code
    code = reset_access_code(notice, actor=actor)
    doc = _store(notice, render_notice_pdf(notice, code, audit.head(notice.municipality_id)), now,
                 "reemissão: novo código de acesso", actor)
    return doc, code


def _on_notice_issued(notice: Notice, act=None, access_code: str | None = None, **_) -> None:
    # The content is read once for the notice and, where the law asks for one, the company's
    # copy; each is then drawn with its own audit anchor (see notice_copies.make_copy).
    sheet = notice_sheet(notice, access_code)
    issue_document(notice, access_code, sheet=sheet)
    make_copy(notice, access_code, sheet=sheet)  # the company's copy, where the law asks


def install_document_hooks() -> bool:
    """Make the PDF whenever the enforcement services issue a notice (create_app calls it)."""
    from inspector import enforcement
    enforcement.subscribe("notice_issued", _on_notice_issued)
    return True


# --- public page ----------------------------------------------------------------------------
def find_notice(town_slug: str, number: str) -> Notice | None:
    """The notice with this number in this town, or None."""
    return db.session.scalar(select(Notice).join(Municipality,
                                                 Municipality.id == Notice.municipality_id)
                             .where(Municipality.slug == town_slug, Notice.number == number))


def appeal_window_note(act, today: date | None = None) -> str | None:
    """While an appeal that would suspend the act can still be filed, the act is not in force
    yet (Nortelândia Lei 030/1998 Art. 16 § 2º: the appeal, within 10 days of the notice, is
    "com efeito suspensível"): 'Prazo de recurso aberto até dd/mm/aaaa (o recurso tem efeito
    suspensivo)'; None for any other act or once the window closed or an appeal was filed."""
    if act.appeal_suspensive is not True or act.suspended or \
            act.status not in DECIDED:
        return None
    if act.appeal_until is None:   # decided, not yet delivered: the window has not opened
        if act.appeal_days and act.notified_at is None and act.decided_at is not None:
            return (f"Prazo de recurso de {act.appeal_days} dias a contar da entrega do "
                    "documento (o recurso tem efeito suspensivo)")
        return None
    if (today or clock.today(db.session.get(Municipality, act.municipality_id))) > act.appeal_until:
        return None
    return f"Prazo de recurso aberto até {day(act.appeal_until)} (o recurso tem efeito suspensivo)"


def public_status(notice: Notice, today: date | None = None) -> str:
    """What the act stands at now, in pt-BR words a citizen understands: not "Em vigor" while
    a suspensive appeal can still be filed (`appeal_window_note`) or holds it."""
    act = notice.sanction
    note = appeal_window_note(act, today)
    if note:
        return note
    text = PUBLIC_STATUS.get(act.status, act.status_label)
    if act.suspended:
        text += " (efeitos suspensos pelo recurso)"
    return text


@dataclass(frozen=True)
class PublicView:
    """All the authenticity page shows: no names, no plates, no personal data."""

    number: str
    kind: str
    town: str
    issued_on: str
    status: str
    sha256: str | None
    version: int | None
    superseded: tuple[tuple[int, str], ...]  # (version, sha256) of earlier prints
    payment: str | None = None   # a fine: "quitada", "paga parcialmente", "em aberto"...
    company_copy_sha256: str | None = None  # the copy sent to the company (Tapurah Art. 27 I)


def public_view(notice: Notice) -> PublicView:
    """The authenticity page's content for a notice."""
    docs = db.session.execute(select(NoticeDocument.version, NoticeDocument.sha256)
                              .where(NoticeDocument.notice_id == notice.id)
                              .order_by(NoticeDocument.version.desc())).all()
    current = docs[0] if docs else None
    from inspector.enforcement import balance_of
    balance = balance_of(notice.sanction)
    return PublicView(
        number=notice.number, kind=KIND_NAMES.get(notice.document_kind, notice.document_kind),
        town=town_of(notice).name, issued_on=day(clock.town_day(town_of(notice), notice.issued_at)),
        status=public_status(notice), sha256=current.sha256 if current else None,
        version=current.version if current else None,
        superseded=tuple((v, s) for v, s in docs[1:]),
        payment=balance.label if balance is not None else None,
        company_copy_sha256=_copy_sha256(notice))


def _copy_sha256(notice: Notice) -> str | None:
    row = copy_of(notice)
    return row.sha256 if row is not None else None


def check_copy(notice: Notice, data: bytes) -> str:
    """Whether a file is this document: "current", "superseded", "company_copy" (the copy
    sent to the company) or "different"."""
    digest = hashlib.sha256(data).hexdigest()
    versions = db.session.execute(select(NoticeDocument.version).where(
        NoticeDocument.notice_id == notice.id, NoticeDocument.sha256 == digest)).scalars().all()
    if not versions:
        return "company_copy" if _copy_sha256(notice) == digest else "different"
    latest = current_document(notice)
    return "current" if latest is not None and latest.version in versions else "superseded"
