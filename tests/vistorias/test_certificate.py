"""The certificado de vistoria (Sapezal Lei 060/1998 Art. 11 § 2º; Nova Santa Helena Lei
535/2013 Art. 13 VI): an A6 PDF with plate, prefix, valid-until, the agent's badge and the
article, whose QR (read by zxing-cpp from the page as poppler draws it, a decoder that is not
ours) opens a page that verifies it; /documentos checks its file; it stops vouching when the
vehicle is suspended, its vistoria is corrected or a newer one supersedes it. Runs on SQLite
and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import hashlib
import re
import uuid
from urllib.parse import urlsplit

from sqlalchemy import select

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Licence, Vehicle, Vistoria
from inspector.registry import change_status
from inspector.rules import add_months
from tests import factories
from tests.support.documents import pdf_text, qr_codes, rasterise
from tests.support.vistorias import vistoria_body


def _approved(api, vehicle_id: int) -> dict:
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(vehicle_id, "tapurah", "mototaxi",
                                                            "periodic"))
    assert r.status_code == 201, r.json
    assert r.json["vistoria"]["result"] == "approved"
    return r.json["vistoria"]


def _banner(html: str) -> str:
    return re.sub(r"\s+", " ", re.search(r'id="veredito">(.*?)</section>', html, re.S).group(1))


def test_the_pdf_is_a6_its_qr_decodes_and_the_page_it_opens_verifies(app, api, moto, client,
                                                                    tmp_path):
    v = moto()
    got = _approved(api, v.id)
    with app.app_context():
        row = db.session.scalar(select(Vistoria))
        vehicle = db.session.get(Vehicle, v.id)
        plate, prefix = vehicle.plate, vehicle.prefix
    pdf = client.get(f"/vistorias/{row.id}/certificado.pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert pdf.headers["X-Content-SHA256"] == hashlib.sha256(pdf.data).hexdigest()
    pages = rasterise(pdf.data, tmp_path, 300)
    assert len(pages) == 1
    assert abs(pages[0].width - 1240) <= 2 and abs(pages[0].height - 1748) <= 2  # A6 at 300 dpi
    codes = qr_codes(pages)
    assert codes == [got["certificate"]["url"]]
    text = pdf_text(pdf.data, tmp_path)
    until = add_months(default_day(), 6).strftime("%d/%m/%Y")
    for expected in ("CERTIFICADO DE VISTORIA", plate[:3], prefix, until, "AG-07",
                     "Lei 406/2001, Art. 23, X", got["certificate"]["number"]):
        assert expected in text, expected
    page = client.get(urlsplit(codes[0]).path)
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "Vistoria válida" in _banner(html) and f"Válida até {until}" in _banner(html)
    assert prefix in html and "AG-07" in html
    # the same certificate among the town's documents, and its file checked there
    number = got["certificate"]["number"]
    doc = client.get(f"/documentos/tapurah/{number}")
    assert doc.status_code == 200 and hashlib.sha256(pdf.data).hexdigest() in doc.get_data(
        as_text=True)
    # a forged code (one character changed) is not recognised
    token = urlsplit(codes[0]).path.rsplit("/", 1)[1]
    forged = token[:40] + ("A" if token[40] != "A" else "B") + token[41:]
    bad = client.get(f"/v/{forged}")
    assert bad.status_code == 404 and "não reconhecido" in _banner(bad.get_data(as_text=True))


def test_the_certificate_stops_vouching_when_the_vehicle_is_suspended(app, api, moto, client):
    v = moto()
    got = _approved(api, v.id)
    path = urlsplit(got["certificate"]["url"]).path
    assert "Vistoria válida" in _banner(client.get(path).get_data(as_text=True))
    with app.app_context():
        lic = db.session.scalar(select(Licence).where(Licence.vehicle_id == v.id))
        change_status(lic, "suspended", "Suspensão por decisão da Secretaria", actor="test")
        db.session.commit()
    banner = _banner(client.get(path).get_data(as_text=True))
    assert "Certificado sem efeito" in banner and "suspenso" in banner


def test_a_newer_vistoria_or_a_correction_cancels_the_certificate(app, api, moto, client, make):
    v = moto()
    first = _approved(api, v.id)
    second = _approved(api, v.id)
    old = _banner(client.get(urlsplit(first["certificate"]["url"]).path).get_data(as_text=True))
    assert "Certificado cancelado" in old and second["certificate"]["number"] in old
    new_path = urlsplit(second["certificate"]["url"]).path
    assert "Vistoria válida" in _banner(client.get(new_path).get_data(as_text=True))
    # the admin corrects the vehicle's vistoria date (an audited correction with a reason)
    admin = make(factories.user, "admin", "tapurah")
    staff = app.test_client()
    assert staff.login(admin.username).status_code == 302
    with app.app_context():
        from inspector.registry import as_data

        form = as_data(db.session.get(Vehicle, v.id))
    form.update(last_vistoria_on="01/01/2026",
                vistoria_correction_reason="Data da vistoria digitada errada no papel")
    r = staff.post_form(f"/cadastro/veiculos/{v.id}/editar", form)
    assert r.status_code in (302, 303), r.get_data(as_text=True)
    banner = _banner(client.get(new_path).get_data(as_text=True))
    assert "Certificado cancelado" in banner and "não é mais esta" in banner


def test_the_passenger_page_of_the_vehicle_says_until_when_its_vistoria_is_valid(app, api,
                                                                                 moto, client):
    """Tapurah Lei 406/2001 Art. 23 X: 6 months from the approved vistoria, one line."""
    from inspector.credentials import issue, public_url

    v = moto()
    with app.app_context():
        vehicle = db.session.get(Vehicle, v.id)
        vehicle.last_vistoria_on = None  # none recorded yet
        url = public_url(issue(vehicle, actor="test").token)
        db.session.commit()
    html = client.get(urlsplit(url).path).get_data(as_text=True)
    assert 'id="vistoria"' not in html  # none recorded yet: no line
    _approved(api, v.id)
    html = client.get(urlsplit(url).path).get_data(as_text=True)
    line = f"Vistoria válida até {add_months(default_day(), 6).strftime('%d/%m/%Y')}"
    assert f'<p class="vistoria" id="vistoria">{line}</p>' in html


def test_the_dashboard_counts_vistorias_per_month_and_those_falling_due(app, api, moto, make):
    """Numbers only: done, approved and rejected per month; due in the period."""
    v = moto()
    _approved(api, v.id)
    from tests.support.field_api import jpeg
    from tests.support.vistorias import vistoria_body as vb

    r = api.put_inspection(str(uuid.uuid4()), vb(moto().id, "tapurah", "mototaxi", "prior",
                                                 fail={"mirrors": jpeg(9)}))
    assert r.json["vistoria"]["result"] == "rejected"
    supervisor = make(factories.user, "supervisor", "tapurah")
    staff = app.test_client()
    assert staff.login(supervisor.username).status_code == 302
    page = staff.get("/painel").get_data(as_text=True)
    month = default_day().strftime("%m/%Y")
    row = re.search(r'<td data-label="Mês">' + re.escape(month) + r"</td>(.*?)</tr>", page, re.S)
    assert row, page[-3000:]
    assert re.findall(r">(\d+)<", row.group(1)) == ["2", "1", "1"]
