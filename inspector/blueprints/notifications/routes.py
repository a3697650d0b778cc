"""Notifications: the VAPID public key, push subscriptions of signed-in users, the in-app
list (`/notificacoes`) and the unread count in the nav. The holders' pages are in
`holder.py`; the URLs of both are in this package's `__init__`; docs/notifications.md."""
from __future__ import annotations

from flask import Response, g, jsonify, redirect, render_template, request, url_for
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from inspector import bodies, clock, notifications
from inspector.blueprints.notifications.holder import lookup_form
from inspector.errors import error_body, error_response, on_refusal
from inspector.extensions import db
from inspector.models import Notification
from inspector.security import login_required, public, safe_redirect_target, whole_number

PAGE = 50


def unread_count() -> int:
    """How many of the signed-in user's notifications are unread (0 when signed out)."""
    user = g.get("user")
    if user is None:
        return 0
    return db.session.scalar(select(func.count(Notification.id)).where(
        Notification.user_id == user.id, Notification.read_at.is_(None))) or 0


def _json_error(status: int, message: str, fields: dict | None = None) -> Response:
    return jsonify(error_body(status, message, fields=fields or None)), status


@public
def public_key():
    """The VAPID public key browsers subscribe with (`applicationServerKey`)."""
    resp = jsonify({"publicKey": notifications.public_key()})
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@login_required
@on_refusal(says="Inscrição recusada")
def subscribe():
    """Save this browser's push subscription for the signed-in user."""
    body = bodies.parse(notifications.UserSubscribe, request.get_data(cache=False))
    try:
        row, created = notifications.save_subscription(
            notifications.subscription_of(body).model_dump(), user=g.user,
            user_agent=request.user_agent.string or "")
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        return _json_error(409, "Outra inscrição deste navegador chegou ao mesmo tempo: "
                                "tente de novo.")
    return jsonify({"id": row.id, "created": created}), 201 if created else 200


@login_required
@on_refusal(says="Pedido recusado")
def unsubscribe():
    """Stop pushes to this browser (the endpoint must be one of the user's)."""
    body = bodies.parse(notifications.UserUnsubscribe, request.get_data(cache=False))
    if not notifications.remove_subscription(notifications.subscription_of(body).endpoint, user=g.user):
        return _json_error(404, "Este navegador não está inscrito para receber notificações.")
    db.session.commit()
    return Response(status=204)


@public
def index():
    """Signed in: the user's notifications (newest first). Anyone else: the holder's form."""
    if g.get("user") is None:
        return lookup_form()
    page = whole_number(request.args.get("pagina"), 1, hi=100_000)
    rows = db.session.scalars(
        select(Notification).where(Notification.user_id == g.user.id)
        .order_by(Notification.created_at.desc(), Notification.id.desc())
        .limit(PAGE + 1).offset((page - 1) * PAGE)).all()
    return render_template("notifications/list.html", rows=rows[:PAGE], page=page,
                           more=len(rows) > PAGE, unread=unread_count(),
                           subscribed=notifications.count_subscriptions(g.user))


@login_required
def mark_read():
    """Mark one notification (`id`) or all of the user's (`todas`) as read; `abrir` follows
    the notification's link."""
    now = clock.now()
    q = update(Notification).where(Notification.user_id == g.user.id,
                                   Notification.read_at.is_(None))
    ident = whole_number(request.form.get("id"))
    if ident is None and request.form.get("id"):
        return error_response(404, "Notificação não encontrada.")
    if ident is not None:
        q = q.where(Notification.id == ident)
    elif not request.form.get("todas"):
        return error_response(400, "Diga qual notificação marcar como lida.")
    db.session.execute(q.values(read_at=now))
    db.session.commit()
    if ident is not None and request.form.get("abrir"):
        note = db.session.get(Notification, ident)
        if note is not None and note.user_id == g.user.id:
            return redirect(safe_redirect_target(note.url, url_for("notifications.index")), 303)
    return redirect(url_for("notifications.index"), 303)



