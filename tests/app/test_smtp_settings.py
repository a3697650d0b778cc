"""The SMTP server of the vistoria reminders is configured from the environment, like every
other setting of a deployment (docs/vistoria.md); a port that is not one stops the start."""
from __future__ import annotations

import pytest

from inspector import create_app


def _app():
    return create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "s" * 40})


def test_the_smtp_server_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("SMTP_HOST", "smtp.tapurah.mt.gov.br")
    monkeypatch.setenv("SMTP_PORT", "587")
    monkeypatch.setenv("SMTP_FROM", "fiscalizacao@tapurah.mt.gov.br")
    monkeypatch.setenv("SMTP_STARTTLS", "1")
    config = _app().config
    assert (config["SMTP_HOST"], config["SMTP_PORT"], config["SMTP_FROM"], config["SMTP_STARTTLS"]) \
        == ("smtp.tapurah.mt.gov.br", 587, "fiscalizacao@tapurah.mt.gov.br", True)


def test_without_a_host_no_mail_is_configured(monkeypatch):
    for name in ("SMTP_HOST", "SMTP_PORT", "SMTP_STARTTLS"):
        monkeypatch.delenv(name, raising=False)
    config = _app().config
    assert (config["SMTP_HOST"], config["SMTP_PORT"], config["SMTP_STARTTLS"]) == ("", None, False)


@pytest.mark.parametrize("port", ["smtp", "0", "70000", "²"])
def test_a_port_that_is_not_one_stops_the_start(monkeypatch, port):
    monkeypatch.setenv("SMTP_PORT", port)
    with pytest.raises(SystemExit, match="SMTP_PORT"):
        _app()
