"""Conditional checklist items apply only when their condition is recorded (DOMAIN "Conditional
items"): Nortelândia Lei 127/2009 Art. 14 X asks for the fare table only "quando seu uso for
expressamente autorizado", i.e. while the town has recorded the decree approving it. What the
phone gets, what the sync accepts and what the law page says follow the same rule."""
from __future__ import annotations

from datetime import date

from inspector.extensions import db
from inspector.laws import in_force
from tests import factories

TOWN = "nortelandia"
DECREE = {"key": "fare_table.base_fare", "amount": "6,50", "unit": "BRL",
          "valid_from": "2026-02-01", "source": "Decreto nº 9/2026, de 20/01/2026"}


def _ids(town, day: date) -> list[str]:
    return [i["id"] for i in in_force.checklist(town, "taxi", day)["items"]]


def _login(app, username):
    c = app.test_client()
    assert c.login(username).status_code == 302
    return c


def test_the_fare_table_is_checked_only_from_the_day_of_the_decree_that_authorises_it(app):
    with app.app_context():
        town = factories.town(TOWN)
        username = factories.user("admin", TOWN).username
        db.session.commit()
        assert "displayed-documents" in _ids(town, date(2026, 3, 2))
        assert "fare-table" not in _ids(town, date(2026, 3, 2))
    admin = _login(app, username)
    r = admin.post_form("/conformidade/decretos", DECREE, token_from="/conformidade")
    assert r.status_code == 302, r.get_data(as_text=True)[:2000]
    with app.app_context():
        town = factories.town(TOWN)
        assert "fare-table" in _ids(town, date(2026, 3, 2))
        assert "fare-table" not in _ids(town, date(2026, 1, 31))   # before the decree
        [item] = [i for i in in_force.checklist(town, "taxi", date(2026, 3, 2))["items"]
                  if i["id"] == "fare-table"]
        assert item["citation"]["article"] == "Art. 14, X"
        assert item["condition"] == {"decree": "fare_table.base_fare"}


def test_the_law_page_says_the_item_is_conditional(client):
    page = client.get("/leis/nortelandia-lei-127-2009-taxi/checklist?on=2026-03-01")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Tabela de preços afixada" in html
    assert "Só onde o município autorizou por decreto" in html
