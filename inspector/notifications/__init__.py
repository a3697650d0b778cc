"""Web Push: subscriptions, the outbox and its delivery, and who is told what when an act
moves."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.notifications.push import deliver_pending, notify_push, public_key
from inspector.notifications.schemas import (
    NoticeSubscribe,
    NoticeUnsubscribe,
    UserSubscribe,
    UserUnsubscribe,
    subscription_of,
)
from inspector.notifications.subscriptions import (
    count_subscriptions,
    release_on_sign_out,
    remove_subscription,
    save_subscription,
)
from inspector.notifications.triggers import register_triggers

__all__ = [
    "NoticeSubscribe", "NoticeUnsubscribe", "UserSubscribe", "UserUnsubscribe", "count_subscriptions",
    "deliver_pending", "notify_push", "public_key", "register_triggers", "release_on_sign_out",
    "remove_subscription", "save_subscription", "subscription_of"
]
