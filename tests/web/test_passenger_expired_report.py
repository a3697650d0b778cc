"""An expired sticker's page has its own state: a passenger's report filed from it is kept as
'expired' and the supervisors read CREDENCIAL VENCIDA (not CANCELADA, which is what the town
did to a revoked one); and the page tells the passenger not to board, as the other red pages
do, since an expired code cannot confirm the licence today."""
from __future__ import annotations

import re
from datetime import date

from inspector.credentials import issuing as credentials
from inspector.extensions import db
from inspector.models import PassengerReport
from tests import factories
from tests.support.credentials import banner, regular_mototaxi


def _expired_token(app) -> str:
    with app.app_context():
        cred = credentials.issue(regular_mototaxi(), actor="test", today=date(2022, 1, 10))
        db.session.commit()
        return cred.token


def _revoked_token(app) -> str:
    with app.app_context():
        cred = credentials.issue(regular_mototaxi(plate="QBB2E34"), actor="test")
        credentials.revoke(cred, "adesivo roubado", actor="test")
        db.session.commit()
        return cred.token


def _report(client, token: str, text: str):
    html = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    data = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "t": re.search(r'name="t" value="([^"]+)"', html).group(1),
            "categoria": "driving", "texto": text, "contato": "", "website": ""}
    return client.post(f"/v/{token}/denunciar", data=data,
                       content_type="multipart/form-data")


def test_a_report_from_an_expired_sticker_reads_vencida_for_the_supervisors(app, client, make):
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    expired, revoked = _expired_token(app), _revoked_token(app)
    assert _report(client, expired, "Mostrou um adesivo vencido na rodoviária.").status_code == 201
    assert _report(client, revoked, "Mostrou um adesivo cancelado no centro.").status_code == 201
    with app.app_context():
        rows = {r.text: (r.id, r.seen_status) for r in db.session.scalars(
            db.select(PassengerReport))}
    expired_id, expired_seen = rows["Mostrou um adesivo vencido na rodoviária."]
    revoked_id, revoked_seen = rows["Mostrou um adesivo cancelado no centro."]
    assert (expired_seen, revoked_seen) == ("expired", "revoked")

    client.login(make(factories.user, "supervisor", "tapurah").username)
    seen = re.compile(r"<dt>O passageiro viu</dt><dd>([^<]*)</dd>")
    detail = client.get(f"/denuncias/{expired_id}").get_data(as_text=True)
    assert seen.search(detail).group(1) == "CREDENCIAL VENCIDA"
    detail = client.get(f"/denuncias/{revoked_id}").get_data(as_text=True)
    assert seen.search(detail).group(1) == "CREDENCIAL CANCELADA"


def test_the_expired_page_tells_the_passenger_not_to_board(app, client):
    html = client.get(f"/v/{_expired_token(app)}").get_data(as_text=True)
    assert banner(html) == "CREDENCIAL VENCIDA"
    assert 'class="banner b-expired"' in html
    summary = re.search(r"<h1>[^<]+</h1>\s*<p>([^<]+)</p>", html).group(1)
    assert "Não embarque: ele não confirma que este transporte está licenciado hoje." in summary
    assert "O condutor deve pedir um novo à prefeitura." in summary


def test_the_expired_banner_is_as_red_as_the_revoked_one(client):
    css = client.get("/static/css/verify.css").get_data(as_text=True)
    rule = re.search(r"([^}]*\.b-expired[^{]*)\{([^}]*)\}", css)
    assert rule and ".b-revoked" in rule.group(1) and "#3b0a0a" in rule.group(2)
