"""A real S3-compatible server on loopback: LocalStack's S3 (4.13.1) in its own venv,
`.venv-s3/` (made by `make s3-emulator`, a step of `make test`; made here when missing).
It checks ChecksumSHA256 (400 BadDigest), honours If-None-Match and object lock; what it does
not emulate is in docs/object-storage.md. Used by tests/evidence_s3 and
tests/multinode; the tests are skipped, saying why, only when the venv cannot be built."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-s3"
READY = VENV / ".installed"


def emulator() -> Path:
    """The venv's python, built with the Makefile's recipe when missing; skip if it cannot."""
    if not READY.exists():
        try:
            subprocess.run(["make", "-s", "s3-emulator"], cwd=ROOT, check=False, timeout=600,
                           capture_output=True)
        except (OSError, subprocess.TimeoutExpired) as e:
            pytest.skip(f".venv-s3 (LocalStack S3) could not be built: {e}")
        if not READY.exists():
            pytest.skip(".venv-s3 (LocalStack S3) could not be built: `make s3-emulator` "
                        "failed (no access to the package index?)")
    return VENV / "bin" / "python"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def localstack(data: Path) -> Iterator[str]:
    """Run LocalStack's S3 with its files under `data`; yields its endpoint URL."""
    python = emulator()
    port = free_port()
    env = {**os.environ, "SERVICES": "s3", "GATEWAY_LISTEN": f"127.0.0.1:{port}",
           "DNS_ADDRESS": "0", "SKIP_SSL_CERT_DOWNLOAD": "1", "DISABLE_EVENTS": "1",
           "LOCALSTACK_VOLUME_DIR": str(data / "volume"), "FILESYSTEM_ROOT": str(data / "fs"),
           "EAGER_SERVICE_LOADING": "1"}
    log = open(data / "localstack.log", "wb")
    proc = subprocess.Popen([str(python), "-m", "localstack.runtime.main"], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"LocalStack exited ({proc.returncode}): "
                            f"{(data / 'localstack.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_localstack/health", timeout=2) as r:
                    if json.load(r)["services"].get("s3") in ("available", "running"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("LocalStack S3 did not answer in 90 s")
            time.sleep(0.2)
        yield url
    finally:
        # killed outright: its storage is a temporary folder, and a graceful stop costs
        # LocalStack 5-8 s
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        log.close()
