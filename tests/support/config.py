"""How the tests configure the app and start Debian's Chromium."""
from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Blink without the browser around it (Debian's chromium-headless-shell, what Playwright runs
# headless by default): a fifth less CPU per browser test. It has no Push API; the tests of
# Web Push are marked `full_chromium` and get CHROMIUM.
HEADLESS_SHELL = os.environ.get("CHROMIUM_HEADLESS_SHELL", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]


def app_config(url: str) -> dict:
    """The settings of a test app on the database at `url`."""
    return {"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "test-secret",
            "LOG_LEVEL": "WARNING", "PASSWORD_HASH_COST": "test"}


SERVER_KEY = "test-secret"


def server_config(url: str, root: Path) -> dict:
    """A production test's app: its database, and its own evidence and instance folders."""
    return {"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SERVER_KEY,
            "LOG_LEVEL": "ERROR", "EVIDENCE_DIR": str(root / "evidence"),
            "BACKUP_INSTANCE_DIR": str(root / "instance"),
            "PUBLIC_BASE_URL": "https://fiscaliza.tapurah.example.gov.br"}
