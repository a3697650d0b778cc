"""What the vistoria tests share: a real SMTP server the reminders are mailed through."""
from __future__ import annotations

import pytest

from tests.support.smtp import SmtpServer


@pytest.fixture
def smtp(app):
    """A real SMTP server on a free port, Tapurah's sender configured; stopped afterwards."""
    server = SmtpServer().start()
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=server.port,
                      SMTP_FROM="fiscalizacao@tapurah.mt.gov.br")
    yield server
    server.stop()
