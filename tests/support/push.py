"""A local Web Push service for tests (no internet): a ThreadingHTTPServer on 127.0.0.1
that records each POST and answers scripted status codes; subscriber key pairs; VAPID JWT
checks; rows for notices and inspections without going through the enforcement engine."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
import time
import uuid
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from argon2 import PasswordHasher
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from requests.structures import CaseInsensitiveDict

from inspector.extensions import db
from inspector.models import Inspection, InspectionStatus, Notice, Sanction, SanctionStatus, Service


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes
    at: float


@dataclass
class Subscriber:
    """A browser's side of a subscription: P-256 key pair and 16-byte auth secret."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def as_json(self) -> dict:
        """What `PushSubscription.toJSON()` gives in a browser."""
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)}}

    def decrypt(self, body: bytes) -> dict:
        """The JSON the service worker would read (RFC 8291 aes128gcm)."""
        plain = http_ece.decrypt(body, private_key=self.private_key, auth_secret=self.auth,
                                 version="aes128gcm")
        return json.loads(plain)


class FakePushService:
    """Records POSTs per path; answers the next scripted code for the path, else 201."""

    def __init__(self, delay: float = 0.0):
        self.received: list[Received] = []
        self.script: dict[str, deque] = defaultdict(deque)
        self.delay = delay
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with service.lock:
                    service.received.append(Received(self.path, CaseInsensitiveDict(self.headers.items()),
                                                     body, time.time()))
                    queue = service.script[self.path]
                    code = queue.popleft() if queue else 201
                if service.delay:
                    time.sleep(service.delay)
                self.send_response(code)
                if code == 429:
                    self.send_header("Retry-After", "120")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        # a short poll: shutdown() waits for the next one (the default, 0.5 s, after every test)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def endpoint(self, name: str = "x") -> str:
        return f"{self.origin}/push/{name}"

    def answer(self, name: str, *codes: int) -> None:
        """Script the next answers for /push/<name>."""
        with self.lock:
            self.script[f"/push/{name}"].extend(codes)

    def to(self, name: str) -> list[Received]:
        return [r for r in self.received if r.path == f"/push/{name}"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def vapid_claims(headers: dict, public_key_b64: str) -> dict:
    """Check the `Authorization: vapid t=<JWT>,k=<key>` header: the key is the server's and
    the ES256 signature verifies with it. Returns the JWT claims."""
    auth = headers.get("Authorization")
    assert auth and auth.startswith("vapid "), auth
    parts = dict(p.split("=", 1) for p in auth[len("vapid "):].split(","))
    assert parts["k"] == public_key_b64
    head_b64, claims_b64, sig_b64 = parts["t"].split(".")
    header = json.loads(unb64url(head_b64))
    assert header["alg"] == "ES256"
    sig = unb64url(sig_b64)
    assert len(sig) == 64
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(parts["k"]))
    key.verify(der, f"{head_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    return json.loads(unb64url(claims_b64))


# --- rows ---------------------------------------------------------------------------------------
_hasher = PasswordHasher()


def notice_row(holder, vehicle, *, code: str = "ABCDE-FGHJK", number: str | None = None,
               issued_at: datetime | None = None, deadline_at: datetime | None = None,
               town_id: int | None = None) -> Notice:
    """A confirmed notice act and its document, written straight to the tables."""
    issued_at = issued_at or datetime(2026, 12, 1, 12, tzinfo=UTC)
    town_id = town_id or holder.municipality_id
    seq = db.session.scalar(db.select(db.func.count(Notice.id))) + 1
    act = Sanction(
        municipality_id=town_id, origin_key=f"test:{uuid.uuid4().hex}", pack_id="tapurah-mototaxi",
        law="Lei 1.234/2020", rule_id="test.rule", occurrence=1, measure_index=0, kind="notice",
        target="holder", label="Notificação para regularizar", offender=f"holder:{holder.id}",
        holder_id=holder.id, vehicle_id=vehicle.id if vehicle else None,
        citation={"law": "Lei 1.234/2020", "article": "Art. 29"},
        required_action="Trocar o pneu dianteiro.", decided_by="supervisor",
        status=SanctionStatus.CONFIRMED, proposed_at=issued_at, decided_at=issued_at,
        notified_at=issued_at, updated_at=issued_at, deadline_at=deadline_at,
        appeal_until=date(2026, 12, 9))
    db.session.add(act)
    db.session.flush()
    notice = Notice(municipality_id=town_id, sanction_id=act.id,
                    number=number or f"NOT-2026/{seq:06d}", year=2026, seq=seq,
                    document_kind="notice", issued_at=issued_at, deadline_at=deadline_at,
                    access_code_hash=_hasher.hash(code))
    db.session.add(notice)
    db.session.flush()
    return notice


def inspection_row(agent, vehicle, *, failed: int = 1,
                   status: InspectionStatus = InspectionStatus.AWAITING_REVIEW) -> Inspection:
    """A synced inspection (no items needed for notifications)."""
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    body = "{}"
    insp = Inspection(municipality_id=agent.municipality_id, uuid=str(uuid.uuid4()),
                      agent_id=agent.id, vehicle_id=vehicle.id, service=Service.MOTOTAXI,
                      started_at=now - timedelta(minutes=10), finished_at=now,
                      rules_day=now.date(), body_sha256=hashlib.sha256(body.encode()).hexdigest(),
                      body=body, status=status, failed_items=failed, received_at=now,
                      completed_at=now)
    db.session.add(insp)
    db.session.flush()
    return insp
