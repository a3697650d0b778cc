"""The Argon2id hasher of passwords and of the access codes printed on notices."""
from __future__ import annotations

from argon2 import PasswordHasher
from flask import current_app, has_app_context

# Argon2id at argon2-cffi's defaults (RFC 9106's low-memory profile: 3 passes over 64 MiB)
# everywhere but in tests, whose config asks for one pass over 8 KiB: a suite hashes
# hundreds of passwords and access codes, and the cost is in the hash, so verifying a hash
# made at either cost works under both.
HASHERS = {"standard": PasswordHasher(),
           "test": PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)}


def password_hasher() -> PasswordHasher:
    """The Argon2id hasher of the running app's PASSWORD_HASH_COST ("standard" outside an app)."""
    cost = current_app.config.get("PASSWORD_HASH_COST", "standard") if has_app_context() else "standard"
    return HASHERS[cost]


_DUMMY: dict[int, str] = {}


def dummy_hash() -> str:
    """A hash at the running app's cost to verify against when a username is unknown, so that
    both answers take as long; made once per cost, at the first sign-in that needs it."""
    hasher = password_hasher()
    if id(hasher) not in _DUMMY:
        _DUMMY[id(hasher)] = hasher.hash("not-a-real-password")
    return _DUMMY[id(hasher)]
