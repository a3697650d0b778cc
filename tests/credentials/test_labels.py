"""One credential is named in the singular ("Carteira de motorista de táxi"), the sheets
that print many in the plural ("Carteiras de motorista de táxi")."""
from __future__ import annotations

import re
from html import unescape

from inspector.credentials import issuing
from inspector.extensions import db
from tests import factories


def test_a_credential_is_named_in_the_singular_and_its_sheet_in_the_plural(app):
    with app.app_context():
        taxi = factories.vehicle("sapezal", "taxi", plate="TAX1B23", prefix="0101")
        driver = factories.driver("sapezal", "autonomo", name="Maria Taxista")
        taxi.drivers.append(driver)
        card = issuing.issue(driver, "teste")
        sticker = issuing.issue(taxi, "teste")
        user = factories.user("supervisor", "sapezal")
        db.session.commit()
        ids, username = (card.id, sticker.id), user.username
    c = app.test_client()
    assert c.login(username).status_code == 302
    page = unescape(c.get(f"/credenciais/{ids[0]}").get_data(as_text=True))
    assert f"Credencial {ids[0]} · Carteira de motorista de táxi<" in page
    page = unescape(c.get(f"/credenciais/{ids[1]}").get_data(as_text=True))
    assert f"Credencial {ids[1]} · Adesivo de veículo<" in page
    listing = unescape(c.get("/credenciais").get_data(as_text=True))
    kinds = re.findall(r'<td data-label="Tipo">([^<]+)</td>', listing)
    assert sorted(kinds) == ["Adesivo de veículo", "Carteira de motorista de táxi"]
    assert "Carteiras de motorista de táxi (A4, ativas)" in re.sub(r"\s+", " ", listing)


def test_a_town_is_offered_only_the_sheets_of_its_services(app):
    """Sapezal's law covers taxis only: no moto-taxi vest badges; Tapurah's moto-taxis only:
    no taxi driver's cards; Nortelândia has both."""
    with app.app_context():
        users = {slug: factories.user("supervisor", slug).username
                 for slug in ("sapezal", "tapurah", "nortelandia")}
        db.session.commit()
    offered = {}
    for slug, username in users.items():
        c = app.test_client()
        assert c.login(username).status_code == 302
        html = unescape(c.get("/credenciais").get_data(as_text=True))
        offered[slug] = set(re.findall(r'href="/credenciais/folha/(\w+)\.pdf"', html))
        assert c.get("/credenciais?folha=rider").status_code == 200
    assert offered == {"sapezal": {"vehicle", "card"}, "tapurah": {"vehicle", "rider"},
                       "nortelandia": {"vehicle", "rider", "card"}}
