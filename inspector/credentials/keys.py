"""Signing keys for credentials: created on first use, encrypted at rest, rotated on demand.

Private keys live in the database (every worker and every server sees the same key),
encrypted with AES-256-GCM under a key derived (HKDF-SHA256) from the app's
SECRET_KEY, the key id bound as associated data. A copy of the database alone cannot
sign credentials. If SECRET_KEY changes, the old private keys can no longer be read:
`flask credentials rotate-key` makes a new one and the old public keys keep verifying.
"""
from __future__ import annotations

import os
import threading
import time
from datetime import date

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app
from sqlalchemy import func, select, text

from inspector import audit, clock
from inspector.clock import default_day
from inspector.credentials.tokens import PublicKey, b64e
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Credential, SigningKey, Vistoria

# bench/caches.py: 0.1 ms a passenger page without it (a key read per request), 6% of /healthz
CACHE_SECONDS = 60
_lock = threading.Lock()


def _wrapping_key() -> bytes:
    """The AES key that encrypts private keys, derived from SECRET_KEY."""
    secret = current_app.config["SECRET_KEY"]
    secret = secret.encode() if isinstance(secret, str) else secret
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=b"inspector credential signing key v1").derive(secret)


def _encrypt(raw: bytes, kid: int) -> bytes:
    nonce = os.urandom(12)
    return nonce + AESGCM(_wrapping_key()).encrypt(nonce, raw, f"kid:{kid}".encode())


def _decrypt(blob: bytes, kid: int) -> bytes:
    try:
        return AESGCM(_wrapping_key()).decrypt(blob[:12], blob[12:], f"kid:{kid}".encode())
    except InvalidTag:
        raise ValidationFailed({"chave": f"a chave de assinatura {kid} não pode ser lida com a "
                                         "SECRET_KEY atual; rode `flask credentials rotate-key`"}
                               ) from None


def _new_key(kid: int) -> SigningKey:
    private = Ed25519PrivateKey.generate()
    raw_private = private.private_bytes(serialization.Encoding.Raw,
                                        serialization.PrivateFormat.Raw,
                                        serialization.NoEncryption())
    raw_public = private.public_key().public_bytes(serialization.Encoding.Raw,
                                                   serialization.PublicFormat.Raw)
    return SigningKey(kid=kid, public_key=raw_public, private_key_enc=_encrypt(raw_private, kid),
                      created_at=clock.now())


def active_key() -> SigningKey | None:
    """The key that signs new credentials (the newest one not retired)."""
    return db.session.scalar(select(SigningKey).where(SigningKey.retired_at.is_(None))
                             .order_by(SigningKey.kid.desc()).limit(1))


def _lock_keys() -> None:
    """Serialise key creation between workers (PostgreSQL; SQLite has one writer anyway)."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock(4242002)"))


def ensure_active_key(actor=None) -> SigningKey:
    """The active key, created now if there is none (first use)."""
    key = active_key()
    if key is not None:
        return key
    _lock_keys()
    key = active_key()  # another worker may have made it while we waited
    if key is not None:
        return key
    kid = (db.session.scalar(select(func.max(SigningKey.kid))) or 0) + 1
    key = _new_key(kid)
    db.session.add(key)
    db.session.flush()
    audit.record("signing_key_created", "signing_key", kid, after={"kid": kid}, actor=actor)
    invalidate_cache()
    return key


def private_key(key: SigningKey) -> Ed25519PrivateKey:
    """The decrypted private half of a key."""
    return Ed25519PrivateKey.from_private_bytes(_decrypt(key.private_key_enc, key.kid))


def rotate_keys(actor=None) -> SigningKey:
    """Retire the active key and make a new one; the old one verifies what it signed until
    the last of those credentials expires."""
    _lock_keys()
    old = active_key()
    kid = (db.session.scalar(select(func.max(SigningKey.kid))) or 0) + 1
    if old is not None:
        last = db.session.scalar(select(func.max(Credential.expires_on))
                                 .where(Credential.kid == old.kid))
        # vistoria certificates are signed by the same key (inspector/vistorias): the latest
        # one's last day is an upper bound of what the old key signed
        certificates = db.session.scalar(select(func.max(Vistoria.valid_until))
                                         .where(Vistoria.token.is_not(None)))
        last = max(d for d in (last, certificates) if d is not None) \
            if (last or certificates) else None
        old.retired_at = clock.now()
        # a signing key serves every town: with nothing signed, the default clock's day
        old.verify_until = last or default_day()
    new = _new_key(kid)
    db.session.add(new)
    db.session.flush()
    audit.record("signing_key_rotated", "signing_key", kid,
                 before=None if old is None else {"kid": old.kid,
                                                  "verify_until": old.verify_until},
                 after={"kid": kid}, actor=actor)
    invalidate_cache()
    return new


def all_keys() -> list[SigningKey]:
    """Every key, oldest first."""
    return list(db.session.scalars(select(SigningKey).order_by(SigningKey.kid)))


def public_key_set(today: date | None = None) -> list[dict]:
    """The keys a verifier needs (JWK-like): every key that still vouches for something."""
    # one key set for every town: without a town's day, the default clock's (Mato Grosso's)
    today = today or default_day()
    out = []
    for k in all_keys():
        if k.verify_until is not None and k.verify_until < today:
            continue
        out.append({"kid": k.kid, "alg": "EdDSA", "crv": "Ed25519", "kty": "OKP",
                    "x": b64e(k.public_key), "created_at": k.created_at.isoformat(),
                    "signing": k.retired_at is None,
                    "verify_until": k.verify_until.isoformat() if k.verify_until else None})
    return out


def _cache() -> dict:
    return current_app.extensions.setdefault("credential_keys", {"at": 0.0, "keys": {}})


def invalidate_cache() -> None:
    """Forget the cached public keys of this process."""
    _cache()["at"] = 0.0


def verification_keys() -> dict[int, PublicKey]:
    """Public keys by kid, cached in the process for a minute."""
    cache = _cache()
    if time.monotonic() - cache["at"] > CACHE_SECONDS:
        with _lock:
            cache["keys"] = {k.kid: PublicKey(k.kid, bytes(k.public_key), k.verify_until)
                             for k in all_keys()}
            cache["at"] = time.monotonic()
    return cache["keys"]


def refresh_if_unknown(kid: int) -> dict[int, PublicKey]:
    """The key set, re-read once if it lacks `kid` (a key made by another worker)."""
    keys = verification_keys()
    cache = _cache()
    if kid not in keys and time.monotonic() - cache["at"] > 2:  # forged kids can't force reads
        invalidate_cache()
        keys = verification_keys()
    return keys
