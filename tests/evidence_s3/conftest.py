"""A real S3-compatible server on loopback for the evidence tests: LocalStack's S3 (4.13.1) in
its own venv, `.venv-s3/` (made by `make s3-emulator`, a step of `make test`; made here when
missing). Started once per test session, on a free port, killed at the end. It checks
ChecksumSHA256 (400 BadDigest), honours If-None-Match and object lock, which is what these
tests rely on; what it does not emulate is in README ("Evidence in object storage").
The tests are skipped, saying why, only when the venv cannot be built."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-s3"
READY = VENV / ".installed"


def _emulator() -> Path:
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """The endpoint URL of a LocalStack S3 running for this session."""
    python = _emulator()
    port = _free_port()
    data = tmp_path_factory.mktemp("localstack")
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
        # killed outright: its storage is this session's temporary folder, and a graceful
        # stop costs LocalStack 5-8 s
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        log.close()


S3_SETTINGS = {"EVIDENCE_S3_ACCESS_KEY_ID": "test", "EVIDENCE_S3_SECRET_ACCESS_KEY": "test",
               "EVIDENCE_S3_REGION": "us-east-1", "EVIDENCE_S3_PREFIX": "evidencias/"}


@pytest.fixture
def bucket(s3_server):
    """A new empty bucket of this test's own, and a boto3 client to look into it."""
    import boto3

    name = f"prova-{uuid.uuid4().hex[:12]}"
    client = boto3.client("s3", endpoint_url=s3_server, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test")
    client.create_bucket(Bucket=name)
    return {"name": name, "client": client, "endpoint": s3_server}


@pytest.fixture
def s3_config(app, bucket):
    """What the app needs to use the bucket (the backend itself is chosen by each test)."""
    settings = {**S3_SETTINGS, "EVIDENCE_S3_BUCKET": bucket["name"],
                "EVIDENCE_S3_ENDPOINT_URL": bucket["endpoint"]}
    app.config.update(settings)
    return settings
