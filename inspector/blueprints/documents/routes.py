"""`/documentos/<town>/<number>`: anyone checks a document (number, kind, town, issue date,
status, SHA-256 of the PDF, and whether a file they hold is that PDF); signed-in staff of
the town (supervisors, admins, the agent who inspected) download the PDF.

Notice numbers are unique per town ("NOT-2026/000001" exists in every town), hence the
town's slug in the URL. The PDFs are made by the enforcement listener (services/notice_documents).
"""
from __future__ import annotations

from flask import Response, abort, g, make_response, render_template, request

from inspector import clock, documents, vistorias
from inspector.blueprints.vistorias.pages import certificate_document, check_copy
from inspector.extensions import db, limiter
from inspector.models import Inspection, Municipality, Role
from inspector.security import config_limit, no_store, public, roles_required, town_id

CHECK_RESULTS = {
    "current": ("b-regular", "O arquivo é este documento, na versão em vigor."),
    "superseded": ("b-suspended", "O arquivo é uma versão anterior deste documento, "
                                  "substituída por uma reimpressão com novo código de acesso."),
    "company_copy": ("b-regular", "O arquivo é a cópia deste documento remetida à empresa, "
                                  "como emitida."),
    "different": ("b-irregular", "O arquivo NÃO é este documento: o SHA-256 não confere. "
                                 "Ele pode ter sido alterado."),
}


_page_limit = config_limit("DOCUMENT_RATE_LIMIT", "30 per minute;300 per hour")


_check_limit = config_limit("DOCUMENT_CHECK_RATE_LIMIT", "10 per minute;60 per hour")


def too_many(_e):
    """A small pt-BR page for a rate-limited visitor."""
    return no_store(make_response(render_template(
        "public/message.html", title="Muitas tentativas",
        message="Aguarde alguns minutos e tente de novo."), 429))


def _page(town: str, number: str, result: str | None = None, error: str = "", status: int = 200):
    notice = documents.find_notice(town, number)
    if notice is None:  # a certificado de vistoria is a document of the town too
        row = db.session.scalar(db.select(Municipality).where(Municipality.slug == town))
        page = certificate_document(town, number, clock.today(row), result, error, status) \
            if row is not None else None
        if page is not None:
            return page
        return no_store(make_response(render_template(
            "public/message.html", title="Documento não encontrado",
            message=f"Nenhum documento nº {number} foi emitido por este município. "
                    "Confira o número impresso."), 404))
    view = documents.public_view(notice)
    return no_store(make_response(render_template(
        "documents/authenticity.html", view=view, town_slug=town,
        result=CHECK_RESULTS.get(result) if result else None, error=error), status))


@public
@limiter.limit(_page_limit)
def authenticity(town: str, number: str):
    """The public page of a document: what it is, its status, the SHA-256 of its PDF."""
    return _page(town, number)


@public
@limiter.limit(_check_limit)
def check(town: str, number: str):
    """Compare an uploaded PDF with the document's hash (the file is not kept)."""
    notice = documents.find_notice(town, number)
    upload = request.files.get("arquivo")
    if notice is None:
        data = upload.read() if upload else b""
        found = check_copy(town, number, data) if data else None
        if data or found is not None:
            return _page(town, number, result=found)
        return _page(town, number, error="Escolha o arquivo PDF a conferir.",
                     status=422 if vistorias.find_certificate(town, number) else 200)
    data = upload.read() if upload else b""
    if not data:
        return _page(town, number, error="Escolha o arquivo PDF a conferir.", status=422)
    return _page(town, number, result=documents.check_copy(notice, data))


@roles_required(Role.SUPERVISOR, Role.ADMIN, Role.AGENT)
def download(town: str, number: str):
    """The PDF as issued: the town's supervisors and admins, and the agent who inspected."""
    notice = documents.find_notice(town, number)
    if notice is None or notice.municipality_id != town_id():
        abort(404)
    if g.user.role == Role.AGENT:
        insp = db.session.get(Inspection, notice.inspection_id) if notice.inspection_id else None
        if insp is None or insp.agent_id != g.user.id:
            abort(404)
    doc = documents.current_document(notice)
    if doc is None:
        abort(404)
    resp = Response(doc.pdf, mimetype="application/pdf")
    name = notice.number.replace("/", "-")
    resp.headers["Content-Disposition"] = f'inline; filename="{name}.pdf"'
    resp.headers["Cache-Control"] = "private, no-store"
    resp.headers["X-Content-SHA256"] = doc.sha256
    return resp
