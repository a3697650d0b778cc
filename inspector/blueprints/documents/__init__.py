"""Legal documents: the public authenticity page of a notice and the PDF download, and the
company's copy of a rider's notice. Every URL of the area is in the table below."""
from flask import Blueprint

from inspector.blueprints.documents import copies, routes
from inspector.blueprints.fragments import add_routes

bp = Blueprint("documents", __name__)
bp.register_error_handler(429, routes.too_many)  # a small pt-BR page for a rate-limited visitor

ROUTES = [  # (method, rule, view); the endpoint is the view's name: documents.<name>
    ("GET", "/documentos/<town>/<path:number>", routes.authenticity),
    ("POST", "/documentos/<town>/<path:number>/conferir", routes.check),
    ("GET", "/documentos/<town>/<path:number>/pdf", routes.download),
    ("GET", "/revisao/atos/<int:ident>/copia-empresa.pdf", copies.copy_pdf),
    ("POST", "/revisao/atos/<int:ident>/copia-empresa", copies.record_copy),
]
add_routes(bp, ROUTES)
