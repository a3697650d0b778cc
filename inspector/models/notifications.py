"""Notifications: the in-app list, Web Push subscriptions, the push outbox and the VAPID key.

A `Notification` is addressed to one user (agent, supervisor, admin) or one holder (who has
no login: a holder reaches their notices with the access code printed on a notice). It is
the in-app list and the fallback when push fails. Each notification gets one
`PushDelivery` per subscription of its recipient, written in the same transaction; a sender
claims due deliveries, posts them to the push service and records what happened, so that a
message is sent at most once per subscription and retried with backoff when the service
is unavailable.
"""
from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from inspector.extensions import db
from inspector.models.registry import _enum


class DeliveryStatus(str, enum.Enum):
    PENDING = "pending"    # waiting for its (next) attempt at `next_attempt_at`
    SENDING = "sending"    # claimed by a sender (a claim older than the lease is taken back)
    SENT = "sent"          # the push service accepted it (2xx)
    FAILED = "failed"      # gave up after the last attempt (the in-app list still has it)
    DROPPED = "dropped"    # the subscription is gone (404/410, or unsubscribed)


class PushSubscription(db.Model):
    """One browser's push subscription, owned by a user or by a holder (exactly one)."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        CheckConstraint("(user_id IS NULL) <> (holder_id IS NULL)", name="one_owner"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    endpoint: Mapped[str] = mapped_column(Text)
    endpoint_sha256: Mapped[str] = mapped_column(String(64), unique=True)  # one owner per browser
    p256dh: Mapped[str] = mapped_column(String(200))   # subscriber's P-256 key, base64url
    auth: Mapped[str] = mapped_column(String(100))     # 16-byte auth secret, base64url
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"),
                                                index=True)
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("holders.id", ondelete="CASCADE"),
                                                  index=True)
    # the notice whose access code let a holder subscribe (None for users)
    notice_id: Mapped[int | None] = mapped_column(ForeignKey("notices.id", ondelete="SET NULL"))
    user_agent: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_success_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    user = relationship("User")
    holder = relationship("Holder")


class Notification(db.Model):
    """One message to one user or one holder: the in-app list and the push payload."""

    __tablename__ = "notifications"
    __table_args__ = (
        CheckConstraint("(user_id IS NULL) <> (holder_id IS NULL)", name="one_recipient"),
        Index("ix_notifications_user_unread", "user_id", "read_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("holders.id", ondelete="CASCADE"),
                                                  index=True)
    kind: Mapped[str] = mapped_column(String(40))   # inspection_to_review, notice_issued, ...
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text, default="")
    url: Mapped[str] = mapped_column(String(500), default="/")
    payload: Mapped[dict | None] = mapped_column(JSON)
    # a trigger that fires twice (a retried transaction, a second tick) makes one row
    dedupe_key: Mapped[str | None] = mapped_column(String(160), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    read_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    deliveries: Mapped[list[PushDelivery]] = relationship(back_populates="notification",
                                                          cascade="all, delete-orphan",
                                                          passive_deletes=True)


class PushDelivery(db.Model):
    """The outbox: one notification to one subscription, sent at most once."""

    __tablename__ = "push_deliveries"
    __table_args__ = (
        UniqueConstraint("notification_id", "subscription_id"),
        Index("ix_push_deliveries_due", "status", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    notification_id: Mapped[int] = mapped_column(
        ForeignKey("notifications.id", ondelete="CASCADE"))
    # None once the subscription was deleted (the row stays as the record of a drop)
    subscription_id: Mapped[int | None] = mapped_column(
        ForeignKey("push_subscriptions.id", ondelete="SET NULL"), index=True)
    status: Mapped[DeliveryStatus] = mapped_column(_enum(DeliveryStatus))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    claim_token: Mapped[str | None] = mapped_column(String(32))
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    notification: Mapped[Notification] = relationship(back_populates="deliveries")
    subscription: Mapped[PushSubscription | None] = relationship()


class VapidKey(db.Model):
    """The server's VAPID key pair, made on first use (one row; shared by every process)."""

    __tablename__ = "vapid_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    private_pem: Mapped[str] = mapped_column(Text)    # PKCS#8 PEM, P-256
    public_key: Mapped[str] = mapped_column(String(100))  # uncompressed point, base64url
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
