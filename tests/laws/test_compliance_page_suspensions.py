"""The compliance page (/conformidade) calls a suspended permit or alvará "Suspenso", with
the last day of the suspension, not "Vencido" (the document has not expired: its holder
may not work until the date shown)."""
from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Status
from tests import factories
from tests.support.enforcement import fleet


def _rows(html: str) -> list[str]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    return [re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", r))).strip() for r in rows]


def test_a_suspended_permit_and_alvara_read_suspenso_and_an_expired_one_vencido(app):
    today = default_day()
    with app.app_context():
        f = fleet("nova-santa-helena", "taxi")
        f["permit"].status, f["permit"].suspended_until = Status.SUSPENDED, today + timedelta(days=20)
        f["licence"].status = Status.SUSPENDED
        f["licence"].suspended_until = today + timedelta(days=10)
        other = fleet("nova-santa-helena", "taxi")
        other["licence"].valid_until = today - timedelta(days=3)
        user = factories.user("supervisor", "nova-santa-helena")
        db.session.commit()
        username, number = user.username, f["permit"].number
        licence, expired = f["licence"].number, other["licence"].number
    c = app.test_client()
    assert c.login(username).status_code == 302
    rows = _rows(c.get("/conformidade").get_data(as_text=True))
    permit_row = next(r for r in rows if f"Permissão {number} suspensa" in r)
    assert "Suspenso" in permit_row and "Vencido" not in permit_row
    assert "Art. 25, III" in permit_row
    licence_row = next(r for r in rows if f"Alvará {licence} suspenso" in r)
    assert "Suspenso" in licence_row and "Vencido" not in licence_row
    expired_row = next(r for r in rows if f"Alvará {expired} vencido" in r)
    assert "Vencido" in expired_row
