"""gunicorn's settings for the real server: `gunicorn -c python:inspector.gunicorn_conf ...`
(`make run` through inspector/devserver.py; docs/security.md).

- One worker process with threads (gthread). Flask-Limiter's default store (memory://) lives
  in the process that answers, so "10 tries a minute" is 10 for the whole server. With two
  worker processes each counted alone and the limit was doubled. More processes need a shared
  store (RATELIMIT_STORAGE_URI=redis://...): start gunicorn with --workers N then.
- gunicorn answers some requests itself, before the application sees them: a request line
  over `limit_request_line` bytes, more than `limit_request_fields` headers or one over
  `limit_request_field_size`, a request that is not HTTP. Those answers (400, 431, ...) carry
  the application's security headers and a Portuguese page too (`HeaderedThreadWorker`).
- A keep-alive connection is closed by the client, never by gunicorn under it (`keepalive`).
"""
from __future__ import annotations

import html
import os

from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker

workers = 1
threads = int(os.environ.get("WEB_THREADS") or 8)
worker_class = "inspector.gunicorn_conf.HeaderedThreadWorker"
# gunicorn's defaults, written out: a URL longer than 4 KB is refused by gunicorn (our own
# longest, a login with its `next`, stays under 2.2 KB), a header over 8 KB or the 101st header
# too; all of these answers go through HeaderedThreadWorker.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
# gthread closes a connection idle for `keepalive` s without looking whether a request has
# just arrived on it: the client that reused it at that moment gets it closed or reset with no
# answer (bench/keepalive.py, 100 clients idle 1-4 s: 2-3 of ~1,750 requests lost with
# gunicorn's default 2 s, none with this value). So the client must always close first:
# nginx keeps an idle upstream connection 60 s (keepalive_timeout, deploy/nginx.conf; a photo
# PUT whose body it did not buffer it cannot resend: a 502), bench/load.py's users under 20 s.
# An idle connection holds one of worker_connections (1000; beyond it the worker stops
# accepting): behind nginx they are at most its `keepalive 16` per nginx worker.
keepalive = 75

REFUSALS = {
    400: "O pedido não pôde ser entendido.",
    403: "Pedido recusado.",
    431: "O pedido tem cabeçalhos grandes demais.",
    500: "Erro interno. A equipe foi avisada.",
    501: "O pedido usa uma codificação que o servidor não aceita.",
}


def refusal(status: int, reason: str) -> bytes:
    """The whole HTTP answer gunicorn sends for a request it refused: status, the
    application's security headers, a small pt-BR page."""
    from inspector.security import SECURITY_HEADERS

    text = REFUSALS.get(status, REFUSALS[400])
    body = ("<!doctype html>\n<html lang=\"pt-BR\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(text)}</title></head><body><h1>{html.escape(text)}</h1>"
            "</body></html>\n").encode()
    lines = [f"HTTP/1.1 {status} {reason}", "Connection: close",
             "Content-Type: text/html; charset=utf-8", f"Content-Length: {len(body)}",
             "Cache-Control: no-store"]
    lines += [f"{name}: {value}" for name, value in SECURITY_HEADERS.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def write_refusal(sock, status_int: int, reason: str, mesg: str) -> None:
    """In place of gunicorn.util.write_error (its English message stays in gunicorn's log)."""
    util.write_nonblock(sock, refusal(int(status_int), reason))


class HeaderedThreadWorker(ThreadWorker):
    """gunicorn's threaded worker whose own refusals carry the security headers."""

    def init_process(self):
        """In the worker process, before it serves: refusals are written by write_refusal."""
        util.write_error = write_refusal
        super().init_process()
