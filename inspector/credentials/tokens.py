"""The credential token: a compact, signed, URL-safe string printed inside the QR code.

Pure Python (no Flask, no database), so the same rules can be ported to the field
app's offline verifier. Layout (version 1, big-endian, 94 bytes, 126 base64url chars):

    0   1  version (1)
    1   2  key id (kid) of the Ed25519 key that signed it
    3   1  kind: 1 = vehicle, 2 = driver, 3 = vistoria certificate (inspector/vistorias)
    4   4  town: IBGE code
    8   4  subject: the vehicle's or the driver's id in the registry (the vistoria's id)
   12   2  expiry: days since 1970-01-01; the token is valid through that day
   14  16  nonce: 128 random bits (no two tokens alike, nothing to enumerate)
   30  64  Ed25519 signature over bytes 0..29

See docs/credentials.md.
"""
from __future__ import annotations

import base64
import binascii
import secrets
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

VERSION = 1
EPOCH = date(1970, 1, 1)
_HEAD = struct.Struct(">BHBIIH16s")
SIGNED_LEN = _HEAD.size  # 30
SIG_LEN = 64
TOKEN_BYTES = SIGNED_LEN + SIG_LEN  # 94
TOKEN_CHARS = 126
KINDS = {1: "vehicle", 2: "driver", 3: "vistoria"}
KIND_CODES = {v: k for k, v in KINDS.items()}


@dataclass(frozen=True)
class Claims:
    """What a verified token says."""

    kid: int
    kind: str          # "vehicle" | "driver" | "vistoria"
    town_ibge: str     # 7-digit IBGE code
    subject_id: int
    expires_on: date
    nonce: bytes


@dataclass(frozen=True)
class PublicKey:
    """A verification key as the verifier knows it: raw bytes and the last day it vouches for."""

    kid: int
    raw: bytes                 # 32-byte Ed25519 public key
    verify_until: date | None  # None: the key is still signing


class TokenRejected(Exception):
    """The token is not a valid credential; `reason` says why in one word."""

    REASONS = ("malformed", "unknown_key", "bad_signature", "expired", "key_expired")

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def b64e(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64d(text: str) -> bytes:
    """Decode base64url without padding; strict about the alphabet."""
    if not text or len(text) % 4 == 1:
        raise ValueError("bad length")
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def encode(private_key: Ed25519PrivateKey, kid: int, kind: str, town_ibge: str,
           subject_id: int, expires_on: date, nonce: bytes | None = None) -> str:
    """Build and sign a token."""
    nonce = nonce if nonce is not None else secrets.token_bytes(16)
    if len(nonce) != 16:
        raise ValueError("nonce must be 16 bytes")
    body = _HEAD.pack(VERSION, kid, KIND_CODES[kind], int(town_ibge), subject_id,
                      (expires_on - EPOCH).days, nonce)
    return b64e(body + private_key.sign(body))


def parse(token: str) -> tuple[Claims, bytes, bytes]:
    """Split a token into its claims, signed bytes and signature (no verification)."""
    if len(token) != TOKEN_CHARS:
        raise TokenRejected("malformed")
    try:
        raw = b64d(token)
    except (ValueError, binascii.Error):
        raise TokenRejected("malformed") from None
    if len(raw) != TOKEN_BYTES or b64e(raw) != token:  # one spelling per token
        raise TokenRejected("malformed")
    version, kid, kind, ibge, subject, days, nonce = _HEAD.unpack(raw[:SIGNED_LEN])
    if version != VERSION or kind not in KINDS:
        raise TokenRejected("malformed")
    claims = Claims(kid=kid, kind=KINDS[kind], town_ibge=f"{ibge:07d}", subject_id=subject,
                    expires_on=EPOCH + timedelta(days=days), nonce=nonce)
    return claims, raw[:SIGNED_LEN], raw[SIGNED_LEN:]


_CLAIM_HEAD = struct.Struct(">BHBI")   # version, kid, kind, town: the first 8 bytes
_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def claimed_town(token: str) -> str | None:
    """The IBGE code a token claims, read from its head with nothing else checked (a forged,
    altered or truncated code still names a town); None when no town can be read. Never
    proof of anything: only where to send a report about the code."""
    if not 12 <= len(token) <= TOKEN_CHARS or not _B64URL.issuperset(token):
        return None
    try:
        raw = b64d(token[:12])   # 12 characters are the first 9 bytes
    except (ValueError, binascii.Error):
        return None
    version, _kid, kind, ibge = _CLAIM_HEAD.unpack(raw[:_CLAIM_HEAD.size])
    if version != VERSION or kind not in KINDS:
        return None
    return f"{ibge:07d}"


def claimed_kind(token: str) -> str | None:
    """The kind a token's head claims ("vehicle", "driver", "vistoria"), nothing checked: only
    which page should verify it."""
    if not 12 <= len(token) <= TOKEN_CHARS or not _B64URL.issuperset(token):
        return None
    try:
        raw = b64d(token[:12])
    except (ValueError, binascii.Error):
        return None
    version, _kid, kind, _ibge = _CLAIM_HEAD.unpack(raw[:_CLAIM_HEAD.size])
    return KINDS.get(kind) if version == VERSION else None


def verify(token: str, keys: Mapping[int, PublicKey], today: date) -> Claims:
    """The token's claims if it is well formed, signed by a known key and not expired."""
    return verify_parsed(parse(token), keys, today)


def verify_parsed(parsed: tuple[Claims, bytes, bytes], keys: Mapping[int, PublicKey],
                  today: date) -> Claims:
    """`verify` for a token already split by `parse`."""
    claims, body, signature = parsed
    key = keys.get(claims.kid)
    if key is None:
        raise TokenRejected("unknown_key")
    try:
        Ed25519PublicKey.from_public_bytes(key.raw).verify(signature, body)
    except InvalidSignature:
        raise TokenRejected("bad_signature") from None
    if key.verify_until is not None and claims.expires_on > key.verify_until:
        raise TokenRejected("key_expired")
    if today > claims.expires_on:
        raise TokenRejected("expired")
    return claims


_DUMMY_KEY = Ed25519PrivateKey.generate()
_DUMMY_PUB = _DUMMY_KEY.public_key()
_DUMMY_BODY = bytes(SIGNED_LEN)
_DUMMY_SIG = _DUMMY_KEY.sign(_DUMMY_BODY)


def burn_verification() -> None:
    """Spend the time of one signature check, for answers that must not be faster."""
    _DUMMY_PUB.verify(_DUMMY_SIG, _DUMMY_BODY)
