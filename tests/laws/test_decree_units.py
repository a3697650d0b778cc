"""The unit of a value a law leaves to a decree (/conformidade#decretos): reais or the
town's own fiscal unit (the one its law names, else the municipality's), never another
town's; and a fine is priced in the unit recorded, not with the town's own unit value.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from html import unescape

import pytest
from sqlalchemy import select

from inspector.extensions import db
from inspector.laws import compliance
from inspector.models import AuditEntry, DecreeValue
from inspector.rules.model import Amount
from inspector.rules.sanctions import money
from tests import factories
from tests.support.enforcement import set_values

TOWN = "nova-santa-helena"


def _login(app, username):
    c = app.test_client()
    assert c.login(username).status_code == 302
    return c


def _register(admin, **kw):
    form = {"key": "fine.amount", "amount": "250,00", "unit": "BRL",
            "valid_from": "2026-01-01", "source": "Decreto nº 5/2026, de 02/01/2026", **kw}
    return admin.post_form("/conformidade/decretos", form, token_from="/conformidade")


def test_another_towns_fiscal_unit_is_refused_and_nothing_saved(app):
    with app.app_context():
        admin = factories.user("admin", TOWN)
        db.session.commit()
        username = admin.username
    c = _login(app, username)
    form_page = c.get("/conformidade").get_data(as_text=True)
    select_html = form_page[form_page.index('id="d-unit"'):]
    select_html = select_html[:select_html.index("</select>")]
    assert 'value="UFM"' in select_html and 'value="BRL"' in select_html
    assert 'value="UFIM"' not in select_html   # Tapurah's unit is not offered here
    r = _register(c, amount="2", unit="UFIM")
    assert r.status_code == 422
    html = unescape(r.get_data(as_text=True))
    error = re.search(r'<p class="field-error" id="d-unit-error">([^<]+)</p>', html)
    assert error and "use R$ (reais) ou UFM" in error.group(1)
    assert "UFIM não é a unidade fiscal do município" in error.group(1)
    with app.app_context():
        assert db.session.scalar(select(DecreeValue)) is None
        assert db.session.scalar(select(AuditEntry).filter_by(entity="decree_value")) is None
    assert _register(c, amount="2", unit="UFM").status_code == 302   # the town's own unit


def test_tapurah_takes_its_own_unit_and_not_nova_santa_helenas(app):
    with app.app_context():
        admin = factories.user("admin", "tapurah")
        db.session.commit()
        username = admin.username
    c = _login(app, username)
    r = _register(c, key="fiscal_unit.brl", amount="4,50", unit="UFM")
    assert r.status_code == 422 and "use R$ (reais) ou UFIM" in unescape(r.get_data(as_text=True))


@pytest.mark.parametrize("unit, brl, basis", [
    ("UFIM", None, "UFIM não é a unidade fiscal de Nova Santa Helena (UFM)"),
    ("UFM", Decimal("10.00"), "UFM de 01/01/2026: R$ 5,00"),
])
def test_a_fine_is_priced_in_the_unit_recorded(app, unit, brl, basis):
    """2 UFIM (stored before the form checked the unit) is not 2 UFM: Nova Santa Helena's
    UFM value does not price it."""
    with app.app_context():
        set_values(TOWN, fiscal_unit="5.00", decree={"fine.amount": (2, unit)},
                   since=date(2026, 1, 1))
        town = factories.town(TOWN)
        assert compliance.fiscal_unit_of(town) == "UFM"
        assert compliance.fiscal_unit_of(factories.town("tapurah")) == "UFIM"
        cash = money(Amount(None, decree="fine.amount"), compliance.town_facts(town),
                     date(2026, 3, 2))
        assert (cash.unit, cash.amount, cash.brl) == (unit, Decimal("2"), brl)
        assert basis in cash.basis
