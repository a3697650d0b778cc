"""The acts list (/revisao/atos): an act with a document is opened by its number
(NOT-2026/000001); a proposed act has no number yet, so its link says "Abrir" and its id is
shown apart as the proposal's internal reference ("proposta nº 5"), never alone in the number
column where it would read like an issued act's number, nor as a 11 px wide tap target."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from inspector import enforcement
from inspector.extensions import db
from tests import factories
from tests.support.enforcement import fleet, inspect, local, set_values

TOWN = "tapurah"


@pytest.fixture
def acts(app):
    """Two fines of one moto-taxi (Tapurah Art. 14 § ú): the first confirmed (a notice), the
    second proposed."""
    with app.app_context():
        f = fleet(TOWN, "mototaxi")
        set_values(TOWN, fiscal_unit=5.25)
        sup, agent = factories.user("supervisor", TOWN), factories.user("agent", TOWN)
        db.session.commit()
        made, number = [], None
        for n in range(2):
            when = local(2026, 3, 2 + 5 * n)
            *_, act = enforcement.acts_of(inspect(f["vehicle"], agent, {"one-passenger": "fail"},
                                                 when))
            if n == 0:
                number = enforcement.confirm(act, sup, when + timedelta(hours=1)).notice.number
            db.session.commit()
            made.append(act)
        return {"sup": sup.username, "confirmed": made[0].id, "proposed": made[1].id,
                "number": number}


def _number_cell(html: str, ident: int) -> str:
    row = next(r for r in re.findall(r"<tr>(.*?)</tr>", html, re.S)
               if f'href="/revisao/atos/{ident}"' in r)
    return re.search(r'<td data-label="Nº">(.*?)</td>', row, re.S).group(1)


def test_a_proposed_act_opens_by_a_word_and_its_id_reads_as_an_internal_reference(client,
                                                                                 acts):
    client.login(acts["sup"])
    html = client.get("/revisao/atos").get_data(as_text=True)
    ident = acts["proposed"]
    cell = _number_cell(html, ident)
    link = re.search(r'<a class="row-link"[^>]*>(.*?)</a>', cell, re.S)
    assert link.group(1) == "Abrir"                                   # not the bare id
    assert f'aria-label="Abrir a proposta nº {ident}"' in link.group(0)
    assert f"proposta nº {ident}" in re.sub(r"<a .*?</a>", "", cell)  # shown apart
    assert not re.search(rf">\s*{ident}\s*<", cell)                   # never a lone "5"


def test_an_act_with_a_document_opens_by_its_number(client, acts):
    client.login(acts["sup"])
    html = client.get("/revisao/atos").get_data(as_text=True)
    cell = _number_cell(html, acts["confirmed"])
    assert re.fullmatch(rf'<a class="row-link" href="/revisao/atos/{acts["confirmed"]}">'
                        rf'{re.escape(acts["number"])}</a>', cell)


def test_the_act_page_is_named_by_its_document_or_as_a_proposal(app, make):
    """The act's own page: its heading never shows the internal id as "Ato nº N", which read
    like an issued act's number; a proposal is "Proposta nº N"."""
    from inspector.models import Sanction, User

    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, local(2026, 3, 6, 9))
        [act] = enforcement.acts_of(insp)
        db.session.commit()
        act_id, username = act.id, sup.username
    c = app.test_client()
    assert c.login(username).status_code == 302
    html = c.get(f"/revisao/atos/{act_id}").get_data(as_text=True)
    assert f"<h1>Proposta nº {act_id} ·" in html and f"Ato nº {act_id}" not in html
    with app.app_context():
        supervisor = db.session.scalar(db.select(User).filter_by(username=username))
        enforcement.confirm(db.session.get(Sanction, act_id), supervisor, local(2026, 3, 6, 10))
        db.session.commit()
        number = db.session.get(Sanction, act_id).notice.number
    html = c.get(f"/revisao/atos/{act_id}").get_data(as_text=True)
    assert f"<h1>{number} ·" in html and f"<title>{number}" in html
