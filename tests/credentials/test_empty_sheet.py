"""'Baixar PDF' of a sheet with no active credential says so instead of handing over a blank
A4 page; a sheet the town's laws do not cover (a taxi driver's card in Tapurah) is 404."""
from __future__ import annotations

from html import unescape

from inspector.extensions import db
from tests import factories


def test_an_empty_sheet_sends_back_to_the_list_with_a_message(app, client, make):
    with app.app_context():
        factories.town("tapurah")
        db.session.commit()
    admin = make(factories.user, "admin", "tapurah")
    client.login(admin.username)
    r = client.get("/credenciais/folha/vehicle.pdf")
    assert r.status_code == 303 and r.headers["Location"].endswith("/credenciais?folha=vehicle")
    page = unescape(client.get(r.headers["Location"]).get_data(as_text=True))
    assert "Nenhuma credencial ativa em “Adesivos de veículos”: emita-as antes de imprimir." in page


def test_a_sheet_the_town_does_not_print_is_404(app, client, make):
    with app.app_context():
        factories.vehicle("tapurah")
        db.session.commit()
    admin = make(factories.user, "admin", "tapurah")
    client.login(admin.username)
    assert client.get("/credenciais/folha/card.pdf").status_code == 404
