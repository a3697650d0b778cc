"""The driver's identity card (RG) and its issuing body (Nortelândia Lei 127/2009 Art. 10 III):
the admin form and page, the taxi driver's ID card that prints them, and the places that
must never show them (passenger page, field snapshot, logs, audit noise)."""
from __future__ import annotations

import logging
import re

import pytest

from inspector.credentials import issuing
from inspector.credentials.sheets import card_rows, render_pdf
from inspector.extensions import db
from inspector.identifiers import make_cpf
from inspector.models import AuditEntry, Driver
from tests import factories
from tests.support.credentials import regular_mototaxi

RG, ISSUER = "12.345.678-9", "SSP/MT"


@pytest.fixture
def admin(app, client, make):
    """A signed-in Nortelândia admin (the taxi law that asks for the RG)."""
    user = make(factories.user, "admin", "nortelandia")
    assert client.login(user.username).status_code == 302
    return user


def _form(**kw) -> dict:
    return {"category": "autonomo", "name": "Ana Taxista", "cpf": make_cpf("321654987"),
            "cnh_number": "01234567890", "cnh_category": "B", "cnh_expiry": "2030-12-31",
            "registration_number": "TX-77", "registration_expiry": "2027-06-30", **kw}


def _error(html: str, name: str) -> str | None:
    m = re.search(rf'<p class="field-error" id="f-{name}-error">([^<]+)</p>', html)
    return m.group(1) if m else None


def _post(client, data, path="/cadastro/condutores/novo"):
    return client.post_form(path, data, token_from=path)


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage() + repr(record.__dict__))


def test_form_saves_the_rg_as_written_and_the_page_shows_it(app, client, admin):
    collected = _Collect()
    loggers = [logging.getLogger(), app.logger]
    for lg in loggers:
        lg.addHandler(collected)
    try:
        r = _post(client, _form(rg_number=" 12.345.678-9 ", rg_issuer="ssp mt"))
    finally:
        for lg in loggers:
            lg.removeHandler(collected)
    assert r.status_code == 303, r.get_data(as_text=True)
    with app.app_context():
        d = db.session.scalar(db.select(Driver).filter_by(name="Ana Taxista"))
        assert (d.rg_number, d.rg_issuer) == (RG, ISSUER)
        driver_id = d.id
        entry = db.session.scalar(db.select(AuditEntry).filter_by(entity="driver"))
        assert "name_folded" not in (entry.after or "")  # a search aid, not a registry fact
    page = client.get(f"/cadastro/condutores/{driver_id}").get_data(as_text=True)
    assert f"{RG} · {ISSUER}" in page
    edit = client.get(f"/cadastro/condutores/{driver_id}/editar").get_data(as_text=True)
    assert f'value="{RG}"' in edit and f'value="{ISSUER}"' in edit
    assert not any(RG in line for line in collected.lines), "the RG reached a log"


@pytest.mark.parametrize("fields, name, message", [
    ({"rg_number": "12#45", "rg_issuer": "SSP/MT"}, "rg_number", "RG inválido"),
    ({"rg_number": "123", "rg_issuer": "SSP/MT"}, "rg_number", "de 4 a 14"),
    ({"rg_number": "1" * 15, "rg_issuer": "SSP/MT"}, "rg_number", "de 4 a 14"),
    ({"rg_number": "ABCDEF12", "rg_issuer": "SSP/MT"}, "rg_number", "algarismos"),
    ({"rg_number": RG, "rg_issuer": ""}, "rg_issuer", "informe o órgão expedidor"),
    ({"rg_number": "", "rg_issuer": "SSP/MT"}, "rg_number", "informe o número do RG"),
    ({"rg_number": RG, "rg_issuer": "SSP/XX"}, "rg_issuer", "UF desconhecida"),
    ({"rg_number": RG, "rg_issuer": "12/MT"}, "rg_issuer", "sigla e a UF"),
])
def test_bad_rg_is_refused_inline_with_the_other_errors(app, client, admin, fields, name,
                                                         message):
    r = _post(client, _form(cpf="123", **fields))
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert message.lower() in (_error(html, name) or "").lower(), html
    assert _error(html, "cpf")  # reported together
    with app.app_context():
        assert db.session.query(Driver).count() == 0


def test_rg_is_optional_and_can_be_cleared(app, client, admin, make):
    assert _post(client, _form()).status_code == 303
    with app.app_context():
        d = db.session.scalar(db.select(Driver))
        assert (d.rg_number, d.rg_issuer) == ("", "")
        driver_id = d.id
    path = f"/cadastro/condutores/{driver_id}/editar"
    assert _post(client, _form(rg_number="1234567X", rg_issuer="SSP/SP"), path).status_code == 303
    assert _post(client, _form(rg_number="", rg_issuer=""), path).status_code == 303
    with app.app_context():
        assert db.session.get(Driver, driver_id).rg_number == ""


def test_taxi_id_card_prints_the_rg_or_a_line_to_fill_in(app):
    with app.app_context():
        taxi = factories.vehicle("nortelandia", "taxi", plate="TAX1B23")
        with_rg = factories.driver("nortelandia", "autonomo", name="Maria Taxista",
                                   rg_number=RG, rg_issuer=ISSUER)
        without = factories.driver("nortelandia", "auxiliar", name="Zé Auxiliar",
                                   holder=taxi.holder)
        taxi.drivers += [with_rg, without]
        rows = dict(card_rows(with_rg, taxi.stand))
        assert rows["Identidade / órgão expedidor"] == f"{RG} · {ISSUER}"
        assert dict(card_rows(without, None))["Identidade / órgão expedidor"].startswith("____")
        creds = [issuing.issue(d, actor="test") for d in (with_rg, without)]
        pdf = render_pdf(creds, factories.town("nortelandia"), "card")
        assert pdf.startswith(b"%PDF")
        db.session.rollback()


def test_rg_is_not_on_the_passenger_pages(app, client):
    with app.app_context():
        v = regular_mototaxi("tapurah")
        rider = v.drivers[0]
        rider.rg_number, rider.rg_issuer = RG, ISSUER
        tokens = [issuing.issue(v, actor="test").token,
                  issuing.issue(rider, actor="test").token]
        db.session.commit()
    for token in tokens:
        r = client.get(f"/v/{token}")
        html = r.get_data(as_text=True)
        assert r.status_code == 200
        assert RG not in html and "12345678" not in html and ISSUER not in html


def test_rg_is_not_in_the_field_snapshot(app, client, make):
    agent = make(factories.user, "agent", "tapurah")

    def build():
        v = factories.vehicle("tapurah", "mototaxi")
        d = factories.driver("tapurah", "mototaxista", holder=v.holder, rg_number=RG,
                             rg_issuer=ISSUER)
        d.vehicles.append(v)
        factories.licence(v)
        return d
    make(build)
    assert client.login(agent.username).status_code == 302
    r = client.get("/api/field/snapshot", headers={"Accept": "application/json"})
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    assert r.json["drivers"], "the rider should be in the snapshot"
    for private in (RG, "12345678", ISSUER, "rg_number", "rg_issuer", "name_folded"):
        assert private not in text
