"""The bodies of the push-subscription endpoints (`/api/push/subscriptions`,
`/api/push/notice-subscriptions`) as pydantic models: the source of their validation and of
their OpenAPI schemas.

Shapes and bounds live here; whether the endpoint is a known push service and the keys are a
real P-256 point and a 16-byte secret is `notifications.subscriptions.clean`.
"""
from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Discriminator, Field, Tag

from inspector.bodies import Body
from inspector.notifications.outbound import PUSH_SERVICE_HOSTS

MAX_ENDPOINT = 2000
MAX_NOTICE = 80       # "<town slug>/<document number>", as the holder's page cuts it
MAX_KEY = 128         # a P-256 point in base64url is 87 characters, the auth secret 22
MAX_EXPIRATION_MS = 2**53  # a JavaScript timestamp (ms) that is still an exact number


class PushKeys(Body):
    """The browser's keys for encrypting pushes (base64url)."""

    p256dh: str = Field(min_length=1, max_length=MAX_KEY, title="chave da inscrição (p256dh)",
                        description="P-256 public key, base64url")
    auth: str = Field(min_length=1, max_length=MAX_KEY, title="segredo da inscrição (auth)",
                      description="16-byte auth secret, base64url")


# The endpoints the server posts to (outbound.check_endpoint), as a pattern for the API's
# document: https, a known push service by exact host suffix, default port, no userinfo,
# backslash or percent sign before the path. Stated, not enforced here: outbound.py is the
# check, and tests may post to a fake service on loopback.
ENDPOINT_PATTERN = (r"^https://([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*("
                    + "|".join(re.escape(h) for h in PUSH_SERVICE_HOSTS)
                    + r")(/[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]*)?$")


class BrowserSubscription(Body):
    """What `PushSubscription.toJSON()` gives in a browser."""

    endpoint: str = Field(min_length=1, max_length=MAX_ENDPOINT,
                          title="endereço do serviço de notificações",
                          json_schema_extra={"pattern": ENDPOINT_PATTERN})
    expirationTime: float | None = Field(  # the browser's own name
        None, ge=0, le=MAX_EXPIRATION_MS, title="validade da inscrição")
    keys: PushKeys = Field(title="chaves da inscrição")


class SubscriptionRef(Body):
    """A subscription named by its endpoint (the rest of `toJSON()` may come along)."""

    endpoint: str = Field(min_length=1, max_length=MAX_ENDPOINT,
                          title="endereço do serviço de notificações")
    expirationTime: float | None = Field(
        None, ge=0, le=MAX_EXPIRATION_MS, title="validade da inscrição")
    keys: PushKeys | None = Field(None, title="chaves da inscrição")


class Subscribe(Body):
    """`{subscription, notice}` as the pages' push.js sends it."""

    subscription: BrowserSubscription = Field(title="inscrição")
    notice: str | None = Field(None, max_length=MAX_NOTICE, title="documento",
                               description="Notice number (holders only).")


class Unsubscribe(Body):
    """`{subscription: {endpoint}}`."""

    subscription: SubscriptionRef = Field(title="inscrição")
    notice: str | None = Field(None, max_length=MAX_NOTICE, title="documento")


class NoticeSubscribe(Body):
    """A holder's phone subscribing after opening a notice with its access code."""

    notice: str = Field(min_length=1, max_length=MAX_NOTICE, title="documento",
                        description="<town slug>/<notice number>, as on the holder's page.")
    subscription: BrowserSubscription = Field(title="inscrição")


class NoticeUnsubscribe(Body):
    """A holder's phone unsubscribing."""

    notice: str = Field(min_length=1, max_length=MAX_NOTICE, title="documento")
    subscription: SubscriptionRef = Field(title="inscrição")


def _shape(value: Any) -> str:
    """Wrapped in `{subscription: ...}` or the browser's object itself."""
    return "envelope" if isinstance(value, dict) and "subscription" in value else "bare"


# A signed-in user's browser: `{subscription, notice?}` or the subscription object itself.
UserSubscribe = Annotated[Annotated[Subscribe, Tag("envelope")]
                          | Annotated[BrowserSubscription, Tag("bare")], Discriminator(_shape)]
UserUnsubscribe = Annotated[Annotated[Unsubscribe, Tag("envelope")]
                            | Annotated[SubscriptionRef, Tag("bare")], Discriminator(_shape)]


def subscription_of(body: Subscribe | BrowserSubscription | Unsubscribe | SubscriptionRef |
                    NoticeSubscribe | NoticeUnsubscribe):
    """The subscription inside a body, wrapped or not."""
    return getattr(body, "subscription", body)


__all__ = ["BrowserSubscription", "NoticeSubscribe", "NoticeUnsubscribe", "PushKeys",
           "Subscribe", "SubscriptionRef", "Unsubscribe", "UserSubscribe", "UserUnsubscribe",
           "subscription_of"]
