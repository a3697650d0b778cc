"""The holder's and the driver's registry pages list the acts that concern them (Nova Santa
Helena Lei 535/2013, Art. 26, § único: warnings "serão lançadas no cadastro do infrator e dos
permissionários"): kind, date, status, the articles cited and a link to the act.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import event

from inspector import enforcement
from inspector.enforcement import payments
from inspector.extensions import db
from inspector.models import Sanction
from tests import factories
from tests.support.enforcement import fleet, inspect, local, set_values

TOWN = "nova-santa-helena"


def _section(html: str) -> str:
    """The "Sanções" card of a page."""
    m = re.search(r'<section class="card" aria-labelledby="s-sanctions">(.*?)</section>', html,
                  re.S)
    assert m, "no Sanções section"
    return m.group(1)


def _rows(section: str) -> list[str]:
    return [" ".join(re.sub(r"<[^>]+>", " ", r).split())
            for r in re.findall(r"<tr>(.*?)</tr>", section, re.S)[1:]]


# (kind the ladder proposes, what the town decides): a rejected proposal does not climb
PLAN = [("oral_warning", "confirm"), ("written_warning", "reject"),
        ("written_warning", "confirm"), ("fine", "mayor_and_pay"), ("suspension_or_revocation", None)]


@pytest.fixture
def acts(app):
    """A Nova Santa Helena taxi stopped five times for its roof light: oral warning
    (confirmed), written warning (rejected), written warning (confirmed), a fine of R$ 150
    (the mayor's, paid), a suspension or revocation (still proposed, the mayor's); and
    another holder's taxi with an act of its own."""
    with app.app_context():
        set_values(TOWN, decree={"fine.amount": (150, "BRL")})
        f = fleet(TOWN, "taxi")
        other = fleet(TOWN, "taxi")
        sup, admin, agent = (factories.user(r, TOWN) for r in ("supervisor", "admin", "agent"))
        db.session.commit()
        ids = []
        for n, (kind, how) in enumerate(PLAN):
            when = local(2026, 3, 2 + 5 * n)
            insp = inspect(f["vehicle"], agent, {"roof-light": "fail"}, when)
            (a,) = enforcement.acts_of(insp)
            assert a.kind == kind
            ids.append(a.id)
            later = when + timedelta(hours=1)
            if how == "confirm":
                enforcement.confirm(a, sup, later)
            elif how == "reject":
                enforcement.reject(a, sup, later, reason="Luminoso consertado na hora.")
            elif how == "mayor_and_pay":
                enforcement.confirm(a, sup, later)
                enforcement.record_mayor_decision(a, admin, later, decision="confirm",
                                                  ref="Portaria 1/2026")
                db.session.commit()
                db.session.expire(a)
                payments.record_payment(a, admin, later + timedelta(days=1),
                                           paid_on=(later + timedelta(days=1)).date(),
                                           amount=Decimal("150.00"), receipt="DAM-2026/77")
            db.session.commit()
        insp = inspect(other["vehicle"], agent, {"roof-light": "fail"}, local(2026, 3, 5))
        (theirs,) = enforcement.acts_of(insp)
        db.session.commit()
        return {"holder": f["holder"].id, "driver": f["driver"].id, "ids": ids,
                "other_act": theirs.id, "other_holder": other["holder"].id,
                "sup": sup.username, "admin": admin.username}


def _get(client, username: str, path: str) -> str:
    assert client.login(username).status_code == 302
    r = client.get(path)
    assert r.status_code == 200, r.status_code
    return r.get_data(as_text=True)


@pytest.mark.parametrize("page", ["holder", "driver"])
def test_the_record_lists_its_acts_with_status_article_and_link(client, acts, page):
    path = (f"/cadastro/permissionarios/{acts['holder']}" if page == "holder"
            else f"/cadastro/condutores/{acts['driver']}")
    section = _section(_get(client, acts["sup"], path))
    rows = _rows(section)
    assert len(rows) == 5, rows
    suspension, fine, written, rejected, oral = rows  # newest first
    assert suspension.startswith("Suspensão ou cassação")
    assert "Proposto" in suspension and "22/03/2026" in suspension
    assert "Sanção: Lei 535/2013, Art. 28" in suspension
    assert fine.startswith("Multa") and "Confirmado" in fine and "Multa paga" in fine
    assert written.startswith("Advertência escrita") and "Confirmado" in written
    assert rejected.startswith("Advertência escrita") and "Rejeitado" in rejected
    assert oral.startswith("Advertência oral") and "Confirmado" in oral
    assert "02/03/2026" in oral and "07/03/2026" in rejected
    # the article broken (roof light box, Art. 13 V) and the one giving the measure (Art. 25)
    for row in rows:
        assert "Infração: Lei 535/2013, Art. 13, V" in row, row
    for row in rows[1:]:
        assert "Sanção: Lei 535/2013, Art. 2" in row, row
    for act_id in acts["ids"]:
        assert f'href="/revisao/atos/{act_id}"' in section
    assert f'href="/revisao/atos/{acts["other_act"]}"' not in section
    assert 'data-label="Situação"' in section and 'class="stack sanctions"' in section


def test_each_link_opens_the_act(client, acts):
    _get(client, acts["sup"], f"/cadastro/permissionarios/{acts['holder']}")
    r = client.get(f"/revisao/atos/{acts['ids'][0]}")
    assert r.status_code == 200
    assert "Advertência oral" in r.get_data(as_text=True)


def test_a_record_without_acts_says_so(client, acts, make):
    h = make(factories.holder, TOWN)
    section = _section(_get(client, acts["admin"], f"/cadastro/permissionarios/{h.id}"))
    assert "Nenhuma sanção registrada." in section and "<table" not in section


def test_the_other_holders_page_shows_only_its_own_act(client, acts):
    rows = _rows(_section(_get(client, acts["sup"],
                                f"/cadastro/permissionarios/{acts['other_holder']}")))
    assert len(rows) == 1 and rows[0].startswith("Advertência oral") and "Proposto" in rows[0]


@pytest.mark.parametrize("page", ["holder", "driver"])
def test_the_acts_cost_one_query(app, client, acts, page):
    path = (f"/cadastro/permissionarios/{acts['holder']}" if page == "holder"
            else f"/cadastro/condutores/{acts['driver']}")
    assert client.login(acts["sup"]).status_code == 302
    seen: list[str] = []

    def count(conn, cursor, statement, *args):
        if re.search(r"\bFROM sanctions\b", statement):
            seen.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        assert client.get(path).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(seen) == 1, seen


def test_a_role_that_may_not_open_acts_gets_no_link(app, acts):
    """The link follows the act page's own access list: were it closed to supervisors, the
    supervisor would still see the list, without links."""
    view = app.view_functions["review.act"]
    saved = view.access
    view.access = ("admin",)
    try:
        client = app.test_client()
        section = _section(_get(client, acts["sup"], f"/cadastro/permissionarios/{acts['holder']}"))
    finally:
        view.access = saved
    assert "/revisao/atos/" not in section and len(_rows(section)) == 5


def test_another_towns_acts_never_show(app, client, acts):
    """Sapezal's act about a holder id that happens to be ours stays out of our page."""
    with app.app_context():
        act = db.session.get(Sanction, acts["ids"][0])
        sap = factories.town("sapezal")
        act.municipality_id = sap.id
        db.session.commit()
    rows = _rows(_section(_get(client, acts["sup"], f"/cadastro/permissionarios/{acts['holder']}")))
    assert len(rows) == 4 and not any(r.startswith("Advertência oral") for r in rows)
