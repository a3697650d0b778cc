"""The error root every service raises from, and the one handler that turns it into an answer:
HTML or JSON by what the client accepts, or the page a view declared with `on_refusal`.

A service refuses with an `InspectorError` carrying its HTTP status and a pt-BR message
(`ValidationFailed`: one reason per field). Views do not catch it: the handler rolls the
session back (nothing half-written) and answers."""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from flask import Flask, current_app, g, jsonify, make_response, render_template, request, session
from flask_limiter.errors import RateLimitExceeded
from flask_wtf.csrf import CSRFError
from pydantic import BaseModel, ConfigDict, Field
from werkzeug.exceptions import HTTPException, InternalServerError, TooManyRequests

from inspector.extensions import db, limiter


class InspectorError(Exception):
    """Root of the errors a service raises for input or a state it refuses; a view that does
    not catch one answers `status` with the error's pt-BR message (`init_app`)."""

    status = 400

    @property
    def message(self) -> str:
        """What a person reads."""
        return str(self) or MESSAGES.get(self.status, "Erro.")


@dataclass
class ValidationFailed(InspectorError):
    """One or more fields are wrong; each carries a reason a person understands."""

    errors: dict[str, str] = field(default_factory=dict)
    status = 422

    def __str__(self) -> str:
        return "; ".join(f"{k}: {v}" for k, v in self.errors.items())


class Conflict(ValidationFailed):
    """Someone else changed the same thing first (HTTP 409): of simultaneous decisions on one
    object one wins, by a conditional UPDATE on the state read, and the others write nothing."""

    status = 409

    def __str__(self) -> str:
        return " ".join(self.errors.values())


MESSAGES = {
    400: "O pedido não pôde ser entendido.",
    401: "Entre com seu usuário e senha para continuar.",
    403: "Seu perfil não tem acesso a esta página.",
    404: "Página não encontrada.",
    405: "Método não permitido para este endereço.",
    409: "Conflito com dados já registrados.",
    413: "O arquivo enviado é grande demais.",
    422: "Os dados enviados têm erros.",
    429: "Muitas tentativas em pouco tempo. Aguarde alguns minutos e tente de novo.",
    500: "Erro interno. A equipe foi avisada.",
}


# Why a photo's bytes can never be evidence (inspections/evidence.py ACTIONS says each to the
# agent); here because the error body names them.
PhotoProblem = Literal["damaged", "extra_data", "frames", "pixels", "format", "size", "empty"]


class ErrorBody(BaseModel):
    """Every JSON error answer of the app, whoever builds it (`error_body`): the one source of
    the OpenAPI `Error` schema, so a field a handler adds is in the document or refused here."""

    model_config = ConfigDict(extra="forbid", strict=True)

    error: str = Field(description="Mensagem em pt-BR para a pessoa.")
    status: int = Field(ge=400, le=599, description="The HTTP status, repeated.")
    fields: dict[str, str] | None = Field(
        None, description="Campo (ex. items[2].photos[0].sha256) -> motivo.")
    reason: Literal["other_author", "photo_refused"] | None = Field(
        None, description="A machine-readable cause where one status has several: "
        "other_author (403, the inspection's agent_id is not the signed-in agent), "
        "photo_refused (422, the photo's bytes can never be evidence: docs/sync.md §3).")
    problem: PhotoProblem | None = Field(
        None, description="With reason photo_refused: what is wrong with the photo.")
    permanent: bool | None = Field(
        None, description="true: the same request will be refused every time (a photo "
        "refused for good): the phone stops sending it. Absent: it may be sent again.")


def error_body(status: int, message: str, **extra) -> dict:
    """The JSON of an error answer, checked against ErrorBody (absent fields left out)."""
    return ErrorBody(error=message, status=status, **extra).model_dump(exclude_none=True)


def wants_json() -> bool:
    """Whether this client would rather read JSON than HTML."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_response(status: int, message: str | None = None):
    """Render an error for a person (HTML) or a program (JSON)."""
    message = message or MESSAGES.get(status, "Erro.")
    if wants_json():
        return jsonify(error_body(status, message)), status
    return render_template("errors/error.html", status=status, message=message), status


def on_refusal(render: Callable[[InspectorError], object] | None = None, *,
               says: str | None = None):
    """Declare what a view answers when a service refuses its request: `render(e)` gives the
    page to show again (the form with `e.errors` beside its fields), called after the
    session is rolled back; its status is the error's unless it returns one. `says`, for a
    JSON view: the words before the reasons ("Inscrição recusada"). Put it under the route's
    access decorator, which keeps the mark (functools.wraps)."""
    def mark(view):
        view.refusal = (render, says)
        return view
    return mark


def refusal_response(e: InspectorError):
    """The answer to a refused request (the session is rolled back already)."""
    view = current_app.view_functions.get(request.endpoint or "")
    render, says = getattr(view, "refusal", (None, None))
    fields = getattr(e, "errors", None) or None
    if says is not None:
        reasons = "; ".join(fields.values()) if fields else e.message
        return jsonify(error_body(e.status, f"{says}: {reasons}", fields=fields)), e.status
    if render is not None:
        response = make_response(render(e))
        if response.status_code == 200:
            response.status_code = e.status
        return response
    return error_response(e.status, e.message)


def wait_text(seconds: float) -> str:
    """How long to wait, said as people say it: "em um minuto", "em 5 minutos", "em 2 horas"."""
    minutes = max(1, math.ceil((seconds - 2) / 60))  # the limiter's reset is a second late
    if minutes == 1:
        return "em um minuto"
    if minutes < 60:
        return f"em {minutes} minutos"
    hours = math.ceil(minutes / 60)
    return "em uma hora" if hours == 1 else f"em {hours} horas"


def too_many_message(e: HTTPException | None = None) -> str:
    """What happened and when to try again, in Portuguese, for a rate-limited request (never
    the limiter's English "10 per 1 minute"): the wait is the breached limit's reset."""
    seconds = None
    try:
        current = limiter.current_limit
        if current is not None and current.breached:
            seconds = current.reset_at - time.time()
        elif getattr(e, "limit", None) is not None:
            seconds = e.limit.limit.get_expiry()
    except Exception:  # the storage is unreachable: say it without a time
        seconds = None
    if seconds is None:
        return MESSAGES[429]
    return f"Muitas tentativas em pouco tempo. Tente de novo {wait_text(seconds)}."


def init_app(app: Flask) -> None:
    """Register handlers for HTTP errors, CSRF failures and crashes."""

    @app.errorhandler(CSRFError)
    def csrf_error(e: CSRFError):
        if request.path.startswith("/api/") and g.get("user") is None and not session:
            # No session at all: nothing a forged request could borrow, so the answer is the
            # missing sign-in (401) or, on a holder's route, the missing access code (403),
            # as the API's document says, not a stale form.
            view = app.view_functions.get(request.endpoint or "")
            if getattr(view, "access", "login") == "public":
                return error_response(403, "Abra o documento com o código de acesso impresso "
                                           "nele e tente de novo.")
            return error_response(401)
        return error_response(400, "Formulário expirado ou inválido. Recarregue a página e "
                                   "tente de novo.")

    @app.errorhandler(TooManyRequests)
    def too_many(e: TooManyRequests):
        # Flask-Limiter's description is its limit in English ("10 per 1 minute"): never
        # shown; an abort(429, "...") written for a person is kept.
        if isinstance(e, RateLimitExceeded) or e.description == TooManyRequests.description:
            return error_response(429, too_many_message(e))
        return error_response(429, e.description)

    @app.errorhandler(InspectorError)
    def refused(e: InspectorError):
        db.session.rollback()   # a refused request leaves nothing half-written (409: a loser)
        if e.status >= 500:  # the detail (a store's address, its error) is for the operator
            app.logger.warning("service unavailable: %s", e)
            return error_response(e.status, e.message)
        return refusal_response(e)

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        # werkzeug's own English descriptions are replaced by ours; a description set
        # by abort(4xx, "...") in a view is a message for the person and is kept.
        custom = e.description if e.description != type(e).description else None
        response = make_response(error_response(e.code or 500, custom))
        # the headers the status needs (RFC 9110): Allow on a 405, Retry-After, ...
        for name, value in e.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
        return response

    @app.errorhandler(Exception)
    def crash(e: Exception):
        app.logger.exception("unhandled error")
        db.session.rollback()  # a failed flush would make the error page fail too
        return error_response(InternalServerError.code)
