"""Issuing a whole sheet the town does not print is refused, on the page (422 with a message)
and in the CLI (exit 2): Tapurah has no taxi law, so no taxi driver's cards; Sapezal no
moto-taxi law, so no vest badges. Nothing is issued."""
from __future__ import annotations

from html import unescape

from inspector.extensions import db
from inspector.models import Credential
from tests import factories

NO_CARD = ("Tapurah não emite carteiras de motorista de táxi: não há lei municipal de táxi em "
           "Tapurah")


def _issued(app) -> int:
    with app.app_context():
        return db.session.scalar(db.select(db.func.count()).select_from(Credential))


def _tapurah_admin(app, client, make):
    with app.app_context():
        taxi = factories.vehicle("tapurah", "taxi")  # from before the registry refused it
        taxi.drivers.append(factories.driver("tapurah", "autonomo", cnh_category="B"))
        db.session.commit()
    admin = make(factories.user, "admin", "tapurah")
    client.login(admin.username)


def test_the_page_refuses_a_sheet_the_town_does_not_print(app, client, make):
    _tapurah_admin(app, client, make)
    r = client.post_form("/credenciais/emitir", {"folha": "card"}, token_from="/credenciais")
    assert r.status_code == 422
    assert NO_CARD in unescape(r.get_data(as_text=True))
    r = client.post_form("/credenciais/emitir", {"folha": "cracha"}, token_from="/credenciais")
    assert r.status_code == 422
    assert "folha desconhecida: 'cracha' (use vehicle, rider, card)" in unescape(
        r.get_data(as_text=True))
    assert _issued(app) == 0
    r = client.post_form("/credenciais/emitir", {"folha": "vehicle"}, token_from="/credenciais")
    assert r.status_code == 302 and _issued(app) == 1  # the stickers it does print


def test_the_cli_refuses_it_too(app, runner, client, make):
    _tapurah_admin(app, client, make)
    for args in (["issue", "--kind", "card"], ["sheet", "--kind", "card", "--issue-missing"]):
        result = runner.invoke(args=["credentials", *args, "--town", "tapurah"])
        assert result.exit_code == 2
        assert result.stderr.strip() == f"erro: folha: {NO_CARD}"
    assert _issued(app) == 0
    result = runner.invoke(args=["credentials", "issue", "--town", "tapurah"])
    assert result.exit_code == 0 and "1 credenciais emitidas" in result.output  # the sticker


def test_the_list_offers_no_button_for_a_sheet_the_town_does_not_print(app, client, make):
    _tapurah_admin(app, client, make)
    html = client.get("/credenciais?folha=card").get_data(as_text=True)
    assert 'name="folha" value="card"' not in html
    assert 'name="folha" value="vehicle"' in html  # the whole list instead
