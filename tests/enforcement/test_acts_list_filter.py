"""The acts list (/revisao/atos) filtered by holder (?titular=<id>) or driver (?condutor=<id>):
the holder's and the driver's registry pages list their newest acts and link there for the
rest. The filter is shown with the record's name and a way to clear it, kept by the other
filters and the pager; a value that is not a record number answers 400; another town's
record lists nothing. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import functools
import re
from datetime import timedelta

import pytest
from sqlalchemy import event, text

from inspector import enforcement
from inspector.blueprints.registry import details
from inspector.extensions import db
from inspector.registry.history import sanctions
from tests import factories
from tests.support.enforcement import fleet, inspect, local, set_values

TOWN = "nova-santa-helena"


@pytest.fixture
def acts(app):
    """Nova Santa Helena: holder A's taxi stopped three times for its roof light (oral warning
    and written warning confirmed, a fine proposed); holder B's taxi once. Tapurah: a
    moto-taxi's act (another town)."""
    with app.app_context():
        set_values(TOWN, decree={"fine.amount": (150, "BRL")})
        set_values("tapurah", minimum_wage=1518, fiscal_unit=4)
        a, b, far = fleet(TOWN, "taxi"), fleet(TOWN, "taxi"), fleet("tapurah", "mototaxi")
        a["holder"].name, b["holder"].name = "Ana Permissionária", "Bruno Permissionário"
        sup, agent = factories.user("supervisor", TOWN), factories.user("agent", TOWN)
        far_agent = factories.user("agent", "tapurah")
        db.session.commit()
        ids = []
        for n in range(3):
            when = local(2026, 3, 2 + 5 * n)
            (act,) = enforcement.acts_of(inspect(a["vehicle"], agent, {"roof-light": "fail"},
                                                 when))
            if n < 2:
                enforcement.confirm(act, sup, when + timedelta(hours=1))
            db.session.commit()
            ids.append(act.id)
        (b_act,) = enforcement.acts_of(inspect(b["vehicle"], agent, {"roof-light": "fail"},
                                               local(2026, 3, 4)))
        (far_act,) = enforcement.acts_of(inspect(far["vehicle"], far_agent, {"mirrors": "fail"},
                                                 local(2026, 3, 4)))
        db.session.commit()
        return {"a": a["holder"].id, "a_driver": a["driver"].id, "ids": ids,
                "b": b["holder"].id, "b_driver": b["driver"].id, "b_act": b_act.id,
                "far": far["holder"].id, "far_driver": far["driver"].id, "far_act": far_act.id,
                "sup": sup.username}


def _links(html: str) -> set[int]:
    """The acts linked from the list's rows."""
    return {int(i) for i in re.findall(r'class="row-link" href="/revisao/atos/(\d+)"', html)}


def _get(client, path, **kw):
    r = client.get(path, **kw)
    return r.status_code, r.get_data(as_text=True)


def test_holder_filter_lists_only_that_holders_acts_and_can_be_cleared(client, acts):
    client.login(acts["sup"])
    status, html = _get(client, "/revisao/atos")
    assert status == 200 and _links(html) == set(acts["ids"]) | {acts["b_act"]}
    status, html = _get(client, f"/revisao/atos?titular={acts['a']}")
    assert status == 200 and _links(html) == set(acts["ids"])
    note = re.search(r'<p class="card active-filter"[^>]*>(.*?)</p>', html, re.S).group(1)
    assert "Mostrando só os atos de:" in note and "Permissionário" in note
    assert f'<a href="/cadastro/permissionarios/{acts["a"]}">Ana Permissionária</a>' in note
    clear = re.search(r'<a href="([^"]+)">Mostrar os atos de todos</a>', note).group(1)
    assert clear == "/revisao/atos"
    # the filters form keeps the holder when the status or kind changes (htmx or not)
    assert f'<input type="hidden" name="titular" value="{acts["a"]}">' in html
    status, html = _get(client, f"/revisao/atos?titular={acts['a']}&situacao=proposed",
                        headers={"HX-Request": "true"})
    assert status == 200 and _links(html) == {acts["ids"][2]}
    assert "<h1>" not in html   # the fragment only
    # clearing keeps the status filter
    status, html = _get(client, f"/revisao/atos?titular={acts['a']}&situacao=proposed")
    assert 'href="/revisao/atos?situacao=proposed">Mostrar os atos de todos' in html


def test_driver_filter_lists_only_that_drivers_acts(client, acts):
    client.login(acts["sup"])
    status, html = _get(client, f"/revisao/atos?condutor={acts['b_driver']}")
    assert status == 200 and _links(html) == {acts["b_act"]}
    assert "Condutor" in html and f'href="/cadastro/condutores/{acts["b_driver"]}"' in html


def test_holder_and_driver_together(client, acts):
    client.login(acts["sup"])
    status, html = _get(client, f"/revisao/atos?titular={acts['a']}&condutor={acts['a_driver']}")
    assert status == 200 and _links(html) == set(acts["ids"])
    status, html = _get(client, f"/revisao/atos?titular={acts['a']}&condutor={acts['b_driver']}")
    assert status == 200 and _links(html) == set()
    assert "Ana Permissionária</a> e" in html


def test_the_pager_keeps_the_filter(app, client, acts, monkeypatch):
    real = enforcement.acts_list
    monkeypatch.setattr(enforcement, "acts_list", functools.partial(real, per_page=2))
    client.login(acts["sup"])
    status, html = _get(client, f"/revisao/atos?titular={acts['a']}")
    assert _links(html) == set(acts["ids"][1:])           # newest first, two a page
    nxt = re.search(r'<a href="([^"]+)">Seguintes', html).group(1).replace("&amp;", "&")
    assert f"titular={acts['a']}" in nxt and "pagina=2" in nxt
    status, html = _get(client, nxt)
    assert status == 200 and _links(html) == {acts["ids"][0]}


@pytest.mark.parametrize("query", ["titular=abc", "titular=-3", "titular=1.5", "condutor=%C2%B2",
                                   "titular=99999999999", "condutor=1%20OR%201=1"])
def test_a_value_that_is_not_a_record_number_answers_400(client, acts, query):
    """Ignoring it would list every act of the town under what the reader takes for one
    person's list; the message says what the filter wants."""
    client.login(acts["sup"])
    status, html = _get(client, f"/revisao/atos?{query}")
    assert status == 400
    assert "Filtro inválido" in html and "deve ser o número de um cadastro" in html
    assert "/revisao/atos/" not in html


def test_an_empty_value_is_no_filter(client, acts):
    client.login(acts["sup"])
    status, html = _get(client, "/revisao/atos?titular=&condutor=")
    assert status == 200 and len(_links(html)) == 4 and "active-filter" not in html


@pytest.mark.parametrize("arg,key", [("titular", "far"), ("condutor", "far_driver"),
                                     ("titular", None)])
def test_another_towns_record_lists_nothing(client, acts, arg, key):
    """Tapurah's holder and rider have an act; asked for by Nova Santa Helena's supervisor,
    the list is empty and says there is no such record here (as for an id that exists
    nowhere), never Tapurah's act or name."""
    client.login(acts["sup"])
    ident = acts[key] if key else 987654
    status, html = _get(client, f"/revisao/atos?{arg}={ident}")
    assert status == 200
    assert _links(html) == set() and "Nenhum ato com estes filtros." in html
    assert f"nº {ident} <strong>(não há este cadastro neste município)</strong>" in html
    assert f"/revisao/atos/{acts['far_act']}" not in html


@pytest.mark.parametrize("page,arg", [("holder", "titular"), ("driver", "condutor")])
def test_the_registry_pages_more_link_opens_the_filtered_list(app, client, acts, monkeypatch,
                                                              page, arg):
    """With more acts than the page shows (two here, fifty in the product), the link
    leads to the acts list of that holder or driver, where all of them are."""
    monkeypatch.setattr(details, "sanctions", functools.partial(sanctions, limit=2))
    ident = acts["a"] if page == "holder" else acts["a_driver"]
    path = (f"/cadastro/permissionarios/{ident}" if page == "holder"
            else f"/cadastro/condutores/{ident}")
    client.login(acts["sup"])
    status, html = _get(client, path)
    assert status == 200 and "Mostrando os 2 atos mais recentes." in html
    href = re.search(r'Os demais estão em <a href="([^"]+)">Atos</a>', html).group(1)
    assert href == f"/revisao/atos?{arg}={ident}"
    status, html = _get(client, href)
    assert status == 200 and _links(html) == set(acts["ids"])


@pytest.mark.parametrize("status", [None, "proposed"])
@pytest.mark.parametrize("arg,column", [("holder_id", "holder_id"), ("driver_id", "driver_id")])
def test_the_filtered_list_walks_the_index(app, acts, arg, column, status):
    """SQLite's plan for the filtered list reads the sanctions' holder_id / driver_id index,
    not the whole table (PostgreSQL's planner depends on its statistics: not asserted)."""
    with app.app_context():
        if db.engine.dialect.name != "sqlite":
            pytest.skip("EXPLAIN QUERY PLAN is SQLite's")
        seen = []

        def grab(conn, cursor, statement, params, *_):
            if re.search(r"\bFROM sanctions\b", statement) and not seen:
                seen.append((statement, params))

        event.listen(db.engine, "before_cursor_execute", grab)
        try:
            town = db.session.scalar(text("SELECT id FROM municipalities WHERE slug = :s"),
                                     {"s": TOWN})
            ident = acts["a"] if arg == "holder_id" else acts["a_driver"]
            rows, _ = enforcement.acts_list(town, status=status, **{arg: ident})
        finally:
            event.remove(db.engine, "before_cursor_execute", grab)
        assert len(rows) == (3 if status is None else 1)
        statement, params = seen[0]
        plan = " | ".join(r[-1] for r in db.session.connection().exec_driver_sql(
            "EXPLAIN QUERY PLAN " + statement, params).all())
        assert f"USING INDEX ix_sanctions_{column} ({column}=?)" in plan, plan
        assert "TEMP B-TREE" not in plan, plan   # newest first straight from the index
