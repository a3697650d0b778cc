"""Response compression (Flask-Compress) for the app shell's static files and JSON answers.

What is compressed: CSS, JavaScript, the web app manifest, the QR decoder's WebAssembly,
JSON (the field snapshot above all: megabytes of text for a town), SVG; only successful
full answers (200) of at least COMPRESS_MIN_SIZE bytes, with gzip or Brotli as the client
asks (`Accept-Encoding`). Every answer says `Vary: Accept-Encoding`, so a cache never hands
compressed bytes to a client that did not ask for them. A compressed answer's strong ETag
gets the encoding appended (`"abc"` -> `"abc:gzip"`), so the plain and the compressed
representations never share a validator and `If-None-Match` still answers 304.

What is never compressed, because of BREACH: an HTML page, or any answer, that carries
a CSRF token. BREACH recovers a secret from the *compressed size* of answers that also
reflect something the attacker controls (a search box, a form field sent back with an
error, a `?next=` parameter): every guess that matches the secret compresses a few bytes
better. Our server-rendered pages put the CSRF token in a `<meta>` tag and in forms, and
many of them echo the query or the submitted values, so they go out uncompressed
(they are small; the bulk of the bytes is in the static files and the snapshot). The
rule is enforced twice: `text/html` is compressed only for pages listed in
STATIC_HTML_ENDPOINTS (the field shell `/campo` and the law texts `/leis/<law>`: the same
bytes for everyone, no token, no user input), and no answer is compressed once a CSRF
token was generated while handling the request (Flask-WTF keeps it on `g`), whatever its
type: that covers `GET /api/field/session`, which hands the phone its token.

A static file is compressed once per process and encoding, not on every request: its
compressed bytes are kept under its file's name, its ETag (which changes with the file's mtime
and size, so an edited file is compressed anew) and the encoding. Every phone installing
the service worker downloads the whole shell, the 1 MB QR decoder included (27 ms of
Brotli each time otherwise). At most one entry per static file and encoding is kept.
"""
from __future__ import annotations

import posixpath

from flask import Flask, Response, current_app, g, request
from flask_compress import Compress

# Flask-Compress's own choice of encoding from Accept-Encoding (pinned version,
# pyproject.toml): the cache below must pick exactly what the library would
from flask_compress.flask_compress import _choose_algorithm

compress = Compress()

MIMETYPES = [
    "text/css",
    "text/javascript",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "application/wasm",
    "image/svg+xml",
    "text/html",  # only for STATIC_HTML_ENDPOINTS, see _compressible()
]
# HTML pages that are the same for everyone and reflect no input (no CSRF token either):
# the field shell and the law texts it precaches (an unknown law is a 404, never compressed).
STATIC_HTML_ENDPOINTS = frozenset({"field.shell", "laws.law"})

SETTINGS = {
    "COMPRESS_REGISTER": False,          # our own after_request decides, then delegates
    "COMPRESS_MIMETYPES": MIMETYPES,
    "COMPRESS_MIN_SIZE": 1024,           # below this the headers cost more than they save
    "COMPRESS_LEVEL": 6,                 # gzip
    "COMPRESS_BR_LEVEL": 5,
    "COMPRESS_ALGORITHM": ["br", "gzip"],
    # Static files are streamed from disk; Flask-Compress leaves gzip out of its streaming
    # list by default, but every browser and our bench ask for gzip: allow it.
    "COMPRESS_ALGORITHM_STREAMING": ["br", "gzip"],
    "COMPRESS_STREAMS": True,
}


def init_app(app: Flask) -> None:
    """Configure Flask-Compress (instance or test config may override) and hook it in."""
    for key, value in SETTINGS.items():
        app.config.setdefault(key, value)
    compress.init_app(app)
    app.after_request(_after_request)


def _compressible(response: Response) -> bool:
    """Whether this answer may be compressed at all (the BREACH rules above)."""
    if response.status_code != 200:  # 206 ranges, 304s, errors: left as they are
        return False
    field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    if field in g:  # a CSRF token was generated for this answer
        return False
    if response.mimetype == "text/html":
        return request.endpoint in STATIC_HTML_ENDPOINTS
    return True


def _after_request(response: Response) -> Response:
    if not _compressible(response):
        response.vary.add("Accept-Encoding")
        return response
    if request.endpoint == "static" and response.is_streamed:
        return _static_file(response)
    return compress.after_request(response)


def _static_file(response: Response) -> Response:
    """A static file's answer, compressed from the bytes kept for it (or compressed now and
    kept): the same headers and conditional answers Flask-Compress gives."""
    etag, weak = response.get_etag()
    encoding = _choose_algorithm(compress.enabled_algorithms,
                                 request.headers.get("Accept-Encoding", ""))
    if etag is None or weak or encoding is None:
        return compress.after_request(response)
    kept = current_app.extensions.setdefault("compressed_static", {})
    # the file as found on disk: "css//app.css" and "css/./app.css" are one entry
    key = (posixpath.normpath((request.view_args or {}).get("filename", "")), encoding)
    held = kept.get(key)
    if held is not None and held[0] == etag:
        response.response.close()  # the open file is not read
        response.direct_passthrough = False
        response.set_data(held[1])
        response.headers["Content-Encoding"] = encoding
        response.vary.add("Accept-Encoding")
        response.set_etag(f"{etag}:{encoding}")
        return response.make_conditional(request)
    response.direct_passthrough = False
    response.set_data(response.get_data())  # read whole: compressed whole, then kept
    out = compress.after_request(response)
    if out.status_code == 200 and out.headers.get("Content-Encoding") == encoding:
        kept[key] = (etag, out.get_data())
    return out
