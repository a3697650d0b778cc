"""Fixtures of the browser tests: the field app's town (`world`) and a context allowed to
show notifications (`context`). Chromium itself, the live server and `page` are in
tests/conftest.py."""
from __future__ import annotations

import pytest

from tests import factories


@pytest.fixture
def world(app):
    """Tapurah: an agent, a regular moto-taxi with a rider and its printed QR credential."""
    from inspector.credentials import issuing
    from inspector.extensions import db
    from tests.support.credentials import regular_mototaxi

    with app.app_context():
        vehicle = regular_mototaxi("tapurah", plate="QBA1D23")
        credential = issuing.issue(vehicle)
        agent = factories.user("agent", "tapurah", name="Ana Fiscal")
        db.session.commit()
        return {"agent": agent.username, "vehicle_id": vehicle.id, "plate": vehicle.plate,
                "url": issuing.public_url(credential.token),
                "credential_id": credential.id}


@pytest.fixture
def context(browser, live_server, app):
    """A browser context on the live server that may show notifications (push tests)."""
    app.config["PUSH_ALLOW_HTTP_LOOPBACK"] = True
    ctx = browser.new_context(base_url=live_server.url, locale="pt-BR")
    ctx.grant_permissions(["notifications"], origin=live_server.url)
    ctx.set_default_timeout(20_000)
    yield ctx
    ctx.close()
