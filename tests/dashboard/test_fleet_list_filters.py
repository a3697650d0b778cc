"""/painel/frota: the bare address lists the whole fleet (every service and standing, each
row saying which); ?servico= and ?situacao= narrow it, with the standing in Portuguese
(situacao=suspenso; "suspended" from older links still works); a wrong value answers 400 in
Portuguese only."""
from __future__ import annotations

import re

from inspector.extensions import db
from inspector.models import Status, Vehicle


def _plates(html: str) -> set[str]:
    return set(re.findall(r'<td data-label="Placa">([^<]+)</td>', html))


def _suspend_one(app, town) -> str:
    with app.app_context():
        v = db.session.get(Vehicle, town["vehicles"][0])
        v.current_licence.status = Status.SUSPENDED
        db.session.commit()
        return v.plate


def test_the_bare_address_lists_the_whole_fleet(app, client, town):
    suspended = _suspend_one(app, town)
    client.login(town["sup"])
    r = client.get("/painel/frota")
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    assert "<h1>Frota: todos os veículos hoje</h1>" in html
    assert "3 veículos em" in html and len(_plates(html)) == 3
    assert '<th scope="col">Serviço</th>' in html and '<th scope="col">Situação</th>' in html
    row = next(r for r in re.findall(r"<tr>(.*?)</tr>", html, re.S) if suspended in r)
    assert ">Suspenso</span>" in row
    with app.app_context():                                  # never another town's
        far = db.session.get(Vehicle, town["far_vehicle"]).plate
    assert far not in html


def test_the_standing_filter_takes_portuguese_and_the_old_value(app, client, town):
    suspended = _suspend_one(app, town)
    client.login(town["sup"])
    pt = client.get("/painel/frota?servico=mototaxi&situacao=suspenso")
    old = client.get("/painel/frota?servico=mototaxi&situacao=suspended")
    assert pt.status_code == old.status_code == 200
    assert _plates(pt.get_data(as_text=True)) == _plates(old.get_data(as_text=True)) \
        == {suspended}
    assert "<h1>Mototáxi: suspensos hoje</h1>" in pt.get_data(as_text=True)
    only = client.get("/painel/frota?situacao=suspenso").get_data(as_text=True)
    assert _plates(only) == {suspended}                      # one filter alone
    # the dashboard links the Portuguese value
    page = client.get("/painel").get_data(as_text=True)
    assert "/painel/frota?servico=mototaxi&amp;situacao=suspenso" in page
    assert "situacao=suspended" not in page


def test_a_wrong_filter_is_400_in_portuguese(client, town):
    client.login(town["sup"])
    for query in ("situacao=ok", "servico=onibus", "servico=taxi&situacao=Suspended"):
        r = client.get(f"/painel/frota?{query}")
        body = r.get_data(as_text=True)
        assert r.status_code == 400, query
        assert "Filtro inválido" in body and "suspenso" in body and "suspended" not in body
