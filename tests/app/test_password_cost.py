"""Passwords and access codes are hashed at Argon2id's standard cost in every deployment; only
the tests' own config lowers it, and a production start refuses that."""
from __future__ import annotations

import pytest
from argon2 import extract_parameters

from inspector import create_app
from inspector.passwords import password_hasher
from inspector.security import hash_password, verify_password


def _app(**config):
    return create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "s" * 40} | config)


def test_a_deployment_hashes_at_rfc_9106s_low_memory_cost():
    app = _app()
    assert app.config["PASSWORD_HASH_COST"] == "standard"
    with app.app_context():
        params = extract_parameters(hash_password("uma senha qualquer"))
    assert (params.time_cost, params.memory_cost, params.parallelism) == (3, 65536, 4)


def test_the_tests_cost_is_cheap_and_its_hashes_verify_at_either_cost(app):
    with app.app_context():
        cheap = hash_password("senha-de-teste")
        assert extract_parameters(cheap).memory_cost == 8
    with _app().app_context():  # the cost is read from the hash, not from the verifier
        assert verify_password(cheap, "senha-de-teste")
        assert not verify_password(cheap, "outra-senha")
        assert password_hasher().time_cost == 3


@pytest.mark.parametrize("config", [{"PASSWORD_HASH_COST": "test", "INSPECTOR_ENV": "production"},
                                    {"PASSWORD_HASH_COST": "barato"}])
def test_a_cheap_or_unknown_cost_stops_the_start(config):
    with pytest.raises(SystemExit, match="PASSWORD_HASH_COST"):
        _app(**config)
