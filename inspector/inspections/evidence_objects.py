"""Evidence photos in an S3-compatible object store (AWS S3, MinIO, Ceph RGW), the second
backend beside the local packs (evidence_store.py); chosen by EVIDENCE_BACKEND=s3.

- Content addressed: a photo is the object `<prefix><town slug>/<sha256[:2]>/<sha256>`. The
  row keeps `pack = "s3"` and the key is derived from the town and the hash, so no column
  was added and nothing in the key can disagree with the row.
- The store checks the bytes itself: every upload carries `ChecksumSHA256` (base64 of the
  digest), and the store refuses (400 BadDigest) bytes that are not those; an upload is
  acknowledged to the phone only after the store answered 200 and before the row commits.
- Never overwritten: uploads send `If-None-Match: *`; an object already there (a resend, a
  migration resumed) is read back and hashed before it is trusted. A store without
  conditional writes (501) gets a HEAD first instead.
- Only the API AWS S3, MinIO and Ceph share: PutObject, GetObject, HeadObject,
  ListObjectsV2. Reads stream in 1 MiB blocks: one photo at a time, never a town.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from flask import current_app

from inspector.errors import InspectorError

MARK = "s3"  # Photo.pack of a photo kept in the object store
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
BLOCK = 1 << 20


class StoreError(InspectorError):
    """The object store refused or failed an operation (the detail, in pt-BR, for the
    operator: the log, the CLI). A request that meets one answers 503 with `message`, which
    names no key, endpoint or library error: nothing was acknowledged, the phone sends the
    photo again."""

    status = 503

    @property
    def message(self) -> str:
        """What the agent (or the supervisor opening a photo) reads."""
        return ("O armazenamento das fotos não respondeu agora. Nada foi perdido; tente de "
                "novo em instantes (o aplicativo de campo reenvia a foto sozinho).")


class NotConfigured(StoreError):
    """EVIDENCE_S3_BUCKET is not set."""


@dataclass(frozen=True)
class Settings:
    bucket: str
    prefix: str = ""
    endpoint_url: str | None = None
    region: str | None = None
    access_key_id: str | None = None
    secret_access_key: str | None = None


def settings(config=None) -> Settings:
    """The object store this app's configuration names; NotConfigured without a bucket."""
    config = config if config is not None else current_app.config
    bucket = (config.get("EVIDENCE_S3_BUCKET") or "").strip()
    if not bucket:
        raise NotConfigured("armazenamento de objetos não configurado: defina "
                            "EVIDENCE_S3_BUCKET (docs/object-storage.md)")
    prefix = (config.get("EVIDENCE_S3_PREFIX") or "").strip().lstrip("/")
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    return Settings(bucket, prefix, config.get("EVIDENCE_S3_ENDPOINT_URL") or None,
                    config.get("EVIDENCE_S3_REGION") or None,
                    config.get("EVIDENCE_S3_ACCESS_KEY_ID") or None,
                    config.get("EVIDENCE_S3_SECRET_ACCESS_KEY") or None)


_clients: dict[tuple, object] = {}
_clients_lock = threading.Lock()


def _client(s: Settings):
    """One boto3 client per process and settings (they are thread-safe; making one costs
    tens of milliseconds)."""
    key = (os.getpid(), s)
    client = _clients.get(key)
    if client is None:
        import boto3
        from botocore.config import Config

        with _clients_lock:
            client = _clients.get(key)
            if client is None:
                client = boto3.client(
                    "s3", endpoint_url=s.endpoint_url, region_name=s.region or "us-east-1",
                    aws_access_key_id=s.access_key_id, aws_secret_access_key=s.secret_access_key,
                    config=Config(
                        # path-style: what MinIO, Ceph and a store on its own host name serve
                        s3={"addressing_style": "path" if s.endpoint_url else "auto"},
                        # our own SHA-256 only; botocore's default CRC32 trailers are
                        # not understood by every S3-compatible store
                        request_checksum_calculation="when_required",
                        response_checksum_validation="when_required",
                        retries={"max_attempts": 3, "mode": "standard"},
                        connect_timeout=5, read_timeout=60))
                _clients[key] = client
    return client


def _code(e) -> str:
    return str(e.response.get("Error", {}).get("Code", ""))


def _status(e) -> int:
    return int(e.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)


class ObjectStore:
    """The evidence objects of one bucket and prefix."""

    def __init__(self, s: Settings):
        self.s = s
        self.client = _client(s)

    def key(self, town: str, sha256: str) -> str:
        if not _SHA256.fullmatch(sha256):
            raise ValueError(f"not a SHA-256 in lower-case hex: {sha256!r}")
        if not _SLUG.fullmatch(town):
            raise ValueError(f"not a town slug: {town!r}")
        return f"{self.s.prefix}{town}/{sha256[:2]}/{sha256}"

    def put(self, town: str, sha256: str, data: bytes) -> bool:
        """Keep `data` (whose SHA-256 the caller computed) as its town's object: True when
        written now, False when the same bytes were already there (read back and hashed).
        StoreError when the store refused the bytes (its own checksum check) or holds other
        bytes under that name."""
        from botocore.exceptions import BotoCoreError, ClientError

        key = self.key(town, sha256)
        checksum = base64.b64encode(bytes.fromhex(sha256)).decode()
        args = {"Bucket": self.s.bucket, "Key": key, "Body": data,
                "ChecksumSHA256": checksum, "ContentLength": len(data),
                "ContentType": "application/octet-stream"}
        try:
            try:
                self.client.put_object(IfNoneMatch="*", **args)
                return True
            except ClientError as e:
                if _status(e) == 412 or _code(e) in ("PreconditionFailed",
                                                     "ConditionalRequestConflict"):
                    return self._same(town, sha256)
                if _status(e) != 501 and _code(e) != "NotImplemented":
                    raise
            # a store without conditional writes: look first (a race writes the same bytes)
            if self.exists(town, sha256):
                return self._same(town, sha256)
            self.client.put_object(**args)
            return True
        except ClientError as e:
            raise StoreError(f"o armazenamento recusou {key}: {_code(e) or _status(e)} "
                             f"({e.response.get('Error', {}).get('Message', '')})") from e
        except BotoCoreError as e:
            raise StoreError(f"armazenamento inacessível ao gravar {key}: {e}") from e

    def _same(self, town: str, sha256: str) -> bool:
        found = self.digest(town, sha256)
        if found != sha256:
            raise StoreError(f"{self.key(town, sha256)} já existe com outro conteúdo "
                             f"(SHA-256 {found}); nada foi sobrescrito")
        return False

    def exists(self, town: str, sha256: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=self.s.bucket, Key=self.key(town, sha256))
            return True
        except ClientError as e:
            if _status(e) == 404 or _code(e) in ("404", "NoSuchKey", "NotFound"):
                return False
            raise

    def stream(self, town: str, sha256: str) -> Iterator[bytes] | None:
        """The object's bytes in blocks, or None when there is no such object; StoreError
        when the store does not answer (a request reading it answers 503)."""
        from botocore.exceptions import BotoCoreError, ClientError

        key = self.key(town, sha256)
        try:
            got = self.client.get_object(Bucket=self.s.bucket, Key=key)
        except ClientError as e:
            if _status(e) == 404 or _code(e) in ("NoSuchKey", "404"):
                return None
            raise StoreError(f"o armazenamento recusou a leitura de {key}: "
                             f"{_code(e) or _status(e)}") from e
        except BotoCoreError as e:
            raise StoreError(f"armazenamento inacessível ao ler {key}: {e}") from e
        body = got["Body"]

        def blocks() -> Iterator[bytes]:
            try:
                yield from body.iter_chunks(BLOCK)
            finally:
                body.close()
        return blocks()

    def read(self, town: str, sha256: str, size: int) -> bytes | None:
        """One photo's bytes (None: no such object, or not of that size)."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            blocks = self.stream(town, sha256)
            if blocks is None:
                return None
            data = b"".join(blocks)
        except (StoreError, ClientError, BotoCoreError):
            current_app.logger.exception("evidence object %s unreadable", sha256)
            return None
        return data if len(data) == size else None

    def digest(self, town: str, sha256: str) -> str | None:
        """The SHA-256 of the object's bytes as read now, streamed (None: no object)."""
        blocks = self.stream(town, sha256)
        if blocks is None:
            return None
        h = hashlib.sha256()
        for block in blocks:
            h.update(block)
        return h.hexdigest()

    def keys(self, town: str | None = None) -> Iterator[str]:
        """The keys under the prefix (of one town), page by page."""
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.s.bucket, Prefix=self.s.prefix + (f"{town}/" if town else ""))
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"]


def object_store(config=None) -> ObjectStore:
    """This app's object store (NotConfigured without EVIDENCE_S3_BUCKET)."""
    return ObjectStore(settings(config))
