"""Fixtures of the notifications' tests (Web Push, the holders' notice page). The local
push service, `service`, is in tests/conftest.py."""
from __future__ import annotations

import pytest


@pytest.fixture
def papp(app):
    """The app allowed to push to the local push service on loopback."""
    app.config.update(PUSH_ALLOW_HTTP_LOOPBACK=True, VAPID_SUBJECT="mailto:fiscal@tapurah.example.org")
    return app
