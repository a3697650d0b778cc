"""Credentials on the database: a revoked code is refused and a rotated key still verifies
the codes it signed, a lookup checks the signature even when the database has the token,
private keys are kept encrypted with the app's secret, one credential in force per subject."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from cryptography.hazmat.primitives import serialization

from inspector.credentials import issuing, keys
from inspector.credentials.tokens import (
    b64d,
    b64e,
)
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Credential, SigningKey, Vehicle
from tests import factories
from tests.support.credentials import regular_mototaxi

TODAY = date(2026, 6, 1)


def test_revoked_is_refused_and_a_rotated_key_still_verifies_old_codes(app):
    with app.app_context():
        v = regular_mototaxi()
        old = issuing.issue(v, today=TODAY)
        db.session.commit()
        assert issuing.lookup(old.token, TODAY).outcome == "active"
        first_kid = old.kid

        keys.rotate_keys()
        other = factories.vehicle("tapurah")
        new = issuing.issue(other, today=TODAY)
        db.session.commit()
        assert new.kid != first_kid
        retired = db.session.scalar(db.select(SigningKey).filter_by(kid=first_kid))
        assert retired.retired_at is not None and retired.verify_until == old.expires_on

        # Old code, old key: still good until the day it expires, then refused.
        assert issuing.lookup(old.token, old.expires_on).outcome == "active"
        assert issuing.lookup(old.token, old.expires_on + timedelta(days=1)).outcome == \
            "expired"
        assert issuing.lookup(new.token, TODAY).outcome == "active"
        kids = {k["kid"] for k in keys.public_key_set(TODAY)}
        assert kids == {first_kid, new.kid}
        later = {k["kid"] for k in keys.public_key_set(old.expires_on + timedelta(1))}
        assert later == {new.kid}  # a key that vouches for nothing is no longer published

        issuing.revoke(old, "adesivo arrancado", actor="test")
        db.session.commit()
        assert issuing.lookup(old.token, TODAY).outcome == "revoked"


def test_lookup_refuses_an_altered_token_even_if_the_database_has_it(app):
    with app.app_context():
        cred = issuing.issue(regular_mototaxi(), today=TODAY)
        db.session.commit()
        raw = bytearray(b64d(cred.token))
        raw[20] ^= 1  # flip one bit of the nonce
        forged = b64e(bytes(raw))
        found = issuing.lookup(forged, TODAY)
        assert found.outcome == "unknown" and found.reason == "bad_signature"
        # Even a row planted with the forged token's hash is not trusted without a signature.
        db.session.add(Credential(municipality_id=cred.municipality_id, kind=cred.kind,
                                  vehicle_id=cred.vehicle_id, token=forged,
                                  token_hash=issuing.token_hash(forged), kid=cred.kid,
                                  issued_at=cred.issued_at, expires_on=cred.expires_on))
        db.session.commit()
        assert issuing.lookup(forged, TODAY).outcome == "unknown"


def test_private_keys_are_encrypted_with_the_app_secret(app):
    with app.app_context():
        issuing.issue(regular_mototaxi(), today=TODAY)
        db.session.commit()
        key = keys.active_key()
        raw_private = keys.private_key(key).private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
            serialization.NoEncryption())
        assert raw_private not in key.private_key_enc
        app.config["SECRET_KEY"] = "another-secret"
        with pytest.raises(ValidationFailed) as e:
            keys.private_key(key)
        assert "rotate-key" in str(e.value)


def test_one_credential_in_force_per_subject_and_reissue_replaces_it(app):
    with app.app_context():
        v = regular_mototaxi()
        first = issuing.issue(v, actor="test", today=TODAY)
        with pytest.raises(ValidationFailed):
            issuing.issue(db.session.get(Vehicle, v.id), today=TODAY)
        with pytest.raises(ValidationFailed):
            issuing.revoke(first, "", actor="test")  # a reason is required
        second = issuing.reissue(first, "colete perdido", actor="test")
        db.session.commit()
        assert first.revoked_at is not None and second.replaces_id == first.id
        assert issuing.lookup(first.token, TODAY).outcome == "revoked"
        assert issuing.lookup(second.token, TODAY).outcome == "active"
        from inspector.models import AuditEntry
        actions = [e.action for e in db.session.scalars(
            db.select(AuditEntry).where(AuditEntry.entity == "credential")
            .order_by(AuditEntry.seq))]
        assert actions == ["credential_issued", "credential_revoked", "credential_reissued"]
