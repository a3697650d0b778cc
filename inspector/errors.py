"""Error pages that answer HTML or JSON by what the client accepts."""
from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

MESSAGES = {
    400: "O pedido não pôde ser entendido.",
    401: "Entre com seu usuário e senha para continuar.",
    403: "Seu perfil não tem acesso a esta página.",
    404: "Página não encontrada.",
    405: "Método não permitido para este endereço.",
    409: "Conflito com dados já registrados.",
    413: "O arquivo enviado é grande demais.",
    422: "Os dados enviados têm erros.",
    429: "Muitas tentativas. Aguarde um pouco e tente de novo.",
    500: "Erro interno. A equipe foi avisada.",
}


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
        return jsonify({"error": message, "status": status}), status
    return render_template("errors/error.html", status=status, message=message), status


def init_app(app: Flask) -> None:
    """Register handlers for HTTP errors, CSRF failures and crashes."""

    @app.errorhandler(CSRFError)
    def csrf_error(e: CSRFError):
        return error_response(400, "Formulário expirado ou inválido. Recarregue a página e "
                                   "tente de novo.")

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        # werkzeug's own English descriptions are replaced by ours; a description set
        # by abort(4xx, "...") in a view is a message for the person and is kept.
        custom = e.description if e.description != type(e).description else None
        return error_response(e.code or 500, custom)

    @app.errorhandler(Exception)
    def crash(e: Exception):
        app.logger.exception("unhandled error")
        return error_response(InternalServerError.code)
