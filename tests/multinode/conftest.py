"""One deployment of two app servers for every test of tests/multinode (package scope: started
once): two gunicorn processes, each with its own instance folder, sharing one PostgreSQL
database (a throwaway one), one S3 bucket (LocalStack, tests/support/localstack.py), one Redis
(Debian's redis-server) and the SECRET_KEY, as docs/production.md ("Several app servers") says to run them.
A test that stops or freezes Redis leaves it running again."""
from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from inspector import create_app
from inspector.extensions import db
from tests.multinode.nodes import ROOT, URL, Node, RedisServer, healthy, wait
from tests.support.config import app_config
from tests.support.databases import private_database
from tests.support.localstack import free_port, localstack
from tests.support.processes import stop


@pytest.fixture(scope="package")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="package")
def shared_db():
    """A PostgreSQL database of the package's own, migrated; dropped at the end."""
    if not URL.startswith("postgresql"):
        pytest.skip("two app servers share one database: needs DATABASE_URL=postgresql+...")
    import flask_migrate

    with private_database(URL, "multinode") as url:
        app = create_app(app_config(url))
        with app.app_context():
            flask_migrate.upgrade()
            db.engine.dispose()
        yield url


@pytest.fixture(scope="package")
def bucket(tmp_path_factory):
    import boto3

    with localstack(tmp_path_factory.mktemp("localstack")) as endpoint:
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                              aws_access_key_id="test", aws_secret_access_key="test")
        name = f"multinode-{uuid.uuid4().hex[:10]}"
        client.create_bucket(Bucket=name)
        yield {"name": name, "client": client, "endpoint": endpoint}


@pytest.fixture(scope="package")
def cluster(shared_db, redis_server, bucket, tmp_path_factory):
    """Nodes A and B: `gunicorn -c python:inspector.gunicorn_conf` each, as `make serve` runs
    it, with the settings docs/production.md ("Several app servers") lists; and an app object on the same
    database for the test's own rows and checks."""
    root = tmp_path_factory.mktemp("nodes")
    common = {k: v for k, v in os.environ.items()
              if not k.startswith(("EVIDENCE_", "RATELIMIT_", "INSPECTOR_"))}
    common.update(DATABASE_URL=shared_db, SECRET_KEY="multinode-" + "k" * 40,
                  RATELIMIT_STORAGE_URI=redis_server.url, EVIDENCE_BACKEND="s3",
                  EVIDENCE_S3_BUCKET=bucket["name"], EVIDENCE_S3_ENDPOINT_URL=bucket["endpoint"],
                  EVIDENCE_S3_REGION="us-east-1", EVIDENCE_S3_ACCESS_KEY_ID="test",
                  EVIDENCE_S3_SECRET_ACCESS_KEY="test", EVIDENCE_S3_PREFIX="evidencias/",
                  LOG_LEVEL="WARNING", TRUSTED_PROXIES="0")
    nodes, procs, logs = [], [], []
    for name in ("a", "b"):
        folder = root / name
        folder.mkdir()
        port = free_port()
        env = dict(common, INSPECTOR_INSTANCE_DIR=str(folder), PORT=str(port),
                   PUBLIC_BASE_URL=f"http://127.0.0.1:{port}")
        nodes.append(Node(name, folder, env))
        log = open(folder / "server.log", "wb")
        logs.append(log)
        procs.append(subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "--config",
             "python:inspector.gunicorn_conf", "--workers", "1", "--bind", f"127.0.0.1:{port}",
             "inspector:create_app()"], cwd=ROOT, env=env, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True))
    app = create_app(app_config(shared_db) | {"EVIDENCE_BACKEND": "s3"}
                     | {k: v for k, v in common.items() if k.startswith("EVIDENCE_S3_")})
    try:
        for node, proc in zip(nodes, procs, strict=True):
            wait(proc, healthy(node.port), node.folder / "server.log", f"node {node.name}")
        yield {"a": nodes[0], "b": nodes[1], "app": app, "redis": redis_server.url,
               "redis_server": redis_server, "bucket": bucket}
    finally:
        stop(*procs, grace=15)
        for log in logs:
            log.close()
        with app.app_context():
            db.engine.dispose()
