"""Supervisor review: the queue of inspections, an inspection with its photos and
proposed acts, the acts list and what expires soon. Supervisors and admins, own town only.

Every URL of the review is in the table below; each view module only defines functions."""
from flask import Blueprint

from inspector.blueprints.fragments import add_routes
from inspector.blueprints.review import actions, fines, grants, photos, routes

bp = Blueprint("review", __name__, url_prefix="/revisao")

ROUTES = [  # (method, rule, view); the endpoint is the view's name: review.<name>
    ("GET", "", routes.queue),
    ("GET", "/vistorias/<int:ident>", routes.inspection),
    ("GET", "/vistorias/<int:ident>/assinatura.png", routes.signature),
    ("GET", "/atos", routes.acts),
    ("GET", "/prazos", routes.deadlines),
    ("GET", "/atos/<int:ident>", actions.act),
    ("POST", "/atos/<int:ident>/confirmar", actions.confirm),
    ("POST", "/atos/<int:ident>/alterar", actions.amend),
    ("POST", "/atos/<int:ident>/rejeitar", actions.reject),
    ("POST", "/atos/<int:ident>/prefeito", actions.mayor),
    ("POST", "/atos/<int:ident>/recurso", actions.appeal),
    ("POST", "/atos/<int:ident>/entrega", actions.deliver),
    ("POST", "/recursos/<int:ident>/decidir", actions.decide_appeal),
    ("POST", "/vistorias/<int:ident>/comentar", actions.comment),
    ("POST", "/vistorias/<int:ident>/revisada", actions.reviewed),
    ("POST", "/vistorias/<int:ident>/propor", actions.propose),
    ("POST", "/vistorias/<int:ident>/sancoes", actions.choose),
    ("POST", "/atos/<int:ident>/pagamento", fines.payment),
    ("POST", "/pagamentos/<int:ident>/estorno", fines.reverse_payment),
    ("GET", "/multas", fines.open_fines),
    ("POST", "/atos/<int:ident>/prazo", grants.grant_deadline),
    ("POST", "/atos/<int:ident>/prazo/retirar", grants.remove_grant),
    ("GET", "/fotos/<int:ident>/<any(mini, zoom):size>.jpg", photos.photo_rendition),
    ("GET", "/fotos/<int:ident>/original", photos.photo_original),
    ("GET", "/fotos/<int:ident>/ampliar", photos.photo_zoom),
    ("GET", "/vazio", photos.empty),
]
add_routes(bp, ROUTES)
