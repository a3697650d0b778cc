"""Structured logging: one JSON object per line, with the request's id and user."""
from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from datetime import UTC, datetime

from flask import Flask, g, has_request_context, request
from sqlalchemy import inspect as sa_inspect


class JsonFormatter(logging.Formatter):
    """Format a record as one line of JSON."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if has_request_context():
            out["request_id"] = g.get("request_id")
            user = g.get("user")
            if user is not None:
                # from the identity key, never the attribute: after a failed flush the user is
                # expired, and loading it again would raise here, losing the crash's own line
                state = sa_inspect(user, raiseerr=False)
                out["user_id"] = state.identity[0] if state and state.identity else None
        out.update(getattr(record, "fields", {}) or {})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def init_app(app: Flask) -> None:
    """Send the app's log to stderr as JSON lines and log every request once."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    app.logger.handlers[:] = [handler]
    app.logger.setLevel(app.config["LOG_LEVEL"])
    app.logger.propagate = False

    @app.before_request
    def start() -> None:
        g.request_id = request.headers.get("X-Request-Id", "")[:64] or uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def done(response):
        started = g.get("started")
        if started is not None and not request.path.startswith("/static/"):
            app.logger.info("request", extra={"fields": {
                "method": request.method, "path": request.path, "status": response.status_code,
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }})
        response.headers["X-Request-Id"] = g.get("request_id", "")
        return response
