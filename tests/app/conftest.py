"""Fixtures of the app-wide tests (create_app's settings and warnings at start)."""
from __future__ import annotations

import logging

import pytest

from inspector import logs


@pytest.fixture
def start_logs(monkeypatch, caplog):
    """The app's records at start (its logger does not propagate: caplog listens on it)."""
    original = logs.init_app
    apps = []

    def init_app(app):
        original(app)
        app.logger.addHandler(caplog.handler)
        apps.append(app)

    monkeypatch.setattr(logs, "init_app", init_app)
    caplog.set_level(logging.WARNING)
    yield caplog
    for app in apps:
        app.logger.removeHandler(caplog.handler)
