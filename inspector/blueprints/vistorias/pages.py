"""The certificate's public pages, called from the passenger's `/v/<token>` and from
`/documentos/<town>/<number>` (no login, no personal data)."""
from __future__ import annotations

import hashlib
from datetime import date

from flask import make_response, render_template

from inspector import vistorias
from inspector.security import no_store


def certificate_check(token: str, today: date):
    """The page a certificate's QR opens: is this vistoria valid right now?"""
    found, _state = vistorias.find_by_token(token, today)
    view = vistorias.certificate_view(found, today)
    return no_store(make_response(render_template("vistorias/certificate_check.html", view=view,
                                                  document=False, result=None, error=""),
                                  404 if view.state == "unknown" else 200))


def certificate_document(town: str, number: str, today: date, result: str | None = None,
                         error: str = "", status: int = 200):
    """The certificate as a document of the town (/documentos): its state and PDF hash, or
    None when no certificate has this number."""
    found = vistorias.find_certificate(town, number)
    if found is None:
        return None
    view = vistorias.certificate_view(found, today)
    return no_store(make_response(render_template(
        "vistorias/certificate_check.html", view=view, document=True, result=result,
        error=error), status))


def check_copy(town: str, number: str, data: bytes) -> str | None:
    """'current' when the uploaded file is the certificate's PDF, else 'different'; None when
    no certificate has this number."""
    found = vistorias.find_certificate(town, number)
    if found is None or not found.pdf_sha256:
        return None
    # the PDF's SHA-256 is printed on the public page: nothing secret to compare in constant time
    return "current" if hashlib.sha256(data).hexdigest() == found.pdf_sha256 else "different"
