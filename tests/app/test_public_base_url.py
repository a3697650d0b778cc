"""The address printed in every QR code (credentials, documents) is PUBLIC_BASE_URL: read from
the environment, refused at start when it is not an http(s) address, warned about at start when
unset outside tests (the codes would open 127.0.0.1:5000), and set by `make run` to its own
port."""
from __future__ import annotations

import logging

import pytest

from inspector import config, create_app
from inspector.credentials import issuing
from tests.support.config import app_config

WARNING = "PUBLIC_BASE_URL não definido"


def test_the_environment_sets_the_address_in_the_qr(schema, monkeypatch):
    monkeypatch.setenv("PUBLIC_BASE_URL", "https://fiscaliza.tapurah.mt.gov.br/")
    app = create_app(app_config(schema))
    with app.app_context():
        assert issuing.public_url("abc") == "https://fiscaliza.tapurah.mt.gov.br/v/abc"


@pytest.mark.parametrize("value", ["fiscaliza.tapurah.mt.gov.br", "ftp://x.gov.br",
                                   "https://", "http:///v", "https://a b.gov.br"])
def test_a_typo_stops_the_start_naming_the_setting(schema, monkeypatch, value):
    monkeypatch.setenv("PUBLIC_BASE_URL", value)
    with pytest.raises(SystemExit) as e:
        create_app(app_config(schema))
    assert "PUBLIC_BASE_URL" in str(e.value) and "não é um endereço válido" in str(e.value)


def test_unset_outside_tests_warns_at_start(schema, monkeypatch, start_logs):  # noqa: F811
    monkeypatch.delenv("PUBLIC_BASE_URL", raising=False)
    create_app(app_config(schema) | {"TESTING": False, "DEBUG": False})
    found = [r.getMessage() for r in start_logs.records
             if r.levelno == logging.WARNING and WARNING in r.getMessage()]
    assert len(found) == 1 and "127.0.0.1:5000" in found[0]
    assert config.public_base_url_warning(
        {"PUBLIC_BASE_URL": "https://fiscaliza.tapurah.mt.gov.br"}) is None


def test_make_run_prints_qr_codes_that_open_its_own_port():
    """devserver (make run) gives gunicorn and the tick loop its own origin, unless one was
    given."""
    from inspector.devserver import child_env

    assert child_env(5077, {"PATH": "/bin"}) == {
        "PATH": "/bin", "PUBLIC_BASE_URL": "http://127.0.0.1:5077"}
    assert child_env(5077, {"PUBLIC_BASE_URL": " "})["PUBLIC_BASE_URL"] == \
        "http://127.0.0.1:5077"
    given = {"PUBLIC_BASE_URL": "https://fiscaliza.example.gov.br"}
    assert child_env(5077, given) == given
