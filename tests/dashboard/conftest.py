"""The dashboard's world: Tapurah's March 2026 and Sapezal's (tests/support/dashboard.py)."""
from __future__ import annotations

import pytest

from tests.support import dashboard


@pytest.fixture
def town(app):
    """Tapurah's month of work and Sapezal's; the users and ids the tests read."""
    with app.app_context():
        return dashboard.build()
