"""The OpenAPI 3.1 document of every JSON endpoint.

Request bodies' schemas are generated from the pydantic models that validate them
(`inspections/schemas.py`, `notifications/schemas.py`, through `bodies.openapi_schemas`), never
written beside them; responses are described here. The notifications' paths are described
beside them (`notifications/api_doc.py`) and merged here; tests/field/test_sync_api.py fails
when a /api/ route is missing.
"""
from __future__ import annotations

import copy
from functools import cache

from inspector import bodies
from inspector.blueprints.notifications import api_doc
from inspector.errors import ErrorBody
from inspector.inspections import InspectionBody

ERR = {"$ref": "#/components/responses/Error"}
# ?since= is a version (an audit seq): at most 12 digits, as the routes read it
MAX_VERSION = 10**12 - 1
SESSION = [{"session": []}]
UNSAFE = [{"session": [], "csrf": []}]


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _ok(schema: dict, description: str = "OK") -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _described(response: dict, why: str) -> dict:
    """A shared response with this operation's own description of when it happens."""
    return {**response, "description": why}


def _uuid_param(name: str, what: str) -> dict:
    return {"name": name, "in": "path", "required": True, "description": what,
            "schema": {"type": "string", "format": "uuid"}}


_NULL_STR = {"type": ["string", "null"]}
_DATE = {"type": ["string", "null"], "format": "date"}
_SUSPENDED_UNTIL = {"type": ["string", "null"], "format": "date",
                    "description": "Last day of the suspension holding the row (enforcement "
                    "sets it); null when not suspended or suspended by hand with no end."}

SCHEMAS: dict = {
    "Session": {"type": "object", "properties": {
        "user": {"type": "object", "properties": {
            "id": {"type": "integer"}, "username": {"type": "string"},
            "name": {"type": "string"}, "role": {"enum": ["agent", "supervisor"]},
            "badge": {"type": "string"},
            "town": {"type": "object", "properties": {"slug": {"type": "string"},
                                                      "name": {"type": "string"}}}}},
        "csrf_token": {"type": "string", "description": "Send as X-CSRFToken on PUT."}}},
    "Snapshot": {"type": "object", "required": ["version", "full", "deleted"], "properties": {
        "format": {"type": "integer", "description": "The shape of the rows (docs/sync.md, "
                   "\"The snapshot's format\"): a phone holding an older format asks for a "
                   "full snapshot instead of a delta"},
        "version": {"type": "integer", "description": "Newest audit seq of the town; send "
                    "back as ?since="},
        "full": {"type": "boolean"},
        "generated_at": {"type": "string", "format": "date-time"},
        "standing_on": {"type": "string", "format": "date",
                        "description": "The local day `standing` was computed for."},
        "town": {"type": "object", "properties": {
            "slug": {"type": "string"}, "name": {"type": "string"},
            "ibge": {"type": "string", "description": "Matches a credential token's town."},
            "fiscal_unit": {"type": "string"}}},
        "vehicles": {"type": "array", "items": {"type": "object", "properties": {
            "vistoria": {
                "type": ["object", "null"], "required": ["result", "on"],
                "description": "The vehicle's newest vistoria (snapshot format 3); null when "
                               "none is on record. `return_on` and `to_fix` (the items' "
                               "labels) only when rejected.",
                "properties": {"result": {"enum": ["approved", "rejected"]},
                               "on": {"type": "string", "format": "date"},
                               "return_on": {"type": ["string", "null"], "format": "date"},
                               "to_fix": {"type": "array", "items": {"type": "string"}}}}}}},
        "drivers": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "name": {"type": "string"},
            "status": {"enum": ["active", "suspended", "revoked"]},
            "suspended_until": _SUSPENDED_UNTIL,
            "vehicle_ids": {"type": "array", "items": {"type": "integer"}},
            "photo": {"type": ["string", "null"], "description": "data:image/jpeg URI"}}}},
        "holders": {"type": "array", "items": {"type": "object"}},
        "licences": {"type": "array", "items": {"type": "object", "properties": {
            "status": {"enum": ["active", "suspended", "revoked"]},
            "suspended_until": _SUSPENDED_UNTIL}}},
        "permits": {"type": "array", "items": {"type": "object", "properties": {
            "status": {"enum": ["active", "suspended", "revoked"]},
            "suspended_until": _SUSPENDED_UNTIL}}},
        "insurance": {"type": "array", "items": {"type": "object"}},
        "stands": {"type": "array", "items": {"type": "object"}},
        "credentials": {"type": "array", "items": {"type": "object", "properties": {
            "token_hash": {"type": "string"}, "status": {"enum": ["active", "revoked",
                                                                  "expired"]}}}},
        "standing": {"type": "array", "items": {"type": "object", "properties": {
            "vehicle_id": {"type": "integer"},
            "status": {"enum": ["regular", "irregular", "suspended"]},
            "suspended_until": {"type": ["string", "null"], "format": "date", "description":
                                "Suspended: the last day of the suspensions holding the "
                                "vehicle (the latest); null when one has no known end, or "
                                "when not suspended."},
            "reasons": {"type": "array"}, "warnings": {"type": "array"}}}},
        "last_inspections": {"type": "array", "items": {"type": "object"}},
        "notices": {"type": "array", "description": "Open acts (confirmed, amended, "
                    "converted into a daily fine, under appeal, appeal refused) of the town's "
                    "vehicles, drivers and holders; a delta lists those that left in "
                    "deleted.notices.", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "number": _NULL_STR, "kind": {"type": "string"},
            "kind_label": {"type": "string"}, "label": {"type": "string"},
            "what": {"type": "string", "description": "What is wrong."},
            "required_action": _NULL_STR,
            "citation": {"type": ["object", "null"], "properties": {
                "law": {"type": "string"}, "article": {"type": "string"},
                "anchor": {"type": "string"}, "law_slug": {"type": "string"}}},
            "deadline_at": {"type": ["string", "null"], "format": "date-time"},
            "status": {"enum": ["confirmed", "amended", "converted_to_daily_fine", "appealed",
                                "appeal_refused"]},
            "status_label": {"type": "string"}, "suspended": {"type": "boolean"},
            "awaiting_delivery": {"type": "boolean"},
            "issued_at": {"type": ["string", "null"], "format": "date-time"},
            "concerns": {"enum": ["vehicle", "driver", "holder"]},
            "vehicle_id": {"type": ["integer", "null"]}, "driver_id": {"type": ["integer", "null"]},
            "holder_id": {"type": ["integer", "null"]}}}},
        "checklists": {"type": "array", "items": {"type": "object"}},
        "keys": {"type": "array", "items": {"type": "object", "properties": {
            "kid": {"type": "integer"}, "public_key": {"type": "string"},
            "valid_until": _DATE}}},
        "deleted": {"type": "object", "additionalProperties": {
            "type": "array", "items": {"type": "integer"}}}}},
    "Review": {"type": "object", "description": "What the supervision decided about an "
               "inspection's acts, and its comments (docs/sync.md §7).", "properties": {
        "status": {"enum": ["incomplete", "awaiting_review", "reviewed"]},
        "status_label": {"type": "string"},
        "reviewed_at": {"type": ["string", "null"], "format": "date-time"},
        "acts": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "item_id": _NULL_STR, "kind": {"type": "string"},
            "kind_label": {"type": "string"}, "label": {"type": "string"},
            "status": {"enum": ["proposed", "confirmed", "amended", "rejected", "complied",
                                "converted_to_daily_fine", "appealed", "appeal_accepted",
                                "appeal_refused", "closed"]},
            "status_label": {"type": "string"},
            "reason": {"type": ["string", "null"], "description": "Why rejected or amended."},
            "comment": _NULL_STR,
            "decided_at": {"type": ["string", "null"], "format": "date-time"},
            "deadline_at": {"type": ["string", "null"], "format": "date-time"},
            "notice_number": _NULL_STR}}},
        "comments": {"type": "array", "items": {"type": "object", "properties": {
            "at": {"type": "string", "format": "date-time"}, "by": {"type": "string"},
            "text": {"type": "string"}}}}}},
    "Reviews": {"type": "object", "required": ["version", "full", "inspections"], "properties": {
        "version": {"type": "integer", "description": "Newest audit seq of the town; send "
                    "back as ?since="},
        "full": {"type": "boolean", "description": "true: the newest `limit` inspections, "
                 "replacing what the phone holds; false: only those changed since ?since="},
        "limit": {"type": "integer"},
        "generated_at": {"type": "string", "format": "date-time"},
        "inspections": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string", "format": "uuid"}, "vehicle_id": {"type": "integer"},
            "plate": {"type": "string"}, "prefix": _NULL_STR, "service": {"type": "string"},
            "finished_at": {"type": "string", "format": "date-time"},
            "failed_items": {"type": "integer"}, "registry_changed": {"type": "boolean"},
            "refused_photos": {"type": "array", "description": "Photos of the inspection the "
                               "server refused for good: which, of which item, when, why.",
                               "items": {"type": "object", "properties": {
                                   "id": {"type": "string", "format": "uuid"},
                                   "item_id": {"type": "string"},
                                   "refused_at": {"type": "string", "format": "date-time"},
                                   "reason": {"type": "string"}}}},
            "review": _ref("Review")}}}}},
    "Progress": {"type": "object", "required": ["id", "complete", "missing_photos"],
                 "properties": {
        "id": {"type": "string", "format": "uuid"},
        "inspection": {"type": "string", "format": "uuid",
                       "description": "Photo answers only: the inspection's id."},
        "complete": {"type": "boolean"},
        "missing_photos": {"type": "array", "items": {"type": "string", "format": "uuid"},
                           "description": "Declared photos still awaited (not received, "
                           "not refused for good)."},
        "refused_photos": {"type": "array", "description": "Declared photos whose bytes the "
                           "server refused for good (docs/sync.md §3): no longer awaited; "
                           "the agent takes the photo again in a new inspection.",
                           "items": {"type": "object", "properties": {
                               "id": {"type": "string", "format": "uuid"},
                               "reason": {"type": "string"}}}},
        "status": {"enum": ["incomplete", "awaiting_review", "reviewed"]},
        "registry_changed": {"type": "boolean"}}},
}

PATHS: dict = {
    "/healthz": {"get": {
        "summary": "Health check: 200 once the database answers.", "security": [],
        "responses": {"200": _ok({"type": "object", "properties": {
            "status": {"const": "ok"}, "database": {"type": "string"},
            "version": {"type": "string"}}})}}},
    "/api/openapi.json": {"get": {
        "summary": "This document.", "security": [],
        "responses": {"200": _ok({"type": "object"})}}},
    "/api/credential-keys": {"get": {
        "summary": "Public Ed25519 keys that verify credential QR codes offline "
                   "(docs/credentials.md).", "security": SESSION,
        "responses": {"200": _ok({"type": "object", "properties": {
            "format": {"type": "string"}, "keys": {"type": "array"}}}), "401": ERR}}},
    "/api/field/session": {"get": {
        "summary": "Who is signed in, and a fresh CSRF token.", "security": SESSION,
        "responses": {"200": _ok(_ref("Session")), "401": ERR, "403": ERR}}},
    "/api/field/snapshot": {"get": {
        "summary": "The town's registry and rules for offline work (full or delta).",
        "security": SESSION,
        "parameters": [{"name": "since", "in": "query", "required": False,
                        "description": "The version the phone holds: answer only what "
                                       "changed after it.",
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION}}],
        "responses": {"200": _ok(_ref("Snapshot")), "401": ERR, "403": ERR, "422": ERR}}},
    "/api/field/reviews": {"get": {
        "summary": "The supervision's answers (decisions, reasons, comments) on the signed-in "
                   "user's own inspections, full or since a version; fetched on every sync.",
        "security": SESSION,
        "parameters": [{"name": "since", "in": "query", "required": False,
                        "description": "The version the phone holds: answer only the "
                                       "inspections changed after it.",
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION}}],
        "responses": {"200": _ok(_ref("Reviews")), "401": ERR, "403": ERR, "422": ERR}}},
    "/api/field/inspections/{inspection_id}": {
        "parameters": [_uuid_param("inspection_id", "The phone's UUID of the inspection.")],
        "put": {
            "summary": "Send an inspection (idempotent by UUID and body SHA-256).",
            "security": UNSAFE,
            "requestBody": {"required": True, "content": {
                "application/json": {"schema": "<Inspection>"}}},
            "responses": {"201": _ok(_ref("Progress"), "Stored."),
                          "200": _ok(_ref("Progress"), "Identical replay."),
                          "409": ERR, "422": ERR, "400": ERR, "401": ERR, "403": ERR,
                          "404": _described(ERR, "The path's id is not a UUID."),
                          "413": _described(ERR, "The body is larger than 16 MB.")}},
        "get": {
            "summary": "What the server holds of an inspection, and its review (`review`: "
                       "each act's decision, reason and comment; the supervisor's comments; "
                       "null for another agent's inspection).",
            "security": SESSION,
            "responses": {"200": _ok(_ref("Progress")), "404": ERR, "401": ERR}}},
    "/api/field/inspections/{inspection_id}/photos/{photo_id}": {
        "parameters": [_uuid_param("inspection_id", "The inspection's UUID."),
                       _uuid_param("photo_id", "The photo's UUID, as declared.")],
        "put": {
            "summary": "Send one photo's original bytes (idempotent, hash-checked).",
            "security": UNSAFE,
            "parameters": [{"name": "X-Content-SHA256", "in": "header", "required": False,
                            "description": "SHA-256 (hex) of the body; checked when sent.",
                            "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}],
            "requestBody": {"required": True, "content": {
                m: {"schema": {"type": "string", "contentMediaType": m}}
                for m in ("image/jpeg", "image/png", "image/webp", "image/heic")}},
            "responses": {"201": _ok(_ref("Progress"), "Stored."),
                          "200": _ok(_ref("Progress"), "The same bytes again."),
                          "404": ERR, "409": ERR, "422": ERR, "400": ERR, "401": ERR,
                          "403": ERR, "413": _described(ERR, "The body is larger than 16 MB."),
                          "415": _described(ERR, "The body was sent as a form (multipart or "
                                            "urlencoded): send the photo's own bytes."),
                          # evidence_objects.StoreError; the phone keeps the photo and retries a 5xx
                          # (static/js/field/sync.js)
                          "503": _described(ERR, "The object store (EVIDENCE_BACKEND=s3) did "
                                            "not answer or refused the bytes: nothing was "
                                            "stored or acknowledged; send the photo again "
                                            "later.")}}},
}


BODIES = {"Inspection": InspectionBody}


def _with_bodies(node, refs: dict):
    """Replace the "<Name>" placeholders of PATHS with the bodies' generated schemas."""
    if isinstance(node, dict):
        return {k: _with_bodies(v, refs) for k, v in node.items()}
    if isinstance(node, list):
        return [_with_bodies(v, refs) for v in node]
    if isinstance(node, str) and node.startswith("<") and node.endswith(">"):
        return refs[node[1:-1]]
    return node


# bench/caches.py: /api/openapi.json 2.7-3.7x slower without it
@cache
def _document() -> dict:
    # the error body's schema comes from the model every error answer is built with
    refs, generated = bodies.openapi_schemas(BODIES | api_doc.BODIES |
                                             {"Error": ErrorBody})
    clash = set(generated) & set(SCHEMAS)
    assert not clash, f"component names taken twice: {clash}"
    return {
        "openapi": "3.1.0",
        "info": {"title": "Inspector API", "version": "1",
                 "description": "JSON endpoints of Inspector. The field sync protocol is "
                                "described in docs/sync.md. Errors: {error, status, fields?, "
                                "reason?, problem?, permanent?} (the Error schema). "
                                "Request bodies are refused (422, nothing stored) when they "
                                "carry an unknown field or a value out of the bounds stated "
                                "here; moments must lie between 5 years before and 24 hours "
                                "after the server's clock."},
        "paths": _any_request_refusal(_with_bodies(PATHS, refs) | api_doc.paths(refs)),
        "components": {
            "schemas": SCHEMAS | generated,
            "responses": {"Error": _ok(refs["Error"], "Error (pt-BR message).")},
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "inspector_session",
                            "description": "The session cookie: /entrar sets it for users; "
                                           "a holder's notice page sets it when the access "
                                           "code is given."},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRFToken",
                         "description": "csrf_token of GET /api/field/session (or the page's "
                                        "csrf-token meta), on every unsafe method."}}},
        "security": SESSION,
    }


def _any_request_refusal(paths: dict) -> dict:
    """Every operation may answer 400: a request the app refuses before routing it (a NUL in
    the query, the path or a form: security.refuse_nul)."""
    for item in paths.values():
        for operation in item.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("400", ERR)
    return paths


def document() -> dict:
    """The whole OpenAPI 3.1 document (a copy: callers may change it)."""
    return copy.deepcopy(_document())
