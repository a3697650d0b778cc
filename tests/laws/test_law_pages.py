"""Citations anyone can open (/leis), the checklist page, the compliance page (/conformidade)
and the decree-value form: what a reader, a supervisor and an admin would notice."""
from __future__ import annotations

import dataclasses
import re
from datetime import date, timedelta
from decimal import Decimal
from html import unescape

import pytest
from flask import render_template_string

from inspector import rules
from inspector.clock import default_day
from inspector.extensions import db
from inspector.laws.pages import PARAMETER_LABELS, law_index, outline
from inspector.models import AuditEntry, DecreeValue
from inspector.rules import Citation
from inspector.rules.engine import checklist
from inspector.rules.lawtext import parse_law
from tests import factories
from tests.support.laws import decree_form
from tests.support.web import signed_in

TAPURAH = "tapurah-lei-406-2001-mototaxi"
NSH = "nova-santa-helena-lei-535-2013-taxi"
UNDEFINED = '<span class="badge badge-warn">não definido</span>'


def text(response) -> str:
    return response.get_data(as_text=True)


def ids_on(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def citations_in(obj, seen=None) -> list[Citation]:
    """Every Citation reachable from a pack (walks the dataclasses, not our page code)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, Citation):
        return [obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [c for f in dataclasses.fields(obj)
                for c in citations_in(getattr(obj, f.name), seen)]
    if isinstance(obj, dict):
        return [c for v in obj.values() for c in citations_in(v, seen)]
    if isinstance(obj, (list, tuple)):
        return [c for v in obj for c in citations_in(v, seen)]
    return []


# --------------------------------------------------------------------------- law pages

def test_every_citation_of_every_pack_lands_on_an_element_of_its_law_page(client):
    citations = [c for p in rules.load_all() for c in citations_in(p)]
    assert len(citations) > 150
    pages: dict[str, tuple[set, str]] = {}
    for c in citations:
        if c.law_slug not in pages:
            r = client.get(f"/leis/{c.law_slug}")
            assert r.status_code == 200, c.law_slug
            pages[c.law_slug] = (ids_on(text(r)), unescape(text(r)))
        ids, html = pages[c.law_slug]
        assert c.anchor in ids, f"{c.law} {c.article}: #{c.anchor} missing on /leis/{c.law_slug}"
        # the element carries the unit's own words (first few, as the law prints them)
        unit = rules.law_text(c.law_slug).unit(c.anchor)
        element = html[html.index(f'id="{c.anchor}"'):][:4000]
        assert " ".join(unit.text.split()[:6]) in element
    assert set(pages) == set(rules.law_texts()), "every shipped law is cited somewhere"


def test_law_page_shows_what_the_product_enforces_next_to_each_article(client):
    html = text(client.get(f"/leis/{TAPURAH}"))
    art15 = html[html.index('id="art-15"'):html.index('id="art-16"')]
    assert "O que o sistema aplica" in art15
    assert "Faixa “Moto-Táxi” nos capacetes" in art15
    assert 'href="#art-15-i"' in art15  # the entry points at the item it cites
    art14 = html[html.index('id="art-14"'):html.index('id="art-15"')]
    assert "Multa de 100 UFIM ao titular da permissão" in art14  # a sanction
    art30 = html[html.index('id="art-30"'):html.index('id="art-31"')]
    assert "8 dias para recorrer" in art30  # the appeal window
    art5 = html[html.index('id="art-5"'):html.index('id="art-6"')]
    assert "1 veículo a cada 1.000 habitantes" in art5  # a town limit


def test_law_index_lists_the_five_laws(client):
    html = text(client.get("/leis"))
    for summary in law_index():
        assert f'href="/leis/{summary.slug}"' in html
    for town in ("Nortelândia", "Nova Santa Helena", "Sapezal", "Tapurah"):
        assert town in html
    assert "Lei 406/2001" in html and "25/10/2001" in html and "Moto-táxi" in html
    assert client.get("/leis/nao-existe").status_code == 404


@pytest.fixture
def odd_law(monkeypatch):
    """A law whose text holds markup, an ampersand and quotes, with two paragraphs."""
    source = ("Lei de teste\n"
              "Art. 1º Fica proibido <script>alert('x')</script> & \"aspas\" no veículo.\n"
              "§ 1º Primeiro parágrafo <b>sem negrito</b>.\n"
              "§ 2º Segundo parágrafo.\n"
              "I - um inciso com <img src=x onerror=alert(1)>;\n"
              "Art. 2º Esta Lei entra em vigor na data de sua publicação.\n")
    law = parse_law(source, "lei-de-teste")
    real = rules.law_text
    monkeypatch.setattr(rules, "law_text", lambda slug: law if slug == "lei-de-teste"
                        else real(slug))
    outline.cache_clear()
    yield law
    outline.cache_clear()


def test_law_text_is_html_escaped_and_keeps_its_paragraphs(client, odd_law):
    r = client.get("/leis/lei-de-teste")
    assert r.status_code == 200
    html = text(r)
    assert "<script>alert" not in html and "<b>sem negrito" not in html and "<img" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &#34;aspas&#34;" in html
    assert "&lt;b&gt;sem negrito&lt;/b&gt;" in html
    # every unit its own element, in order, each with its own words
    assert {"art-1", "art-1-p1", "art-1-p2", "art-1-p2-i", "art-2"} <= ids_on(html)
    order = [html.index(f'id="{a}"') for a in ("art-1", "art-1-p1", "art-1-p2", "art-1-p2-i",
                                                 "art-2")]
    assert order == sorted(order)
    p1 = html[html.index('id="art-1-p1"'):html.index('id="art-1-p2"')]
    assert "Primeiro parágrafo" in p1 and "Segundo parágrafo" not in p1


# --------------------------------------------------------------------------- caching

def test_law_pages_are_public_cacheable_and_revalidate_with_an_etag(app, client, make):
    for url in ("/leis", f"/leis/{TAPURAH}", f"/leis/{TAPURAH}/checklist?on=2026-03-01"):
        r = client.get(url)
        assert r.status_code == 200
        cc = r.headers["Cache-Control"]
        assert "public" in cc and "no-store" not in cc
        assert int(re.search(r"max-age=(\d+)", cc).group(1)) >= 7 * 24 * 3600
        etag = r.headers["ETag"]
        again = client.get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b""
    # "today's" checklist turns over at midnight: cached, but not for a week
    cc = client.get(f"/leis/{TAPURAH}/checklist").headers["Cache-Control"]
    assert "public" in cc and int(re.search(r"max-age=(\d+)", cc).group(1)) <= 24 * 3600
    # a signed-in agent gets the same bytes (nothing personal on the page), cached by
    # their browser only: the response refreshes their session cookie
    anon = client.get(f"/leis/{TAPURAH}")
    assert "Set-Cookie" not in anon.headers
    agent, user = signed_in(app, make, "agent", "tapurah")
    mine = agent.get(f"/leis/{TAPURAH}")
    assert mine.headers["ETag"] == anon.headers["ETag"]
    cc = mine.headers["Cache-Control"]
    assert cc.startswith("private, max-age=") and "no-store" not in cc
    assert agent.get(f"/leis/{TAPURAH}", headers={"If-None-Match": mine.headers["ETag"]}
                     ).status_code == 304
    assert user.name not in text(mine) and "csrf" not in text(mine)


def test_law_pages_are_small_and_load_nothing_from_elsewhere(client):
    for summary in law_index():
        html = text(client.get(f"/leis/{summary.slug}"))
        assert len(html.encode()) < 80_000
        assert "<script" not in html and "style=" not in html
        assert not re.search(r'(src|href)="(https?:)?//', html)


# --------------------------------------------------------------------------- checklist page

def test_checklist_page_lists_the_items_in_force_with_their_citations(client):
    html = text(client.get(f"/leis/{TAPURAH}/checklist?on=2026-03-01"))
    items = checklist("tapurah", "mototaxi", date(2026, 3, 1))
    assert len(items) > 10
    for it in items:
        assert f'id="item-{it.id}"' in html
        block = html[html.index(f'id="item-{it.id}"'):][:3000]
        assert f'href="/leis/{TAPURAH}#{it.citation.anchor}"' in block
        assert unescape(it.label) in unescape(block)
    assert "Lei 406/2001, Art. 15, I" in html


def test_checklist_page_explains_a_day_without_the_law_and_a_bad_date(client):
    before = client.get(f"/leis/{TAPURAH}/checklist?on=2001-10-24")
    assert before.status_code == 404
    assert "vigora de 25/10/2001" in text(before)
    bad = client.get(f"/leis/{TAPURAH}/checklist?on=31-31-2026")
    assert bad.status_code == 400 and "Data inválida" in text(bad)
    assert client.get("/leis/nao-existe/checklist").status_code == 404


# --------------------------------------------------------------------------- citation macro

def test_citation_link_macro_links_any_form_of_citation(app):
    c = checklist("tapurah", "mototaxi", date(2026, 3, 1))[0].citation
    tpl = ('{% from "_citation.html" import citation_link %}'
           '[{{ citation_link(a) }}][{{ citation_link(b, short=true) }}][{{ citation_link(n) }}]'
           '[{{ citation_url(a) }}]')
    with app.test_request_context():
        out = render_template_string(tpl, a=c, b=c.as_dict(), n=None)
    href = f"/leis/{c.law_slug}#{c.anchor}"
    assert f'<a class="cite" href="{href}"' in out
    assert f">{c.law}, {c.article}</a>]" in out and f">{c.article}</a>]" in out
    assert "[]" in out and out.endswith(f"[{href}]")


# --------------------------------------------------------------------------- compliance page

@pytest.fixture
def tapurah_fleet(app):
    """Tapurah (1,500 in the seat, 400 in the interior: room for 1 moto-taxi) with two
    licensed ones, one too old, one whose licence ends in 10 days; and a Sapezal taxi."""
    today = default_day()
    with app.app_context():
        factories.town("tapurah", seat=1500, interior=400)
        old = factories.vehicle("tapurah", "mototaxi", plate="OLD1A11", year_of_manufacture=2010)
        factories.licence(old)
        factories.insurance(old)
        soon = factories.vehicle("tapurah", "mototaxi", plate="SON2B22")
        factories.licence(soon, number="AL-VENCE", valid_until=today + timedelta(days=10))
        factories.insurance(soon, valid_from=today - timedelta(days=400),
                            valid_until=today - timedelta(days=5))
        other = factories.vehicle("sapezal", "taxi", plate="SAP9Z99",
                                  holder=factories.holder("sapezal", name="Titular de Sapezal"))
        factories.licence(other)
        db.session.commit()


def test_compliance_page_shows_quota_rows_with_citations(app, make, tapurah_fleet):
    client, _ = signed_in(app, make, "supervisor", "tapurah")
    r = client.get("/conformidade")
    assert r.status_code == 200
    html = text(r)
    quotas = html[html.index('class="stack quotas"'):]
    quotas = quotas[:quotas.index("</table>")]
    assert "1 veículo a cada 1000 habitantes na sede e 1 a cada 500 no interior" in quotas
    assert re.search(r'data-label="Em uso">2<', quotas)
    assert re.search(r'data-label="Máximo">1<', quotas)
    assert "Acima do limite" in quotas
    assert f'href="/leis/{TAPURAH}#art-5-i"' in quotas   # the seat's quota
    assert f'href="/leis/{TAPURAH}#art-5-ii"' in quotas  # the interior's
    # vehicle past its age, licence ending soon, insurance lapsed: each with its article
    assert "OLD-1A11" in html or "OLD1A11" in html
    age = html[html.index("Idade dos veículos"):]
    assert "fabricado em 2010" in age[:3000] and f"/leis/{TAPURAH}#art-13" in age[:3000]
    docs = html[html.index("Documentos vencidos ou a vencer"):]
    assert "Alvará AL-VENCE vence em" in docs and "A vencer" in docs
    assert "Seguro obrigatório vencido em" in docs and f"/leis/{TAPURAH}#art-17" in docs
    # decree values: Tapurah leaves the UFIM's value to a decree, not set yet
    assert "Valor da UFIM em reais" in html and UNDEFINED in html
    # and nothing of another town
    assert "SAP9Z99" not in html and "SAP-9Z99" not in html
    assert "Titular de Sapezal" not in html and "sapezal-lei" not in html


def test_compliance_page_shows_company_shares_and_auxiliaries(app, make):
    with app.app_context():
        factories.town("nova-santa-helena", seat=2000, interior=300)  # room for 3 taxis
        company = factories.holder("nova-santa-helena", company=True, name="Táxi Rápido Ltda")
        cars = [factories.vehicle("nova-santa-helena", "taxi", holder=company)
                for _ in range(2)]
        cars.append(factories.vehicle("nova-santa-helena", "taxi"))
        for v in cars:
            factories.licence(v)
        for _ in range(3):
            d = factories.driver("nova-santa-helena", "auxiliar", holder=company)
            d.vehicles.append(cars[0])
        db.session.commit()
    client, _ = signed_in(app, make, "admin", "nova-santa-helena")
    html = text(client.get("/conformidade"))
    shares = html[html.index('class="stack shares"'):]
    shares = shares[:shares.index("</table>")]
    assert "Táxi Rápido Ltda" in shares and "2 de 3" in shares and "66,7%" in shares
    assert "Acima do limite" in shares and f'href="/leis/{NSH}#art-5"' in shares
    assert "Máximo por empresa: 33,3%" in html
    aux = html[html.index("Motoristas auxiliares por veículo"):]
    assert "3 motoristas auxiliares: o limite é 2" in aux[:3000]
    assert f"/leis/{NSH}#art-11-p2" in aux[:3000]


def test_compliance_page_is_for_supervisors_and_admins(app, client, make):
    agent, _ = signed_in(app, make, "agent", "tapurah")
    assert agent.get("/conformidade").status_code == 403
    anon = client.get("/conformidade")
    assert anon.status_code == 302 and "/entrar" in anon.headers["Location"]
    sup, _ = signed_in(app, make, "supervisor", "tapurah")
    r = sup.get("/conformidade")
    assert "no-store" in r.headers["Cache-Control"]
    assert 'action="/conformidade/decretos"' not in text(r)  # supervisors read only
    assert 'href="/conformidade"' in text(sup.get("/inicio"))


# --------------------------------------------------------------------------- decree values

def test_admin_sets_a_decree_value_with_an_audit_entry(app, make):
    client, admin = signed_in(app, make, "admin", "nova-santa-helena")
    before = text(client.get("/conformidade"))
    decrees = before[before.index('id="decretos"'):]
    assert "Valor da multa" in decrees and UNDEFINED in decrees
    r = client.post_form("/conformidade/decretos", decree_form(), token_from="/conformidade")
    assert r.status_code == 302 and r.headers["Location"].endswith("/conformidade#decretos")
    with app.app_context():
        row = db.session.scalar(db.select(DecreeValue))
        assert (row.key, row.amount, row.unit, row.valid_from) == (
            "fine.amount", Decimal("1250.50"), "BRL", date(2024, 3, 10))
        assert row.source == "Decreto nº 12/2024, de 10/03/2024" and row.set_by_id == admin.id
        entry = db.session.scalar(db.select(AuditEntry).filter_by(entity="decree_value"))
        assert entry.action == "decree_value_set" and entry.actor_id == admin.id
        assert entry.entity_id == str(row.id) and '"1250.50"' in entry.after
    after = text(client.get("/conformidade"))
    decrees = after[after.index('id="decretos"'):]
    assert "1.250,50 R$ (reais)" in decrees and "10/03/2024" in decrees
    assert UNDEFINED not in decrees
    assert "Decreto nº 12/2024" in decrees
    # the same key and date again corrects the value, and says what it was
    r = client.post_form("/conformidade/decretos", decree_form(amount="1300"),
                         token_from="/conformidade")
    assert r.status_code == 302
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(DecreeValue)) == 1
        assert db.session.scalar(db.select(DecreeValue.amount)) == Decimal("1300.00")
        fix = db.session.scalar(db.select(AuditEntry).filter_by(action="decree_value_corrected"))
        assert '"1250.50"' in fix.before and '"1300.00"' in fix.after


def test_supervisor_cannot_set_a_decree_value(app, make):
    client, _ = signed_in(app, make, "supervisor", "nova-santa-helena")
    r = client.post_form("/conformidade/decretos", decree_form(), token_from="/conformidade")
    assert r.status_code == 403
    with app.app_context():
        assert db.session.scalar(db.select(DecreeValue)) is None


@pytest.mark.parametrize("field, value, message", [
    ("amount", "doze reais", "valor inválido"),
    ("amount", "0", "maior que zero"),
    ("amount", "", "obrigatório"),
    ("key", "fiscal_unit.brl", "deixam a decreto"),   # Tapurah's key, not Nova Santa Helena's
    ("unit", "dólar", "unidade desconhecida"),
    ("valid_from", "2013-05-20", "antes da lei"),      # Lei 535/2013 holds from 21/05/2013
    ("valid_from", "10/13/2024", "data inválida"),
    ("source", "", "obrigatório"),
])
def test_bad_decree_value_is_refused_with_a_message(app, make, field, value, message):
    client, _ = signed_in(app, make, "admin", "nova-santa-helena")
    r = client.post_form("/conformidade/decretos", decree_form(**{field: value}),
                         token_from="/conformidade")
    assert r.status_code == 422
    html = text(r)
    error = re.search(rf'<p class="field-error" id="d-{field}-error">([^<]+)</p>', html)
    assert error and message in unescape(error.group(1))
    assert re.search(rf'id="d-{field}"[^>]*aria-invalid="true"', html)
    with app.app_context():
        assert db.session.scalar(db.select(DecreeValue)) is None
        assert db.session.scalar(db.select(AuditEntry).filter_by(entity="decree_value")) is None


def test_decree_form_needs_its_csrf_token(app, make):
    client, _ = signed_in(app, make, "admin", "nova-santa-helena")
    r = client.post("/conformidade/decretos", data=decree_form())
    assert r.status_code == 400
    with app.app_context():
        assert db.session.scalar(db.select(DecreeValue)) is None


def test_the_fiscal_unit_value_is_in_reais(app, make):
    client, _ = signed_in(app, make, "admin", "tapurah")
    form = decree_form(key="fiscal_unit.brl", amount="4,50", unit="UFIM", valid_from="2026-01-01")
    r = client.post_form("/conformidade/decretos", form, token_from="/conformidade")
    assert r.status_code == 422 and "em reais" in text(r)
    r = client.post_form("/conformidade/decretos", {**form, "unit": "BRL"},
                         token_from="/conformidade")
    assert r.status_code == 302
    html = text(client.get("/conformidade"))
    decrees = html[html.index('id="decretos"'):]
    assert "4,50 R$ (reais)" in decrees and UNDEFINED not in decrees


def test_every_pack_parameter_has_words_on_the_law_pages(client):
    """A parameter a pack may set is shown in Portuguese, never as its dotted key."""
    from inspector.rules.loader import PARAMETERS

    assert set(PARAMETERS) <= set(PARAMETER_LABELS)
    html = text(client.get("/leis/nortelandia-lei-127-2009-taxi"))
    art23 = html[html.index('id="art-23"'):html.index('id="art-24"')]
    assert ("Alvará não expedido nem transferido a quem deve multa do veículo: até comprovar "
            "o pagamento (Arts. 23 e 34)") in art23
    nsh = text(client.get("/leis/nova-santa-helena-lei-535-2013-taxi"))
    assert "periodicity." not in nsh and "Vistoria com validade reduzida pelo responsável" in nsh
