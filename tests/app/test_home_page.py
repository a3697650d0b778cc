"""The start page (/inicio) of a supervisor or an admin leads to the review (their daily
work: inspections, acts, deadlines) and says what each may do with the QR credentials
(a supervisor looks and prints; only an admin issues or cancels)."""
from __future__ import annotations

import re
from html import unescape

import pytest

from inspector.extensions import db
from tests import factories


def _tiles(app, role: str) -> dict[str, str]:
    with app.app_context():
        user = factories.user(role, "tapurah")
        db.session.commit()
        username = user.username
    c = app.test_client()
    assert c.login(username).status_code == 302
    html = c.get("/inicio").get_data(as_text=True)
    tiles = re.findall(r'<a class="tile[^"]*" href="([^"]+)"><strong>[^<]*</strong><span>(.*?)</span>',
                       html, re.S)
    return {href: unescape(text) for href, text in tiles}


@pytest.mark.parametrize("role", ["supervisor", "admin"])
def test_the_review_has_a_tile(app, role):
    assert "prazos" in _tiles(app, role)["/revisao"]


def test_a_supervisor_is_not_told_to_issue_or_cancel_credentials(app):
    assert _tiles(app, "supervisor")["/credenciais"].endswith(
        "consultar e imprimir (emitir e cancelar: administração)")
    assert _tiles(app, "admin")["/credenciais"].endswith("emitir, cancelar, imprimir")


def test_an_agent_has_no_review_tile(app):
    assert "/revisao" not in _tiles(app, "agent")
