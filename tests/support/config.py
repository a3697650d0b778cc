"""How the tests configure the app and start Debian's Chromium."""
from __future__ import annotations

import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]


def app_config(url: str) -> dict:
    """The settings of a test app on the database at `url`."""
    return {"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "test-secret",
            "LOG_LEVEL": "WARNING", "PASSWORD_HASH_COST": "test"}
