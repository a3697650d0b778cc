"""The "Denúncia recebida" page answers the form's POST, so reloading it (or a double tap on a
slow network) sends the same report again: it is kept once, and the passenger is thanked again.
A different report of the same ride, or the same words about another code, is a new one."""
from __future__ import annotations

import io
import re

import pytest

from inspector.credentials import issuing as credentials
from inspector.extensions import db
from inspector.models import AuditEntry, PassengerReport
from tests.support.credentials import jpeg, regular_mototaxi


@pytest.fixture
def tokens(app):
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    with app.app_context():
        one = credentials.issue(regular_mototaxi(plate="QBA1D23"), actor="test")
        two = credentials.issue(regular_mototaxi(plate="QBA1D24"), actor="test")
        db.session.commit()
        return one.token, two.token


def _send(client, token, text, photo: bytes | None = None):
    html = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    data = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "t": re.search(r'name="t" value="([^"]+)"', html).group(1),
            "categoria": "driving", "texto": text, "contato": "65 99999-1234", "website": ""}
    if photo is not None:
        data["foto"] = (io.BytesIO(photo), "foto.jpg")
    return data


def _post(client, token, data):
    data = {k: (io.BytesIO(v[0].getvalue()), v[1]) if isinstance(v, tuple) else v
            for k, v in data.items()}
    return client.post(f"/v/{token}/denunciar", data=data, content_type="multipart/form-data")


def _reports(app) -> list[tuple[int | None, str]]:
    with app.app_context():
        return [(r.credential_id, r.text) for r in
                db.session.scalars(db.select(PassengerReport).order_by(PassengerReport.id))]


def test_the_same_report_posted_again_is_kept_once(app, client, tokens):
    first, second = tokens
    form = _send(client, first, "Levou dois passageiros na garupa na Av. Brasil.", jpeg((64, 48)))
    for _ in range(3):                     # sent, then the thanks page reloaded twice
        resp = _post(client, first, form)
        assert resp.status_code == 201 and "Denúncia recebida" in resp.get_data(as_text=True)
    assert len(_reports(app)) == 1
    with app.app_context():
        received = [e for e in db.session.scalars(db.select(AuditEntry))
                    if e.action == "passenger_report_received"]
        assert len(received) == 1

    # Other words, or the same words about another code: new reports.
    assert _post(client, first, _send(client, first, "Cobrou o dobro da tarifa ontem à noite.")
                 ).status_code == 201
    assert _post(client, second, _send(client, second,
                                       "Levou dois passageiros na garupa na Av. Brasil.",
                                       jpeg((64, 48)))).status_code == 201
    assert len(_reports(app)) == 3


def test_a_refused_form_says_at_the_top_that_nothing_was_sent(app, client, tokens):
    first, _ = tokens
    form = _send(client, first, "O condutor era outra pessoa, não a da foto.")
    form["foto"] = (io.BytesIO(b"not an image at all"), "foto.jpg")
    resp = _post(client, first, form)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    alert = html.index("A denúncia ainda não foi enviada: veja abaixo o que corrigir e escolha "
                       "a foto de novo.")
    assert alert < html.index('<form method="post"')              # above the form, seen first
    assert "O condutor era outra pessoa" in html                  # the words are kept
    assert _reports(app) == []
    form = _send(client, first, "curto")
    html = _post(client, first, form).get_data(as_text=True)
    assert "A denúncia ainda não foi enviada: veja abaixo o que corrigir." in html
