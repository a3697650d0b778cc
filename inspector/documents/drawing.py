"""A notice's PDF as it would be issued now, drawn from the database and nothing stored:
the notice itself (issuing.py keeps it) and the company's copy (copies.py) are both drawn
here, from one reading of its content (`notice_sheet`)."""
from __future__ import annotations

from dataclasses import replace

from flask import current_app

from inspector.credentials import DEFAULT_BASE_URL
from inspector.documents.content import anchored, build_sheet
from inspector.documents.pdf import Sheet, render
from inspector.extensions import db
from inspector.models import Municipality, Notice


def _base() -> str:
    return (current_app.config.get("PUBLIC_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")


def authenticity_url(town_slug: str, number: str) -> str:
    """The absolute URL of a document's public page (what its QR code encodes)."""
    return f"{_base()}/documentos/{town_slug}/{number}"


def holder_url(number: str) -> str:
    """Where the holder follows the notice and subscribes to its reminders, with the code."""
    return f"{_base()}/notificacoes/{number}"


def town_of(notice: Notice) -> Municipality:
    """The town that issued the notice."""
    return db.session.get(Municipality, notice.municipality_id)


def notice_sheet(notice: Notice, access_code: str | None = None) -> Sheet:
    """What the notice's PDF prints, read from the database (queries, photo thumbnails),
    without the audit log's tail or a copy mark: `render_notice_pdf(..., sheet=)` adds them."""
    return build_sheet(notice, url=authenticity_url(town_of(notice).slug, notice.number),
                       access_code=access_code, holder_url=holder_url(notice.number))


def render_notice_pdf(notice: Notice, access_code: str | None = None,
                      anchor: tuple[int, str] | None = None,
                      copy_mark: str | None = None, *, sheet: Sheet | None = None) -> bytes:
    """The PDF of a notice as it would be issued now (nothing stored); `anchor`: the audit
    town chain's last entry (seq, hash) to print, as at issuance (audit.head); `copy_mark`: the
    company's copy's "CÓPIA — remetida à empresa ..." on every page; `sheet`: the notice's
    content already read (`notice_sheet`, same access code), so that the notice and its
    company's copy are drawn from one reading."""
    if sheet is None:
        sheet = notice_sheet(notice, access_code)
    elif sheet.number != notice.number or sheet.access_code != access_code:
        raise ValueError("the sheet given is not this notice's with this access code")
    sheet = anchored(sheet, anchor)
    if copy_mark:
        sheet = replace(sheet, copy_mark=copy_mark)
    return render(sheet)
