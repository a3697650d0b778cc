"""A licence, permit or driver registration registered valid for longer than its law allows is
refused on the registry form and in the CSV import, and flagged on /conformidade when already
stored: Nortelândia Lei 030/1998 Art. 6 (the Alvará and the autorização it
gives: a year), Sapezal Lei 060/1998 Art. 10 (the exercício), Nova Santa Helena Lei 535/2013
Art. 4 § 2º (renewed yearly), Nortelândia Lei 127/2009 Art. 8 (revalidated yearly). A year runs
to the same day of the next year (Lei 810/1949). Runs on SQLite and PostgreSQL."""
from __future__ import annotations

import re
from datetime import date, timedelta
from html import unescape

import pytest

from inspector.clock import default_day
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.imports.csv_import import import_registry
from inspector.models import Licence
from inspector.registry import records
from tests import factories
from tests.support.registry_csv import taxi_row, to_csv


def _licence(town: str, service: str, start: str, end: str):
    v = factories.vehicle(town, service)
    db.session.commit()
    return records.save_licence(v.municipality_id, {
        "vehicle_plate": v.plate, "number": "AL-77", "valid_from": start, "valid_until": end},
        actor="teste")


@pytest.mark.parametrize("town, service, start, end, article", [
    ("sapezal", "taxi", "2026-03-15", "2027-01-01", "Lei 060/1998, Art. 10"),
    ("nortelandia", "mototaxi", "2026-03-02", "2027-03-03", "Lei 030/1998, Art. 6"),
    ("nova-santa-helena", "taxi", "2026-03-01", "2027-03-02", "Lei 535/2013, Art. 4, § 2º"),
])
def test_an_alvara_longer_than_its_law_allows_is_refused_naming_the_article(
        app, town, service, start, end, article):
    with app.app_context():
        with pytest.raises(ValidationFailed) as info:
            _licence(town, service, start, end)
        db.session.rollback()
        why = info.value.errors["valid_until"]
        assert why.startswith("validade maior do que a lei permite") and article in why
        assert db.session.scalar(db.select(Licence.id)) is None


@pytest.mark.parametrize("town, service, start, end", [
    ("sapezal", "taxi", "2026-03-15", "2026-12-31"),
    ("nortelandia", "mototaxi", "2026-03-02", "2027-03-02"),
    ("tapurah", "mototaxi", "2026-03-02", "2028-03-02"),   # Tapurah's law sets no validity
])
def test_an_alvara_within_the_law_is_saved(app, town, service, start, end):
    with app.app_context():
        assert _licence(town, service, start, end).valid_until == date.fromisoformat(end)


def test_nortelandia_030_autorizacao_is_one_year(app):
    with app.app_context():
        h = factories.holder("nortelandia", company=True)
        db.session.commit()
        form = {"service": "mototaxi", "number": "AUT-9", "holder_tax_id": h.tax_id,
                "valid_from": "2026-01-15", "valid_until": "2027-01-16"}
        with pytest.raises(ValidationFailed) as info:
            records.save_permit(h.municipality_id, form, actor="teste")
        assert "Lei 030/1998, Art. 6" in info.value.errors["valid_until"]
        db.session.rollback()
        assert records.save_permit(h.municipality_id, form | {"valid_until": "2027-01-15"},
                                    actor="teste").number == "AUT-9"


def test_nortelandia_127_registration_is_revalidated_yearly_from_the_day_it_is_registered(app):
    with app.app_context():
        d = factories.driver("nortelandia", "autonomo", cnh_category="B")
        db.session.commit()
        too_long = (default_day() + timedelta(days=400)).isoformat()
        with pytest.raises(ValidationFailed) as info:
            records.save_driver(d.municipality_id, {"registration_expiry": too_long},
                                 actor="teste", driver=d)
        assert "Lei 127/2009, Art. 8" in info.value.errors["registration_expiry"]
        db.session.rollback()
        # an edit that leaves a stored expiry alone is not refused for it
        d = db.session.get(type(d), d.id)
        d.registration_expiry = default_day() + timedelta(days=400)
        db.session.commit()
        saved = records.save_driver(d.municipality_id, {"name": "Novo Nome"}, actor="teste",
                                     driver=d)
        assert saved.name == "Novo Nome"


def test_the_csv_import_refuses_the_row_naming_the_column(app):
    with app.app_context():
        town = factories.town("sapezal")
        db.session.commit()
        row = taxi_row(0) | {"alvara_inicio": "01/03/2026", "alvara_fim": "28/02/2027"}
        report = import_registry(town.id, to_csv([row]), actor="teste", dry_run=True)
        [error] = report.errors
        assert (error.line, error.column) == (2, "alvara_fim")
        assert "exercício (até 31/12/2026)" in error.reason and "Art. 10" in error.reason


def test_the_form_says_it_next_to_the_field(app, make):
    admin = make(factories.user, "admin", "sapezal")
    with app.app_context():
        v = factories.vehicle("sapezal", "taxi")
        db.session.commit()
        plate = v.plate
    c = app.test_client()
    assert c.login(admin.username).status_code == 302
    r = c.post_form("/cadastro/alvaras/novo", {"number": "AL-1", "vehicle_plate": plate,
                                               "valid_from": "2026-03-15",
                                               "valid_until": "2027-03-14"},
                    token_from="/cadastro/alvaras/novo")
    assert r.status_code == 422
    html = unescape(r.get_data(as_text=True))
    m = re.search(r'<p class="field-error" id="f-valid_until-error">([^<]+)</p>', html)
    assert m and "durante o exercício (até 31/12/2026)" in m.group(1)


def test_a_stored_record_longer_than_the_law_is_flagged_on_the_compliance_page(app, make):
    sup = make(factories.user, "supervisor", "nova-santa-helena")
    with app.app_context():
        v = factories.vehicle("nova-santa-helena", "taxi")
        factories.licence(v, number="AL-LONG", valid_from=date(2026, 1, 10),
                          valid_until=date(2028, 1, 10))
        db.session.commit()
    c = app.test_client()
    assert c.login(sup.username).status_code == 302
    page = unescape(c.get("/conformidade").get_data(as_text=True))
    assert ("Alvará nº AL-LONG: validade registrada até 10/01/2028, mas o Alvará vale no "
            "máximo 1 ano (de 10/01/2026 a 10/01/2027)") in page
    assert "Art. 4, § 2º" in page
