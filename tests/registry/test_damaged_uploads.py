"""A damaged photo sent where photos are re-encoded: a passenger's report (/v/<token>/denunciar)
and a driver's registry form (/cadastro/condutores/novo). A JPEG cut in half answers 422 with
the reason next to the field and stores nothing, never a 500."""
from __future__ import annotations

import io
import random
import re

from PIL import Image

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.identifiers import make_cpf
from inspector.models import Driver, PassengerReport
from tests import factories
from tests.support.credentials import regular_mototaxi


def _cut_jpeg() -> bytes:
    img = Image.frombytes("RGB", (400, 300), random.Random(9).randbytes(400 * 300 * 3))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=85)
    data = out.getvalue()
    return data[:len(data) // 2]


def test_a_report_with_a_cut_short_photo_is_422_and_nothing_is_stored(app, client):
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    with app.app_context():
        token = issuing.issue(regular_mototaxi(), actor="test").token
        db.session.commit()
    html = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    form = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "t": re.search(r'name="t" value="([^"]+)"', html).group(1),
            "categoria": "driving", "texto": "Passou no sinal vermelho na Av. Brasil.",
            "contato": "", "website": "", "foto": (io.BytesIO(_cut_jpeg()), "foto.jpg")}
    r = client.post(f"/v/{token}/denunciar", data=form, content_type="multipart/form-data")
    assert r.status_code == 422
    assert "a foto está corrompida ou incompleta" in r.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(PassengerReport.id))) == 0


def test_a_driver_form_with_a_cut_short_photo_is_422_and_nothing_is_stored(app, client, make):
    admin = make(factories.user, "admin", "tapurah")
    assert client.login(admin.username).status_code == 302
    data = {"category": "mototaxista", "name": "Ana Piloto", "cpf": make_cpf("321654987"),
            "cnh_number": "01234567890", "cnh_category": "A", "cnh_expiry": "2030-12-31",
            "registration_number": "MT-77", "registration_expiry": "2027-06-30",
            "photo": (io.BytesIO(_cut_jpeg()), "eu.jpg")}
    r = client.post_form("/cadastro/condutores/novo", data,
                         token_from="/cadastro/condutores/novo",
                         content_type="multipart/form-data")
    assert r.status_code == 422
    assert "A foto está corrompida ou incompleta" in r.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Driver).count() == 0
