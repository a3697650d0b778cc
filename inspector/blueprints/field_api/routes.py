"""JSON endpoints of the field sync protocol (docs/sync.md): session, snapshot, inspections,
photos, the review of the agent's own inspections. Views parse, call a service, answer JSON;
errors are JSON with a pt-BR message."""
from __future__ import annotations

import json
import logging

from flask import Blueprint, Response, g, jsonify, request
from flask_wtf.csrf import generate_csrf
from sqlalchemy.exc import IntegrityError, OperationalError

from inspector import enforcement, field, inspections, vistorias
from inspector.blueprints.field_api.openapi import MAX_VERSION, document
from inspector.clock import now
from inspector.errors import ValidationFailed, error_body
from inspector.extensions import db
from inspector.inspections import PhotoRefused
from inspector.models import Role
from inspector.security import public, roles_required, town_id

bp = Blueprint("field_api", __name__, url_prefix="/api")

READERS = (Role.AGENT, Role.SUPERVISOR)
WRITERS = (Role.AGENT,)


log = logging.getLogger(__name__)

_FORMS = ("multipart/form-data", "application/x-www-form-urlencoded")


def _error(status: int, message: str, fields: dict | None = None, reason: str | None = None):
    # reason: for the app, where one status has several causes
    return jsonify(error_body(status, message, fields=fields or None, reason=reason)), status


def _refused(e: ValidationFailed, what: str):
    """422 with every bad field and a first reason a person can read."""
    first = next(iter(e.errors.values()), "dados inválidos")
    return _error(422, f"{what} não pode ser aceita: {first}", e.errors)


def _json(payload: dict, status: int = 200) -> Response:
    """Compact JSON (compressed on the way out by inspector/compression.py when asked)."""
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(body, status=status, mimetype="application/json")


@bp.get("/field/session")
@roles_required(*READERS)
def session_info():
    """Who is signed in, and a CSRF token for the PUTs (X-CSRFToken)."""
    u = g.user
    return jsonify({"user": {"id": u.id, "username": u.username, "name": u.name,
                             "role": u.role.value, "badge": u.badge_number,
                             "town": {"slug": u.municipality.slug, "name": u.municipality.name}},
                    "csrf_token": generate_csrf()})


@bp.get("/field/snapshot")
@roles_required(*READERS)
def snapshot():
    """The town's registry and rules for offline work; ?since=<version> for a delta."""
    since, bad = _since()
    if bad:
        return bad
    return _json(field.build_snapshot(g.user.municipality, since))


def _since():
    """?since=<version> as an int (None when absent), or a 422 answer."""
    since = request.args.get("since")
    if since is None:
        return None, None
    if not (since.isascii() and since.isdigit()) or len(since) > len(str(MAX_VERSION)):
        return None, _error(422, "Versão inválida em ?since=.", {"since": "número inteiro"})
    return int(since), None


@bp.get("/field/reviews")
@roles_required(*READERS)
def reviews():
    """The supervisor's answers on the signed-in user's own inspections; ?since=<version>."""
    since, bad = _since()
    if bad:
        return bad
    return _json(field.build_reviews(g.user, since))


@bp.put("/field/inspections/<uuid:inspection_id>")
@roles_required(*WRITERS)
def put_inspection(inspection_id):
    """Store an inspection once: 201 new, 200 identical replay, 409 different, 422 refused."""
    town = g.user.municipality_id  # read before the commit expires the user
    try:
        got = inspections.receive_inspection(str(inspection_id), request.get_data(cache=False),
                                             user=g.user)
    except ValidationFailed as e:  # the sync's refusals each carry their own words and reason
        return _refused(e, "A vistoria")
    except inspections.Conflict as e:
        return _error(409, str(e))
    except inspections.WrongAuthor as e:
        return _error(403, str(e), reason="other_author")
    # a street inspection's answer is its progress: no second reading of what was just stored
    answer = got.progress if got.street else _with_vistoria(got.progress)
    if got.created and answer["complete"]:  # sent without photos: complete on arrival
        _propose(answer["id"], town)
    return jsonify(answer), 201 if got.created else 200


def _propose(uuid: str, town: int) -> None:
    """The request that completes an inspection makes its proposals, in a transaction of its
    own once the evidence is committed: the phone's answer never depends on them. What this
    leaves (a concurrent writer holding SQLite's lock) the enforcement tick takes within the
    minute; review pages only read."""
    try:
        if enforcement.propose_pending(now(), town, uuid=uuid):
            db.session.commit()
    except OperationalError:
        db.session.rollback()
        log.info("sync: the proposals of %s left to the tick", uuid)
    except Exception:  # noqa: BLE001 - the evidence is committed: the phone gets its answer
        db.session.rollback()
        log.exception("sync: the proposals of %s failed; left to the tick", uuid)


def _with_vistoria(progress: dict) -> dict:
    """A vistoria's answer carries its decided result (docs/vistoria.md); a street
    inspection's is unchanged."""
    try:
        result = vistorias.settle(progress["id"], g.user.municipality_id)
        db.session.commit()
    except IntegrityError:  # decided meanwhile by a concurrent request: read it back
        db.session.rollback()
        result = vistorias.result_of(progress["id"])
    return progress if result is None else progress | {"vistoria": result}


@bp.get("/field/inspections/<uuid:inspection_id>")
@roles_required(*READERS)
def get_inspection(inspection_id):
    """What the server holds of an inspection: complete or not, missing photos."""
    try:
        insp = inspections.find_inspection(str(inspection_id), town_id())
    except inspections.NotFound:
        return _error(404, "Vistoria não encontrada.")
    body = _with_vistoria(inspections.inspection_summary(insp))
    # decisions and comments: for the agent who made it and the supervision only
    mine = insp.agent_id == g.user.id or g.user.role != Role.AGENT
    body["review"] = enforcement.review_for_agent(insp) if mine else None
    return jsonify(body)


@bp.put("/field/inspections/<uuid:inspection_id>/photos/<uuid:photo_id>")
@roles_required(*WRITERS)
def put_photo(inspection_id, photo_id):
    """Store a photo's original bytes once, checked against its declared SHA-256."""
    if request.mimetype in _FORMS:  # the CSRF check has read such a body as a form already
        return _error(415, "Envie a foto como o próprio arquivo (o tipo da imagem no "
                           "Content-Type), não como formulário.")
    town = g.user.municipality_id  # read before the commit expires the user
    try:
        got = inspections.receive_photo(str(inspection_id), str(photo_id),
                                        request.get_data(cache=False),
                                        request.headers.get("X-Content-SHA256"), user=g.user)
    except inspections.NotFound:
        return _error(404, "Vistoria não encontrada: envie a vistoria antes das fotos.")
    except PhotoRefused as e:  # these bytes never: the phone stops sending them (docs/sync.md)
        _propose(str(inspection_id), town)  # it may have been the last photo awaited
        return jsonify(e.answer()), 422
    except ValidationFailed as e:  # as for the inspection: the phone reads these answers
        return _refused(e, "A foto")
    except inspections.Conflict as e:
        return _error(409, str(e))
    if got.created and got.progress["complete"]:
        _propose(str(inspection_id), town)
    return jsonify(got.progress), 201 if got.created else 200


@bp.get("/openapi.json")
@public
def openapi():
    """The OpenAPI 3.1 description of every JSON endpoint of the app."""
    return jsonify(document())
