"""Web Push: the VAPID key, `notify()` (in-app notification + outbox rows) and
`deliver_pending()` (the sender). See docs/notifications.md.

`notify` works in the caller's transaction. `deliver_pending` is its own transactions: it
claims due deliveries with one conditional UPDATE (on PostgreSQL through
`FOR UPDATE SKIP LOCKED`), commits, posts each message with pywebpush (a fresh claims dict
per call, explicit TTL, aes128gcm) and records each answer, so two senders never post the
same delivery and a crash mid-run leaves nothing claimed forever (a claim older than the
lease is taken back).
"""
from __future__ import annotations

import json
import logging
import random
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import requests
from flask import current_app
from py_vapid import Vapid
from py_vapid import _check_sub as valid_subject
from py_vapid.utils import b64urlencode
from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.exc import IntegrityError

from inspector import clock
from inspector.extensions import db, insert_once
from inspector.models import (
    DeliveryStatus,
    Holder,
    Notification,
    PushDelivery,
    PushSubscription,
    User,
    VapidKey,
)
from inspector.notifications import outbound
from inspector.notifications.outbound import RefusedDestination, check_endpoint

log = logging.getLogger(__name__)

DEFAULT_SUBJECT = "mailto:fiscalizacao@example.org"
DEFAULTS = {
    "VAPID_SUBJECT": DEFAULT_SUBJECT,   # `sub` claim: a real mailto: or https: contact
    "VAPID_PRIVATE_KEY": None,          # PEM; None: made on first use and kept in the DB
    "PUSH_TTL_SECONDS": 24 * 3600,      # how long the push service keeps an undelivered message
    "PUSH_TIMEOUT_SECONDS": 10,
    "PUSH_MAX_ATTEMPTS": 8,
    "PUSH_BACKOFF_SECONDS": 60,         # first retry; doubles each attempt
    "PUSH_BACKOFF_MAX_SECONDS": 3600,
    "PUSH_CLAIM_LEASE_SECONDS": 1800,   # a claim older than this was a crashed sender's
    "PUSH_BATCH": 50,                  # x timeout stays well inside the lease
}
MAX_PAYLOAD = 3000  # bytes of JSON; the service limit is about 4 KB after encryption
RETRYABLE = {408, 425, 429}


def setting(name: str):
    """A push setting from the app config, or its default."""
    return current_app.config.get(name, DEFAULTS[name])


def _now(now: datetime | None) -> datetime:
    if now is None:
        return clock.now()
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)


# --- VAPID ----------------------------------------------------------------------------------------
def _public_b64(vapid: Vapid) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = vapid.public_key.public_bytes(serialization.Encoding.X962,
                                        serialization.PublicFormat.UncompressedPoint)
    return b64urlencode(raw)


def vapid_key() -> Vapid:
    """The server's VAPID key: `VAPID_PRIVATE_KEY` from the config, else the one in the
    database, made on first use (two processes racing keep the first one written)."""
    pem = setting("VAPID_PRIVATE_KEY")
    if pem:
        return Vapid.from_pem(pem.encode() if isinstance(pem, str) else pem)
    row = db.session.get(VapidKey, 1)
    if row is None:
        fresh = Vapid()
        fresh.generate_keys()
        if insert_once(VapidKey(id=1, private_pem=fresh.private_pem().decode(),
                                public_key=_public_b64(fresh), created_at=clock.now())):
            log.info("VAPID key pair created")
        db.session.commit()
        row = db.session.get(VapidKey, 1)
    return Vapid.from_pem(row.private_pem.encode())


def public_key() -> str:
    """The VAPID public key (uncompressed P-256 point, base64url): `applicationServerKey`."""
    return _public_b64(vapid_key())


def subject() -> str:
    """The `sub` claim; ValueError when the config holds no real mailto:/https: contact."""
    sub = setting("VAPID_SUBJECT")
    if not sub or not valid_subject(sub):
        raise ValueError(f"VAPID_SUBJECT must be a mailto: or https: contact, not {sub!r}")
    return sub


# --- notify ---------------------------------------------------------------------------------------
def _owner(recipient) -> dict:
    """{"user_id": …} or {"holder_id": …}: the recipient's column of a notification (and of a
    subscription)."""
    if isinstance(recipient, User):
        return {"user_id": recipient.id}
    if isinstance(recipient, Holder):
        return {"holder_id": recipient.id}
    raise TypeError(f"a notification goes to a User or a Holder, not {type(recipient)!r}")


def notify_push(recipient: User | Holder, kind: str, title: str, body: str = "", url: str = "/",
           payload: dict | None = None, *, now: datetime | None = None,
           dedupe_key: str | None = None) -> Notification | None:
    """Create a notification and one pending push delivery per subscription of the
    recipient, in the caller's transaction; None when `dedupe_key` was already used."""
    now = _now(now)
    owner = _owner(recipient)
    note = Notification(kind=kind, title=title[:200], body=body or "", url=url or "/",
                        payload=payload, dedupe_key=dedupe_key, created_at=now, **owner)
    try:
        with db.session.begin_nested():
            db.session.add(note)
            db.session.flush()
    except IntegrityError:
        if dedupe_key is None:
            raise
        return None  # the same trigger already notified this recipient
    subs = db.session.scalars(select(PushSubscription.id).filter_by(**owner)).all()
    for sub_id in subs:
        db.session.add(PushDelivery(notification_id=note.id, subscription_id=sub_id,
                                    status=DeliveryStatus.PENDING, attempts=0,
                                    next_attempt_at=now, created_at=now, updated_at=now))
    db.session.flush()
    return note


def message(note: Notification) -> bytes:
    """The JSON the service worker receives: title, body, url, tag and the payload."""
    out: dict[str, Any] = {"title": note.title, "body": note.body, "url": note.url,
                           "kind": note.kind, "tag": f"n{note.id}", "id": note.id}
    data = json.dumps(out | {"data": note.payload}, ensure_ascii=False,
                      separators=(",", ":"), default=str).encode()
    if len(data) <= MAX_PAYLOAD:
        return data
    out["body"] = note.body[:500]
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode()


# --- deliver --------------------------------------------------------------------------------------
@dataclass
class DeliveryReport:
    """What one `deliver_pending` run did (delivery ids)."""

    sent: list[int] = field(default_factory=list)
    retry: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)

    @property
    def attempted(self) -> int:
        """How many deliveries this run posted (or tried to)."""
        return len(self.sent) + len(self.retry) + len(self.failed) + len(self.dropped)

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"attempted": self.attempted, "sent": self.sent, "retry": self.retry,
                "failed": self.failed, "dropped": self.dropped}


@dataclass(frozen=True)
class _Job:
    id: int
    subscription_id: int
    endpoint: str
    keys: dict
    data: bytes
    attempts: int


def _due(now: datetime):
    lease = timedelta(seconds=setting("PUSH_CLAIM_LEASE_SECONDS"))
    return or_(
        and_(PushDelivery.status == DeliveryStatus.PENDING,
             or_(PushDelivery.attempts == 0, PushDelivery.next_attempt_at <= now)),
        and_(PushDelivery.status == DeliveryStatus.SENDING, PushDelivery.claimed_at < now - lease))


def _claim(now: datetime, limit: int) -> tuple[str, list[_Job]]:
    """Mark due deliveries as ours (one statement), commit, and return what to send."""
    db.session.commit()
    token = secrets.token_hex(16)
    due = _due(now)
    ids = (select(PushDelivery.id).where(due, PushDelivery.subscription_id.is_not(None))
           .order_by(PushDelivery.next_attempt_at, PushDelivery.id).limit(limit))
    if db.session.get_bind().dialect.name == "postgresql":
        ids = ids.with_for_update(skip_locked=True)
    db.session.execute(
        update(PushDelivery).where(PushDelivery.id.in_(ids.scalar_subquery()), due)
        .values(status=DeliveryStatus.SENDING, claim_token=token, claimed_at=now,
                attempts=PushDelivery.attempts + 1, updated_at=now)
        .execution_options(synchronize_session=False))
    db.session.commit()
    rows = db.session.execute(
        select(PushDelivery, PushSubscription, Notification)
        .join(PushSubscription, PushSubscription.id == PushDelivery.subscription_id)
        .join(Notification, Notification.id == PushDelivery.notification_id)
        .where(PushDelivery.claim_token == token).order_by(PushDelivery.id)).all()
    jobs = [_Job(d.id, s.id, s.endpoint, {"p256dh": s.p256dh, "auth": s.auth}, message(n),
                 d.attempts) for d, s, n in rows]
    db.session.commit()
    return token, jobs


def _post(job: _Job, vapid: Vapid, sub: str,
          http: requests.Session) -> tuple[int | None, str | None, str | None]:
    """Post one message: (status code or None for a network error, error, Retry-After).
    RefusedDestination when the endpoint, or the address its name resolves to now, is one
    the server does not send to (outbound.py)."""
    check_endpoint(job.endpoint)
    # pywebpush brings aiohttp (0.1 s to import): loaded by the sender only, not by every
    # process that starts the app (each CLI command, the minute's tick)
    from pywebpush import WebPushException, webpush

    try:
        resp = webpush({"endpoint": job.endpoint, "keys": job.keys}, data=job.data,
                       requests_session=http,
                       vapid_private_key=vapid,
                       vapid_claims={"sub": sub},  # fresh dict: pywebpush writes aud/exp in
                       content_encoding="aes128gcm", ttl=int(setting("PUSH_TTL_SECONDS")),
                       timeout=setting("PUSH_TIMEOUT_SECONDS"), headers={"Urgency": "normal"})
        return resp.status_code, None, None
    except WebPushException as e:
        if e.response is None:
            return 0, str(e)[:500], None
        return (e.response.status_code, (e.response.text or e.response.reason or "")[:500],
                e.response.headers.get("Retry-After"))
    except requests.RequestException as e:
        return None, f"{type(e).__name__}: {e}"[:500], None


def _retry_after(value: str | None, now: datetime) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, (parsedate_to_datetime(value) - now).total_seconds())
        except (TypeError, ValueError):
            return None


def backoff(attempts: int) -> float:
    """Seconds before the next attempt after `attempts` failed ones (doubling, capped)."""
    base = float(setting("PUSH_BACKOFF_SECONDS"))
    return min(base * 2 ** max(attempts - 1, 0), float(setting("PUSH_BACKOFF_MAX_SECONDS")))


def _record(job: _Job, token: str, now: datetime, code: int | None, error: str | None,
            retry_after: str | None, report: DeliveryReport) -> None:
    mine = and_(PushDelivery.id == job.id, PushDelivery.claim_token == token,
                PushDelivery.status == DeliveryStatus.SENDING)
    common = {"last_status_code": code, "last_error": error, "claim_token": None,
              "updated_at": now}
    if code is not None and 200 <= code < 300:
        db.session.execute(update(PushDelivery).where(mine).values(
            status=DeliveryStatus.SENT, sent_at=now, **common))
        db.session.execute(update(PushSubscription).where(
            PushSubscription.id == job.subscription_id).values(last_success_at=now))
        report.sent.append(job.id)
    elif code in (404, 410):
        db.session.execute(update(PushDelivery).where(mine).values(
            status=DeliveryStatus.DROPPED, **common))
        drop_subscription(job.subscription_id, now, reason=f"push service answered {code}")
        report.dropped.append(job.id)
    elif (code is None or code in RETRYABLE or code >= 500) and \
            job.attempts < int(setting("PUSH_MAX_ATTEMPTS")):
        wait = backoff(job.attempts) * (1 + random.random() * 0.1)
        asked = _retry_after(retry_after, now)
        if asked is not None:
            wait = min(max(wait, asked), float(setting("PUSH_BACKOFF_MAX_SECONDS")))
        db.session.execute(update(PushDelivery).where(mine).values(
            status=DeliveryStatus.PENDING, next_attempt_at=now + timedelta(seconds=wait),
            **common))
        report.retry.append(job.id)
    else:
        db.session.execute(update(PushDelivery).where(mine).values(
            status=DeliveryStatus.FAILED, **common))
        report.failed.append(job.id)
    db.session.commit()


def _refuse(job: _Job, token: str, now: datetime, why: str, report: DeliveryReport) -> None:
    """A delivery to a destination the server does not send to: failed, not retried, and
    its subscription dropped."""
    mine = and_(PushDelivery.id == job.id, PushDelivery.claim_token == token,
                PushDelivery.status == DeliveryStatus.SENDING)
    db.session.execute(update(PushDelivery).where(mine).values(
        status=DeliveryStatus.FAILED, last_status_code=None, last_error=f"refused: {why}"[:500],
        claim_token=None, updated_at=now))
    drop_subscription(job.subscription_id, now, reason=f"destination refused: {why}"[:200])
    report.failed.append(job.id)
    db.session.commit()


def drop_subscription(subscription_id: int, now: datetime, *, reason: str) -> None:
    """Delete a subscription; its deliveries not yet sent become `dropped`."""
    db.session.execute(update(PushDelivery).where(
        PushDelivery.subscription_id == subscription_id,
        PushDelivery.status.in_((DeliveryStatus.PENDING, DeliveryStatus.SENDING)))
        .values(status=DeliveryStatus.DROPPED, claim_token=None, updated_at=now,
                last_error=reason))
    db.session.execute(update(PushDelivery).where(
        PushDelivery.subscription_id == subscription_id).values(subscription_id=None))
    db.session.execute(delete(PushSubscription).where(PushSubscription.id == subscription_id))
    log.info("push subscription %s dropped: %s", subscription_id, reason)


def deliver_pending(now: datetime | None = None, *, limit: int | None = None) -> DeliveryReport:
    """Send every due delivery once; commits. Safe to run twice or concurrently."""
    now = _now(now)
    report = DeliveryReport()
    vapid, sub = vapid_key(), subject()
    batch = int(limit or setting("PUSH_BATCH"))
    gone: set[int] = set()
    http = outbound.session()
    while True:
        token, jobs = _claim(now, batch)
        for job in jobs:
            if job.subscription_id in gone:  # dropped earlier in this run (already `dropped`)
                report.dropped.append(job.id)
                continue
            try:
                code, error, retry_after = _post(job, vapid, sub, http)
            except RefusedDestination as e:   # never retried: the subscription goes
                log.warning("push delivery %s refused: %s", job.id, e)
                _refuse(job, token, now, str(e), report)
                gone.add(job.subscription_id)
                continue
            if code is None or code >= 300:
                log.warning("push delivery %s: %s %s", job.id, code, error)
            if code in (404, 410):
                gone.add(job.subscription_id)
            _record(job, token, now, code, error, retry_after, report)
        if len(jobs) < batch or limit is not None:
            return report


__all__ = ["DEFAULTS", "DEFAULT_SUBJECT", "DeliveryReport", "backoff", "deliver_pending",
           "drop_subscription", "message", "notify_push", "public_key", "setting", "subject",
           "vapid_key"]
