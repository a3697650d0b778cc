"""The town's dashboard (/painel): every number is a link to the list behind it and
equals the rows that list shows; supervisors and admins only; another town's work never
counts; the period form works without JavaScript; charts are SVG with a table beside."""
from __future__ import annotations

import re

from tests.support.dashboard import PERIOD

NUMBER_LINK = re.compile(r'<a(?: class="figure")? href="(/(?:revisao|denuncias|painel)[^"]*)">'
                         r'(?:<strong>)?([\d.]+)(?=</strong>|</a>)')


def _rows(client, url: str) -> int:
    """The rows a list shows for a link, following its pages."""
    total, page = 0, 1
    while True:
        url = url.replace("&amp;", "&")
        response = client.get(url + ("&" if "?" in url else "?") + f"pagina={page}")
        assert response.status_code == 200, url
        html = response.get_data(as_text=True)
        total += html.count('class="row-link"')
        if "Seguintes" not in html:
            return total
        page += 1


def test_every_number_equals_the_list_it_links_to(client, town):
    client.login(town["sup"])
    response = client.get(f"/painel?{PERIOD}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    links = NUMBER_LINK.findall(html)
    assert len(links) > 25, links
    for url, number in links:
        assert _rows(client, url) == int(number.replace(".", "")), url


def test_the_figures_of_the_month(client, town):
    client.login(town["sup"])
    html = client.get(f"/painel?{PERIOD}").get_data(as_text=True)
    assert "<strong>7</strong> vistorias" in html           # April's and Sapezal's are not
    assert "<strong>4</strong> com algum item reprovado" in html
    agents = re.findall(r'<td data-label="Agente">([^<]+)</td>\s*<td data-label="Vistorias">'
                        r'<a href="([^"]+)">(\d+)</a>', html)
    assert [(a, int(n)) for a, _, n in agents] == [("Ana Agente", 4), ("Beto Agente", 3)]
    items = re.findall(r'<td data-label="Item">([^<]+)</td><td data-label="Lei e artigo">([^<]+)'
                       r'</td>\s*<td data-label="Reprovações"><a href="[^"]+">(\d+)</a>', html)
    assert {(label, n) for label, _, n in items[:2]} == {("Dois retrovisores", "2"),
                                                         ("Faixa “Moto-Táxi” nos capacetes", "2")}
    assert items[2][2] == "1" and len(items) == 3
    assert all(law.startswith("Lei 406/2001, Art.") for _, law, _ in items), items
    assert "R$ 100,00" in html                               # paid in March
    assert "<strong>3</strong> recebidas" in html and "<strong>2</strong> ainda não" in html
    assert html.count('<svg class="chart-svg"') == 8
    pairs = re.findall(r'<div class="chart-pair[^"]*">(.*?)</table>', html, re.S)
    assert len(pairs) == 8 and all('<table class="stack numbers"' in p for p in pairs)


def test_another_towns_supervisor_sees_only_their_town(client, town):
    client.login(town["far_sup"])
    html = client.get(f"/painel?{PERIOD}").get_data(as_text=True)
    assert "<strong>2</strong> vistorias" in html
    assert "Ana Agente" not in html and "<strong>2</strong> recebidas" in html


def test_supervisors_and_admins_only_and_the_nav_links_it_for_them(client, town):
    paths = ("/painel", "/painel/frota?servico=mototaxi&situacao=regular",
             f"/painel/pagamentos?{PERIOD}")
    assert all(client.get(p).status_code in (302, 303, 401) for p in paths)   # signed out
    for role, status in (("agent", 403), ("admin", 200), ("sup", 200)):
        c = client.application.test_client()
        c.login(town[role])
        for path in paths:
            assert c.get(path).status_code == status, (role, path)
        assert ('href="/painel"' in c.get("/inicio").get_data(as_text=True)) is (status == 200)


def test_the_period_form_works_without_script_and_says_what_is_wrong(client, town):
    client.login(town["sup"])
    page = client.get("/painel").get_data(as_text=True)
    assert re.search(r'<form class="filters period-form" method="get" action="/painel"', page)
    fragment = client.get(f"/painel?{PERIOD}", headers={"HX-Request": "true"})
    body = fragment.get_data(as_text=True)
    assert "<form" not in body and "<strong>7</strong> vistorias" in body
    assert "HX-Request" in fragment.headers.get("Vary", "")
    r = client.get("/painel?de=2026-03-31&ate=2026-03-01")
    assert r.status_code == 422 and "O fim do período vem antes do início." in r.get_data(as_text=True)
    r = client.get("/painel?de=31/02/2026")
    assert r.status_code == 422 and "Data inválida" in r.get_data(as_text=True)
