"""The real server of a test: `python -m inspector.devserver` (gunicorn with
inspector/gunicorn_conf.py, no tick loop) on a free loopback port and the test database, and
a client that keeps its cookies as a browser on loopback would."""
from __future__ import annotations

import contextlib
import http.client
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode

from tests.support.processes import stop

ROOT = Path(__file__).resolve().parents[2]
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def devserver(schema: str, folder: Path, **env: str):
    """Start the server on `schema`, its evidence and log under `folder`; yield its port; stop
    it (its own process group)."""
    port = free_port()
    env = dict(os.environ, DATABASE_URL=schema, SECRET_KEY="test-secret", LOG_LEVEL="WARNING",
               EVIDENCE_DIR=str(folder / "evidence"), TRUSTED_PROXIES="0",
               PUBLIC_BASE_URL=f"http://127.0.0.1:{port}", **env)
    env.pop("RATELIMIT_STORAGE_URI", None)
    log_path = folder / "server.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen([sys.executable, "-m", "inspector.devserver", "--port", str(port),
                             "--tick-every", "0"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 90
    try:
        while True:
            assert proc.poll() is None, log_path.read_text()[-2000:]
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not answer /healthz"
            time.sleep(0.2)
        yield port
    finally:
        stop(proc)
        log.close()


class Browser:
    """A client that keeps the (Secure) session cookie over plain http, as a browser on
    loopback would."""

    def __init__(self, port: int):
        self.port, self.cookies = port, {}

    def send(self, method: str, path: str, body: dict | None = None,
             headers: dict | None = None, files: dict | None = None) -> http.client.HTTPResponse:
        """One request; `body` as a form, or with `files` ({field: (name, bytes)}) as
        multipart/form-data."""
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if files:
            boundary = uuid.uuid4().hex
            parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                     .encode() for k, v in (body or {}).items()]
            parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"; '
                      f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                      .encode() + content + b"\r\n" for k, (name, content) in files.items()]
            data = b"".join(parts) + f"--{boundary}--\r\n".encode()
            headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
        elif body is not None:
            data = urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        r.text = r.read().decode("utf-8", "replace")
        conn.close()
        for value in r.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return r

    def token(self, path: str = "/entrar") -> str:
        return _TOKEN.search(self.send("GET", path).text).group(1)
