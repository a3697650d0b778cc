"""The holder's page of an act decided in the office whose delivery is not recorded yet: the
person reading it typed the code printed on the document, so they hold it. Nova Santa Helena
Lei 535/2013 Art. 28 § único: 10 days "Após o recebimento ... da notificação". Runs on SQLite
and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from tests.support.enforcement import decided_in_office


def test_the_holder_reads_that_time_runs_from_when_they_received_it(app):
    """It read 'Prazo — Prazo começa a contar da entrega deste documento': to someone holding
    the document, as if time had not started yet."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        d = decided_in_office("nortelandia", "taxi", {"clean": "fail"},
                              datetime.now(UTC) - timedelta(hours=2), gravity="suspension",
                              days=10).decision
        path, code = f"nortelandia/{d.notice.number}", d.access_code
    page = app.test_client().holder_page(path, code)
    row = re.search(r"<dt>Prazo</dt><dd data-awaiting-delivery>(.*?)</dd>", page).group(1)
    assert row == ("conta do dia em que este documento foi entregue a você "
                   "(a fiscalização ainda não registrou a entrega)")
    assert "Prazo começa" not in page
