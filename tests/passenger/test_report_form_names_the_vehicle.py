"""The passenger's report form names, before its first field, the plate and prefix of the
vehicle being reported (a rider's badge: the motorcycle they ride and their name), so a
passenger who scanned the wrong sticker sees it before sending."""
from __future__ import annotations

import re

from inspector.credentials import issuing
from inspector.extensions import db
from tests.support.credentials import regular_mototaxi


def _top(html: str) -> str:
    head = html.split('id="categoria"', 1)[0]
    return " ".join(re.sub(r"<[^>]+>", " ", head).split())


def test_the_vehicle_and_the_riders_badge_name_what_is_reported(app, client):
    with app.app_context():
        v = regular_mototaxi("tapurah", plate="QBA1D23")
        v.prefix = "TMT07"
        tokens = [issuing.issue(v).token, issuing.issue(v.drivers[0]).token]
        rider = v.drivers[0].name
        db.session.commit()
    for token in tokens:
        r = client.get(f"/v/{token}/denunciar")
        assert r.status_code == 200
        top = _top(r.get_data(as_text=True))
        assert re.search(r"Placa QBA-?1D23 · prefixo TMT07", top), top
    assert rider in top


def test_a_false_code_names_no_vehicle(app, client):
    r = client.get("/v/nao-e-um-codigo/denunciar")
    assert r.status_code in (200, 404)
    assert 'id="denunciado"' not in r.get_data(as_text=True)
