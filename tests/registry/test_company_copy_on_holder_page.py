"""The company's copy of a Tapurah notice (Lei 406/2001 Art. 27 I: "remessa de cópia da
notificação à empresa") on the holder's registry page: each act whose notice has a copy says
"cópia à empresa: pendente" until its remittance is recorded, then "remetida em dd/mm/aaaa
(meio)"; read in the page's one query of acts, whatever the number of rows. A town whose law
asks for no copy shows nothing of it. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import event, select

from inspector import enforcement
from inspector.clock import default_day
from inspector.documents.copies import record_remittance
from inspector.extensions import db
from inspector.models import Notice, Sanction, User
from inspector.models.enforcement import NoticeCompanyCopy
from tests import factories
from tests.support.enforcement import fleet, inspect, set_values


def _section(html: str) -> str:
    m = re.search(r'<section class="card" aria-labelledby="s-sanctions">(.*?)</section>', html,
                  re.S)
    assert m, "no Sanções section"
    return m.group(1)


def _rows(section: str) -> dict[int, str]:
    """Each row's text by the act it links to."""
    out = {}
    for row in re.findall(r"<tr>(.*?)</tr>", section, re.S)[1:]:
        act = int(re.search(r'href="/revisao/atos/(\d+)"', row).group(1))
        out[act] = " ".join(re.sub(r"<[^>]+>", " ", row).split())
    return out


def _stop(town: str, item: str, days_ago: int, f: dict, agent, sup) -> int:
    """One failed item, the supervisor confirms what is proposed; the act's id."""
    now = datetime.now(UTC) - timedelta(days=days_ago, minutes=5)
    insp = inspect(f["vehicle"], agent, {item: "fail"}, now - timedelta(hours=1))
    act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id)
                            .order_by(Sanction.id))
    enforcement.confirm(act, db.session.get(User, sup.id), now)
    db.session.commit()
    return act.id


@pytest.fixture
def copies(app):
    """A Tapurah company's moto-taxi stopped twice (two notices, each with a company copy),
    and a Nova Santa Helena taxi's confirmed act (its law asks for no copy)."""
    with app.app_context():
        set_values("tapurah", minimum_wage=1518, fiscal_unit=5, since=date(2020, 1, 1))
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        nsh = fleet("nova-santa-helena", "taxi")
        nsh_agent = factories.user("agent", "nova-santa-helena")
        nsh_sup = factories.user("supervisor", "nova-santa-helena")
        db.session.commit()
        acts = [_stop("tapurah", "mirrors", 3, f, agent, sup),
                _stop("tapurah", "mirrors", 1, f, agent, sup)]
        copy_ids = dict(db.session.execute(
            select(Sanction.id, NoticeCompanyCopy.id)
            .join(Notice, Notice.sanction_id == Sanction.id)
            .join(NoticeCompanyCopy, NoticeCompanyCopy.notice_id == Notice.id)
            .where(Sanction.id.in_(acts))).all())
        nsh_act = _stop("nova-santa-helena", "roof-light", 1, nsh, nsh_agent, nsh_sup)
        return {"holder": f["holder"].id, "driver": f["driver"].id, "acts": acts,
                "copies": copy_ids, "sup": sup.username, "sup_id": sup.id,
                "nsh_holder": nsh["holder"].id, "nsh_act": nsh_act,
                "nsh_sup": nsh_sup.username}


def _page(client, username, path) -> dict[int, str]:
    if username is not None:
        assert client.login(username).status_code == 302
    r = client.get(path)
    assert r.status_code == 200
    return _rows(_section(r.get_data(as_text=True)))


def test_holder_page_shows_each_copy_pending_then_remitted(app, client, copies):
    assert set(copies["copies"]) == set(copies["acts"]), "both notices should have a copy"
    first, second = copies["acts"]
    rows = _page(client, copies["sup"], f"/cadastro/permissionarios/{copies['holder']}")
    assert "cópia à empresa: pendente" in rows[first]
    assert "cópia à empresa: pendente" in rows[second]
    # the supervisor records that the first copy went by mail, two days ago
    day = default_day(datetime.now(UTC)) - timedelta(days=1)
    with app.app_context():
        row = db.session.get(NoticeCompanyCopy, copies["copies"][first])
        record_remittance(row, db.session.get(User, copies["sup_id"]),
                                        datetime.now(UTC), day=day.isoformat(), via="mail")
        db.session.commit()
    rows = _page(client, None, f"/cadastro/permissionarios/{copies['holder']}")
    assert f"cópia à empresa: remetida em {day.strftime('%d/%m/%Y')} (correio)" in rows[first]
    assert "pendente" not in rows[first]
    assert "cópia à empresa: pendente" in rows[second]


def test_the_riders_page_says_it_too(client, copies):
    rows = _page(client, copies["sup"], f"/cadastro/condutores/{copies['driver']}")
    assert all("cópia à empresa: pendente" in rows[a] for a in copies["acts"])


def test_no_copy_no_words(client, copies):
    """Nova Santa Helena's law asks for no copy: its act's row says nothing of one."""
    rows = _page(client, copies["nsh_sup"], f"/cadastro/permissionarios/{copies['nsh_holder']}")
    assert copies["nsh_act"] in rows and "cópia à empresa" not in rows[copies["nsh_act"]]


@pytest.mark.parametrize("page,column", [("permissionarios/{holder}", "holder_id"),
                                         ("condutores/{driver}", "driver_id")])
def test_the_copies_are_read_in_the_acts_one_query(app, client, copies, page, column):
    """One statement reads the acts and their copies, whatever the number of rows; on SQLite
    it walks the sanctions' holder_id / driver_id index (not the whole town's acts) and finds
    each copy by its notice_id."""
    assert client.login(copies["sup"]).status_code == 302
    seen: list = []

    def count(conn, cursor, statement, params, *args):
        if re.search(r"\b(FROM|JOIN) (sanctions|notice_company_copies)\b", statement):
            seen.append((statement, params))

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        r = client.get("/cadastro/" + page.format(**copies))
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert r.status_code == 200 and r.get_data(as_text=True).count("cópia à empresa") == 2
    assert len(seen) == 1 and "notice_company_copies" in seen[0][0], seen
    with app.app_context():
        if db.engine.dialect.name != "sqlite":
            return
        plan = " | ".join(row[-1] for row in db.session.connection().exec_driver_sql(
            "EXPLAIN QUERY PLAN " + seen[0][0], seen[0][1]).all())
    assert f"SEARCH sanctions USING INDEX ix_sanctions_{column} ({column}=?)" in plan, plan
    assert re.search(r"SEARCH notice_company_copies USING INDEX \w+ \(notice_id=\?\)", plan), plan
