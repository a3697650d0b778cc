"""Notifications: Web Push subscriptions, the in-app list, the holders' notice pages.
Every URL of the area is in the table below."""
from flask import Blueprint

from inspector.blueprints.fragments import add_routes
from inspector.blueprints.notifications import holder, routes

bp = Blueprint("notifications", __name__)
# rate-limited: JSON for the API, a small pt-BR page for the holder
bp.register_error_handler(429, holder.too_many)

ROUTES = [  # (method, rule, view); the endpoint is the view's name: notifications.<name>
    ("GET", "/api/push/public-key", routes.public_key),
    ("POST", "/api/push/subscriptions", routes.subscribe),
    ("DELETE", "/api/push/subscriptions", routes.unsubscribe),
    ("GET", "/notificacoes", routes.index),
    ("POST", "/notificacoes/ler", routes.mark_read),
    ("GET", "/notificacoes/<path:number>", holder.holder_notice),
    ("GET", "/notificacoes/<path:number>/pdf", holder.holder_pdf),
    ("POST", "/notificacoes/<path:number>", holder.holder_code),
    ("POST", "/notificacoes/<path:number>/vistoria", holder.holder_book_vistoria),
    ("POST", "/notificacoes/consulta", holder.holder_lookup),
    ("POST", "/api/push/notice-subscriptions", holder.holder_subscribe),
    ("DELETE", "/api/push/notice-subscriptions", holder.holder_unsubscribe),
]
add_routes(bp, ROUTES)
