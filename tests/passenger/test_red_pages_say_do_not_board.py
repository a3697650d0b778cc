"""Every red passenger page says "Não embarque" and what to do, as the page
of an unrecognised code always did; a green page does not."""
from __future__ import annotations

import re

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import Status
from tests import factories
from tests.support.credentials import banner, regular_mototaxi


def _advice(html: str) -> str:
    """The text of the 'what to do' box, tags dropped."""
    found = re.search(r'<section class="advice">(.*?)</section>', html, re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(1))) if found else ""


def _token(app, build) -> str:
    with app.app_context():
        cred = issuing.issue(build(), actor="test")
        db.session.commit()
        return cred.token


def test_an_irregular_and_a_suspended_vehicle_say_do_not_board_and_what_to_do(app, client):
    def unlicensed():
        return factories.vehicle("tapurah", "mototaxi")   # no alvará: IRREGULAR

    def suspended():
        v = regular_mototaxi(plate="QBS3S33")
        v.current_licence.status = Status.SUSPENDED
        return v

    for build, title in ((unlicensed, "IRREGULAR"), (suspended, "SUSPENSO")):
        html = client.get(f"/v/{_token(app, build)}").get_data(as_text=True)
        assert banner(html) == title
        advice = _advice(html)
        assert "Não embarque" in advice, title
        assert "Hoje não pode levar passageiros (motivo acima)." in advice
        assert "peça para descer num lugar movimentado" in advice and "190" in advice
        assert "Avise a fiscalização da Prefeitura de Tapurah" in advice
        assert "Denunciar um problema" in advice


def test_a_cancelled_code_says_do_not_board_because_it_proves_nothing(app, client):
    with app.app_context():
        cred = issuing.issue(regular_mototaxi(), actor="test")
        issuing.revoke(cred, "adesivo roubado", actor="test")
        db.session.commit()
        token = cred.token
    html = client.get(f"/v/{token}").get_data(as_text=True)
    assert banner(html) == "CREDENCIAL CANCELADA"
    advice = _advice(html)
    assert "Não embarque" in advice and "Este código não vale mais" in advice


def test_a_regular_page_gives_no_warning(app, client):
    html = client.get(f"/v/{_token(app, regular_mototaxi)}").get_data(as_text=True)
    assert banner(html) == "REGULAR"
    assert "Não embarque" not in html and _advice(html) == ""
