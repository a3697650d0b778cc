"""The laws as pages anyone can open (/leis), and each town's compliance page (/conformidade)
with its calendar of closures. Every URL of the area is in the table below."""
from flask import Blueprint

from inspector.blueprints.fragments import add_routes
from inspector.blueprints.laws import calendar_views, compliance_views, routes

bp = Blueprint("laws", __name__)

ROUTES = [  # (method, rule, view); the endpoint is the view's name: laws.<name>
    ("GET", "/leis", routes.index),
    ("GET", "/leis/<law_slug>", routes.law),
    ("GET", "/leis/<law_slug>/checklist", routes.checklist),
    ("GET", "/conformidade", compliance_views.compliance),
    ("POST", "/conformidade/decretos", compliance_views.set_decree_value),
    ("GET", "/conformidade/calendario", calendar_views.calendar),
    ("POST", "/conformidade/calendario", calendar_views.add_closure),
    ("POST", "/conformidade/calendario/<int:ident>/remover", calendar_views.remove_closure),
    ("POST", "/conformidade/calendario/ano", calendar_views.set_year),
]
add_routes(bp, ROUTES)
