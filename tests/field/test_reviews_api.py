"""GET /api/field/reviews: the supervisor's answers on the agent's own inspections, fetched
by the phone on every sync (full, then only what changed). Who sees what, since-filtering,
and the same review as GET /api/field/inspections/<uuid>. Runs on SQLite and PostgreSQL."""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import event, select

from inspector import enforcement
from inspector.extensions import db
from inspector.field import reviews
from inspector.models import Inspection
from tests import factories
from tests.support.field_api import Api, jpeg

# _send syncs an inspection as the agent and runs the enforcement worker (the proposals)
from tests.support.review import send_inspection
from tests.support.web import login

REASON = "A foto mostra o colete com o nome da empresa."


def _reviews(app, username: str, since: int | None = None):
    c = login(app, username)
    return c.get("/api/field/reviews" + (f"?since={since}" if since is not None else ""))


def _by_id(answer) -> dict:
    return {x["id"]: x for x in answer["inspections"]}


def _two(app, town):
    """Two inspections of the agent (two acts each) and one of the other agent."""
    first = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(1)],
                                                           "uniform": [jpeg(2)]})
    second = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(3)]})
    other = send_inspection(app, town["other_agent"], town["vehicle_id"], {"mirrors": [jpeg(4)]})
    return first, second, other


def test_an_agent_gets_only_their_own_inspections_with_the_review(app, town):
    first, second, other = _two(app, town)
    r = _reviews(app, town["agent"])
    assert r.status_code == 200 and r.json["full"] is True
    mine = _by_id(r.json)
    assert set(mine) == {first, second}                       # not the colleague's
    entry = mine[first]
    assert entry["plate"] and entry["failed_items"] == 2
    assert entry["review"]["status"] == "awaiting_review"
    assert {a["item_id"] for a in entry["review"]["acts"]} == {"mirrors", "uniform"}
    assert {a["status"] for a in entry["review"]["acts"]} == {"proposed"}
    assert set(_by_id(_reviews(app, town["other_agent"]).json)) == {other}


def test_roles_and_towns(app, town, make):
    _two(app, town)
    sup = _reviews(app, town["supervisor"])                   # reads the app, made no inspection
    assert sup.status_code == 200 and sup.json["inspections"] == []
    assert _reviews(app, town["admin"]).status_code == 403
    assert _reviews(app, town["sapezal"]).json["inspections"] == []
    next_door = make(factories.user, "agent", "sapezal").username
    assert _reviews(app, next_door).json["inspections"] == []
    anonymous = app.test_client().get("/api/field/reviews")
    assert anonymous.status_code == 401 and anonymous.json["error"]
    for since in ("-1", "abc"):
        bad = login(app, town["agent"]).get(f"/api/field/reviews?since={since}")
        assert bad.status_code == 422 and "since" in bad.json["fields"]


def test_another_agents_inspection_shows_no_review_on_the_get(app, town):
    first, _, other = _two(app, town)
    colleague = Api(login(app, town["other_agent"]))
    assert colleague.get(f"/api/field/inspections/{first}").json["review"] is None
    assert colleague.get(f"/api/field/inspections/{other}").json["review"]["acts"]
    boss = Api(login(app, town["supervisor"]))
    assert boss.get(f"/api/field/inspections/{first}").json["review"]["acts"]


def _decide(app, town, iid: str, *, reject_item=None, confirm_item=None, comment=None):
    from inspector.models import User

    now = datetime.now(UTC)
    with app.app_context():
        sup = db.session.scalar(select(User).filter_by(username=town["supervisor"]))
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        for act in enforcement.acts_of(insp):
            item = act.inspection_item.item_id
            if item == reject_item:
                enforcement.reject(act, sup, now, reason=REASON)
            elif item == confirm_item:
                enforcement.confirm(act, sup, now, comment="Bem documentado.")
        if comment:
            enforcement.comment_inspection(insp, sup, now, comment)
        db.session.commit()


def test_since_answers_only_the_inspections_whose_answers_changed(app, town):
    first, second, other = _two(app, town)
    full = _reviews(app, town["agent"]).json
    assert _reviews(app, town["agent"], full["version"]).json["inspections"] == []

    _decide(app, town, first, reject_item="uniform")
    _decide(app, town, other, confirm_item="mirrors")         # the colleague's: not ours
    delta = _reviews(app, town["agent"], full["version"]).json
    assert delta["full"] is False and delta["version"] > full["version"]
    [entry] = delta["inspections"]
    assert entry["id"] == first
    rejected = next(a for a in entry["review"]["acts"] if a["item_id"] == "uniform")
    assert (rejected["status"], rejected["status_label"], rejected["reason"]) == \
        ("rejected", "Rejeitado", REASON)
    assert [x["id"] for x in _reviews(app, town["other_agent"], full["version"])
            .json["inspections"]] == [other]

    _decide(app, town, second, comment="Confira o prefixo na próxima.")
    later = _reviews(app, town["agent"], delta["version"]).json
    [entry] = later["inspections"]
    assert entry["id"] == second
    assert [c["text"] for c in entry["review"]["comments"]] == ["Confira o prefixo na próxima."]
    assert entry["review"]["comments"][0]["by"] == town["supervisor"]
    assert _reviews(app, town["agent"], later["version"]).json["inspections"] == []


def test_a_newly_synced_inspection_is_in_the_next_delta(app, town):
    full = _reviews(app, town["agent"]).json
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(5)]})
    delta = _reviews(app, town["agent"], full["version"]).json
    assert [x["id"] for x in delta["inspections"]] == [iid]
    assert delta["inspections"][0]["review"]["status"] == "awaiting_review"


def test_a_version_ahead_of_the_server_or_a_long_absence_answers_in_full(app, town, monkeypatch):
    first, second, _ = _two(app, town)
    full = _reviews(app, town["agent"]).json
    ahead = _reviews(app, town["agent"], full["version"] + 1000).json
    assert ahead["full"] is True and set(_by_id(ahead)) == {first, second}
    monkeypatch.setattr(reviews, "FULL_LIMIT", 1)
    capped = _reviews(app, town["agent"], 0).json            # both changed: more than the limit
    assert capped["full"] is True and [x["id"] for x in capped["inspections"]] == [second]


def test_the_batched_review_is_the_one_the_inspection_endpoint_gives(app, town):
    first, second, _ = _two(app, town)
    _decide(app, town, first, reject_item="uniform", confirm_item="mirrors",
            comment="Bom trabalho.")
    agent = Api(login(app, town["agent"]))
    listed = _by_id(agent.get("/api/field/reviews").json)
    for iid in (first, second):
        assert listed[iid]["review"] == agent.get(f"/api/field/inspections/{iid}").json["review"]
    assert listed[first]["review"]["acts"][0]["notice_number"]


def test_queries_do_not_grow_with_the_number_of_inspections(app, town):
    def queries() -> int:
        c = login(app, town["agent"])
        seen = []
        with app.app_context():
            listener = lambda *a: seen.append(1)  # noqa: E731
            event.listen(db.engine, "before_cursor_execute", listener)
            try:
                assert c.get("/api/field/reviews").status_code == 200
            finally:
                event.remove(db.engine, "before_cursor_execute", listener)
        return len(seen)

    send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(6)], "uniform": [jpeg(7)]})
    few = queries()
    for i in range(4):
        send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(8 + i)],
                                                       "uniform": [jpeg(20 + i)]})
    assert queries() == few
