"""A real S3-compatible server on loopback for the evidence tests: LocalStack's S3 (4.13.1) in
its own venv (tests/support/localstack.py), started once per test session, on a free port,
killed at the end. It checks
ChecksumSHA256 (400 BadDigest), honours If-None-Match and object lock, which is what these
tests rely on; what it does not emulate is in docs/object-storage.md.
The tests are skipped, saying why, only when the venv cannot be built."""
from __future__ import annotations

import uuid

import pytest

from tests.support.localstack import localstack


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """The endpoint URL of a LocalStack S3 running for this session."""
    with localstack(tmp_path_factory.mktemp("localstack")) as url:
        yield url


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
