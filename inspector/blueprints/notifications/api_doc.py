"""OpenAPI entries of the notifications endpoints (merged into /api/openapi.json)."""
from __future__ import annotations

ERR = {"$ref": "#/components/responses/Error"}
SESSION = [{"session": []}]
UNSAFE = [{"session": [], "csrf": []}]
_SUB = {"type": "object", "required": ["endpoint", "keys"], "properties": {
    "endpoint": {"type": "string", "format": "uri"},
    "keys": {"type": "object", "required": ["p256dh", "auth"], "properties": {
        "p256dh": {"type": "string", "description": "P-256 public key, base64url"},
        "auth": {"type": "string", "description": "16-byte auth secret, base64url"}}}}}
_BODY = {"required": True, "content": {"application/json": {"schema": {
    "type": "object", "properties": {
        "subscription": _SUB,
        "notice": {"type": "string", "description": "Notice number (holders only)."}}}}}}
_SAVED = {"description": "Saved.", "content": {"application/json": {"schema": {
    "type": "object", "properties": {"id": {"type": "integer"},
                                     "created": {"type": "boolean"}}}}}}

PATHS: dict = {
    "/api/push/public-key": {"get": {
        "summary": "The VAPID public key (applicationServerKey, base64url).", "security": [],
        "responses": {"200": {"description": "OK", "content": {"application/json": {
            "schema": {"type": "object", "properties": {"publicKey": {"type": "string"}}}}}}}}},
    "/api/push/subscriptions": {
        "post": {"summary": "Subscribe this browser to pushes for the signed-in user.",
                 "security": UNSAFE, "requestBody": _BODY,
                 "responses": {"201": _SAVED, "200": _SAVED, "401": ERR, "409": ERR,
                               "422": ERR, "400": ERR}},
        "delete": {"summary": "Unsubscribe this browser (body: {subscription: {endpoint}}).",
                   "security": UNSAFE, "requestBody": _BODY,
                   "responses": {"204": {"description": "Removed."}, "401": ERR, "404": ERR,
                                 "400": ERR}}},
    "/api/push/notice-subscriptions": {
        "post": {"summary": "Holders: subscribe this phone to pushes about their notices, "
                            "after opening a notice with its access code (session).",
                 "security": [{"csrf": []}], "requestBody": _BODY,
                 "responses": {"201": _SAVED, "200": _SAVED, "403": ERR, "409": ERR,
                               "422": ERR, "400": ERR, "429": ERR}},
        "delete": {"summary": "Holders: unsubscribe this phone.", "security": [{"csrf": []}],
                   "requestBody": _BODY,
                   "responses": {"204": {"description": "Removed."}, "403": ERR, "404": ERR,
                                 "400": ERR, "429": ERR}}},
}
