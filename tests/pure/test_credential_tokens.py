"""The credential token's signature: what an offline verifier accepts and refuses."""
from __future__ import annotations

import string
from datetime import date, timedelta

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from inspector.credentials.tokens import (
    TOKEN_CHARS,
    PublicKey,
    TokenRejected,
    b64d,
    b64e,
    encode,
    parse,
    verify,
)

TODAY = date(2026, 6, 1)


def _key(kid: int, verify_until: date | None = None):
    private = Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(serialization.Encoding.Raw,
                                            serialization.PublicFormat.Raw)
    return private, PublicKey(kid, raw, verify_until)


def _token(private, kid=1, expires=TODAY + timedelta(days=30), subject=42):
    return encode(private, kid, "vehicle", "5108006", subject, expires)


def test_a_token_is_compact_random_and_round_trips():
    private, public = _key(1)
    a, b = _token(private), _token(private)
    assert len(a) == TOKEN_CHARS == 126 and set(a) <= set(string.ascii_letters + "0123456789-_")
    assert a != b  # 128 random bits each: identical claims never give the same token
    claims = verify(a, {1: public}, TODAY)
    assert (claims.kind, claims.town_ibge, claims.subject_id) == ("vehicle", "5108006", 42)
    assert claims.expires_on == TODAY + timedelta(days=30) and len(claims.nonce) == 16


def test_altered_payload_is_refused():
    private, public = _key(1)
    raw = bytearray(b64d(_token(private)))
    raw[8:12] = (43).to_bytes(4, "big")  # point the signed token at another vehicle
    with pytest.raises(TokenRejected) as e:
        verify(b64e(bytes(raw)), {1: public}, TODAY)
    assert e.value.reason == "bad_signature"


def test_every_single_character_change_is_refused():
    private, public = _key(1)
    token = _token(private)
    for i, ch in enumerate(token):
        other = "A" if ch != "A" else "B"
        with pytest.raises(TokenRejected):
            verify(token[:i] + other + token[i + 1:], {1: public}, TODAY)


def test_wrong_key_id_is_refused():
    p1, k1 = _key(1)
    _, k2 = _key(2)
    raw = bytearray(b64d(_token(p1, kid=1)))
    raw[1:3] = (2).to_bytes(2, "big")  # claims to be signed by key 2
    with pytest.raises(TokenRejected) as e:
        verify(b64e(bytes(raw)), {1: k1, 2: k2}, TODAY)
    assert e.value.reason == "bad_signature"
    raw[1:3] = (9).to_bytes(2, "big")
    with pytest.raises(TokenRejected) as e:
        verify(b64e(bytes(raw)), {1: k1, 2: k2}, TODAY)
    assert e.value.reason == "unknown_key"


def test_signed_by_a_stranger_is_refused():
    _, mine = _key(1)
    stranger, _ = _key(1)
    with pytest.raises(TokenRejected) as e:
        verify(_token(stranger), {1: mine}, TODAY)
    assert e.value.reason == "bad_signature"


def test_expired_is_refused_the_day_after_its_expiry():
    private, public = _key(1)
    token = _token(private, expires=TODAY)
    assert verify(token, {1: public}, TODAY)
    with pytest.raises(TokenRejected) as e:
        verify(token, {1: public}, TODAY + timedelta(days=1))
    assert e.value.reason == "expired"


def test_a_retired_key_vouches_only_up_to_its_last_expiry():
    private, public = _key(1, verify_until=TODAY + timedelta(days=30))
    assert verify(_token(private, expires=TODAY + timedelta(days=30)), {1: public}, TODAY)
    with pytest.raises(TokenRejected) as e:  # signed later with a leaked retired key
        verify(_token(private, expires=TODAY + timedelta(days=31)), {1: public}, TODAY)
    assert e.value.reason == "key_expired"


@pytest.mark.parametrize("bad", ["", "x", "A" * 126, "A" * 125 + "=", "!" * 126, "A" * 300])
def test_garbage_is_malformed(bad):
    with pytest.raises(TokenRejected) as e:
        parse(bad)
    assert e.value.reason == "malformed"


