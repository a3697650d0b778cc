"""Push subscriptions: checking what a browser sends, saving it for a user or a holder,
removing it.

The server will POST to whatever endpoint is saved, so an endpoint must be one the sender
may reach (`outbound.check_endpoint`: https on a known push service, read as the HTTP client
reads it) and its name must not resolve to an internal address now (the sender checks again
on every connection).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import logging
from datetime import datetime

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import select

from inspector import clock
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Holder, Notice, PushSubscription, User
from inspector.notifications.outbound import (
    MAX_ENDPOINT,
    PUSH_SERVICE_HOSTS,
    REFUSED,
    RefusedDestination,
    check_endpoint,
    resolves_inside,
)
from inspector.notifications.push import drop_subscription

log = logging.getLogger(__name__)


def _b64url(value, field: str, size: int) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(str(value) + "=" * (-len(str(value)) % 4))
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise ValidationFailed({field: "Chave da inscrição inválida: ative as notificações "
                                       "de novo."})
    return raw


def clean(data) -> dict:
    """A browser's PushSubscription JSON, checked: endpoint, p256dh and auth (base64url)."""
    if not isinstance(data, dict):
        raise ValidationFailed({"subscription": "Envie a inscrição do navegador (JSON)."})
    endpoint = str(data.get("endpoint") or "").strip()
    keys = data.get("keys") if isinstance(data.get("keys"), dict) else {}
    try:
        check_endpoint(endpoint)
        if resolves_inside(endpoint):
            raise RefusedDestination("the endpoint's name resolves to an internal address")
    except RefusedDestination as e:
        log.warning("push subscription refused: %s", e)
        raise ValidationFailed({"endpoint": REFUSED}) from None
    p256dh = _b64url(keys.get("p256dh", ""), "p256dh", 65)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), p256dh)
    except ValueError:
        raise ValidationFailed({"p256dh": "Chave da inscrição inválida: ative as notificações "
                                          "de novo."}) from None
    _b64url(keys.get("auth", ""), "auth", 16)
    return {"endpoint": endpoint, "p256dh": str(keys["p256dh"]).rstrip("="),
            "auth": str(keys["auth"]).rstrip("=")}


def endpoint_hash(endpoint: str) -> str:
    """SHA-256 (hex) of an endpoint: one browser, one row."""
    return hashlib.sha256(endpoint.encode()).hexdigest()


def save_subscription(data, *, user: User | None = None, holder: Holder | None = None,
         notice: Notice | None = None, user_agent: str = "",
         now: datetime | None = None) -> tuple[PushSubscription, bool]:
    """Save a subscription for a user or a holder (the browser's earlier owner is replaced);
    returns (row, created). In the caller's transaction."""
    if (user is None) == (holder is None):
        raise ValueError("a subscription belongs to a user or to a holder")
    sub = clean(data)
    now = now or clock.now()
    digest = endpoint_hash(sub["endpoint"])
    row = db.session.scalar(select(PushSubscription).where(
        PushSubscription.endpoint_sha256 == digest).with_for_update())
    created = row is None
    if created:
        row = PushSubscription(endpoint=sub["endpoint"], endpoint_sha256=digest, created_at=now)
        db.session.add(row)
    row.p256dh, row.auth = sub["p256dh"], sub["auth"]
    row.user_id = user.id if user is not None else None
    row.holder_id = holder.id if holder is not None else None
    row.notice_id = notice.id if notice is not None else None
    row.user_agent = (user_agent or "")[:200]
    db.session.flush()
    return row, created


def remove_subscription(endpoint: str, *, user: User | None = None, holder_ids=()) -> bool:
    """Delete the subscription of this endpoint if it belongs to the user (or to one of the
    holders); False when there is none of theirs. In the caller's transaction."""
    row = db.session.scalar(select(PushSubscription).where(
        PushSubscription.endpoint_sha256 == endpoint_hash(str(endpoint or "").strip())))
    if row is None:
        return False
    mine = (user is not None and row.user_id == user.id) or \
        (row.holder_id is not None and row.holder_id in set(holder_ids))
    if not mine:
        return False
    drop_subscription(row.id, clock.now(), reason="unsubscribed")
    return True


def release_on_sign_out(endpoint) -> bool:
    """A browser signs out: the subscription of this endpoint stops being any user's (deleted,
    its pending deliveries dropped), so the phone's next user gets none of the previous one's
    notifications. A holder's subscription is left alone (it is not tied to a sign-in).
    Knowing the endpoint is the proof: only that browser and this server hold it. False when
    no user's subscription has it. In the caller's transaction."""
    endpoint = str(endpoint or "").strip()
    if not endpoint or len(endpoint) > MAX_ENDPOINT:
        return False
    row = db.session.scalar(select(PushSubscription).where(
        PushSubscription.endpoint_sha256 == endpoint_hash(endpoint)))
    if row is None or row.user_id is None or row.endpoint != endpoint:
        return False
    drop_subscription(row.id, clock.now(), reason="signed out")
    return True


def count_subscriptions(user: User) -> int:
    """How many browsers of this user get pushes."""
    return len(db.session.scalars(select(PushSubscription.id).where(
        PushSubscription.user_id == user.id)).all())


__all__ = ["PUSH_SERVICE_HOSTS", "clean", "count_subscriptions", "endpoint_hash", "release_on_sign_out",
           "remove_subscription", "save_subscription"]
