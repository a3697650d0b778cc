"""OpenAPI entries of the notifications endpoints (merged into /api/openapi.json).

Request bodies are the pydantic models that validate them (`notifications/schemas.py`):
`BODIES` names them, `paths(refs)` gets back their schemas from `openapi.document()`.
"""
from __future__ import annotations

from inspector import notifications

ERR = {"$ref": "#/components/responses/Error"}
SESSION = [{"session": []}]
UNSAFE = [{"session": [], "csrf": []}]
_SAVED = {"description": "Saved.", "content": {"application/json": {"schema": {
    "type": "object", "required": ["id", "created"],
    "properties": {"id": {"type": "integer"}, "created": {"type": "boolean"}}}}}}
_REMOVED = {"description": "Removed."}

# name in the document -> the type that validates the body
BODIES = {"UserSubscribe": notifications.UserSubscribe, "UserUnsubscribe": notifications.UserUnsubscribe,
          "NoticeSubscribe": notifications.NoticeSubscribe,
          "NoticeUnsubscribe": notifications.NoticeUnsubscribe}


def _body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def paths(refs: dict[str, dict]) -> dict:
    """The notifications' paths, with the request bodies' schemas `refs` ({BODIES name: schema})."""
    return {
        "/api/push/public-key": {"get": {
            "summary": "The VAPID public key (applicationServerKey, base64url).", "security": [],
            "responses": {"200": {"description": "OK", "content": {"application/json": {
                "schema": {"type": "object", "required": ["publicKey"],
                           "properties": {"publicKey": {"type": "string"}}}}}}}}},
        "/api/push/subscriptions": {
            "post": {"summary": "Subscribe this browser to pushes for the signed-in user "
                                "(the body: {subscription, notice?} or the browser's "
                                "PushSubscription.toJSON() itself).",
                     "security": UNSAFE, "requestBody": _body(refs["UserSubscribe"]),
                     "responses": {"201": _SAVED, "200": _SAVED, "401": ERR, "409": ERR,
                                   "422": ERR, "400": ERR}},
            "delete": {"summary": "Unsubscribe this browser (body: {subscription: {endpoint}}).",
                       "security": UNSAFE, "requestBody": _body(refs["UserUnsubscribe"]),
                       "responses": {"204": _REMOVED, "401": ERR, "404": ERR, "422": ERR,
                                     "400": ERR}}},
        "/api/push/notice-subscriptions": {
            "post": {"summary": "Holders: subscribe this phone to pushes about their notices, "
                                "after opening a notice with its access code (session).",
                     "security": UNSAFE, "requestBody": _body(refs["NoticeSubscribe"]),
                     "responses": {"201": _SAVED, "200": _SAVED, "403": ERR, "409": ERR,
                                   "422": ERR, "400": ERR, "429": ERR}},
            "delete": {"summary": "Holders: unsubscribe this phone.", "security": UNSAFE,
                       "requestBody": _body(refs["NoticeUnsubscribe"]),
                       "responses": {"204": _REMOVED, "403": ERR, "404": ERR, "422": ERR,
                                     "400": ERR, "429": ERR}}},
    }
