"""The review queue's read side (`enforcement.review_queue`, `enforcement.agents`): pages of a
town's inspections newest first, every filter combined, the page after the last one, a day
being the local day the queue shows an inspection finished, and the agents offered by the
filter. The page around it is tested in tests/enforcement/test_review_pages.py."""
from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import update

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Inspection, InspectionStatus
from tests import factories
from tests.support.enforcement import fleet, inspect, local


def _queue(town_id, **kw):
    page = enforcement.review_queue(town_id, per_page=2, **kw)
    return [r.inspection.id for r in page.rows], page.has_next


def _rows_html(app, query: str) -> str:
    """The queue's rows as a Tapurah supervisor sees them (the htmx fragment)."""
    sup = factories.user("supervisor", "tapurah")
    db.session.commit()
    c = app.test_client()
    assert c.login(sup.username).status_code == 302
    return c.get(f"/revisao?situacao=todas&{query}",
                 headers={"HX-Request": "true"}).get_data(as_text=True)


def test_pages_newest_first_with_every_filter_and_nothing_from_another_town(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        town_id = f["vehicle"].municipality_id
        ana, bia = factories.user("agent", "tapurah"), factories.user("agent", "tapurah")
        factories.user("agent", "tapurah")                 # sent nothing
        factories.user("supervisor", "tapurah")
        ok = {"mirrors": "ok"}
        # finished on three days; two at the same minute (the id breaks the tie)
        a1 = inspect(f["vehicle"], ana, ok, local(2026, 3, 2, 9))
        b1 = inspect(f["vehicle"], bia, ok, local(2026, 3, 2, 15))
        a2 = inspect(f["vehicle"], ana, ok, local(2026, 3, 5, 10))
        a3 = inspect(f["vehicle"], ana, ok, local(2026, 3, 5, 10))
        b2 = inspect(f["vehicle"], bia, ok, local(2026, 3, 9, 8))
        other = fleet("sapezal", "taxi")
        inspect(other["vehicle"], factories.user("agent", "sapezal"), {}, local(2026, 3, 9, 9))
        db.session.execute(update(Inspection).where(Inspection.id.in_([a1.id, b2.id]))
                           .values(status=InspectionStatus.REVIEWED))
        db.session.commit()

        waiting = "awaiting_review"
        assert _queue(town_id, status=waiting) == ([a3.id, a2.id], True)
        assert _queue(town_id, status=waiting, page=2) == ([b1.id], False)
        assert _queue(town_id, status=waiting, page=3) == ([], False)
        assert _queue(town_id) == ([b2.id, a3.id], True)           # every status
        assert _queue(town_id, page=3) == ([a1.id], False)
        assert _queue(town_id, agent_id=ana.id) == ([a3.id, a2.id], True)
        assert _queue(town_id, agent_id=ana.id, page=2) == ([a1.id], False)
        assert _queue(town_id, agent_id=ana.id, status="reviewed") == ([a1.id], False)
        assert _queue(town_id, day_from=date(2026, 3, 5)) == ([b2.id, a3.id], True)
        assert _queue(town_id, day_from=date(2026, 3, 2), day_to=date(2026, 3, 2)) == \
            ([b1.id, a1.id], False)
        assert _queue(town_id, agent_id=bia.id, day_to=date(2026, 3, 8)) == ([b1.id], False)
        assert _queue(town_id, day_from=date(2026, 3, 10)) == ([], False)

        page = enforcement.review_queue(town_id, agent_id=bia.id, per_page=5)
        assert [(r.agent_name, r.plate) for r in page.rows] == [
            (bia.name, f["vehicle"].plate)] * 2


def test_a_day_is_the_local_day_the_queue_shows_the_inspection_finished(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        late = inspect(f["vehicle"], agent, {}, local(2026, 3, 10, 0, 5))  # shown 10/03 00:05
        db.session.execute(update(Inspection).where(Inspection.id == late.id).values(
            started_at=local(2026, 3, 9, 23, 55), rules_day=date(2026, 3, 9)))
        evening = inspect(f["vehicle"], agent, {}, local(2026, 3, 9, 23, 59))
        db.session.commit()
        town_id = f["vehicle"].municipality_id
        on = lambda d: _queue(town_id, day_from=d, day_to=d)[0]  # noqa: E731
        assert on(date(2026, 3, 10)) == [late.id]
        assert on(date(2026, 3, 9)) == [evening.id]
        assert _queue(town_id, day_to=date(2026, 3, 9))[0] == [evening.id]
        assert _queue(town_id, day_from=date(2026, 3, 10))[0] == [late.id]
        page = _rows_html(app, "de=2026-03-10&ate=2026-03-10")
        assert "10/03/2026 00:05" in page and "09/03/2026" not in page


def test_the_agents_filter_lists_only_the_towns_users_who_sent_inspections(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        sent = factories.user("agent", "tapurah", name="Beatriz")
        also = factories.user("agent", "tapurah", name="Amanda")
        factories.user("agent", "tapurah", name="Carla")                # sent nothing
        factories.user("supervisor", "tapurah", name="Aline")
        inspect(f["vehicle"], sent, {}, local(2026, 3, 2))
        inspect(f["vehicle"], also, {}, local(2026, 3, 2) + timedelta(hours=1))
        other = fleet("sapezal", "taxi")
        inspect(other["vehicle"], factories.user("agent", "sapezal", name="Ana"), {},
                local(2026, 3, 2))
        db.session.commit()
        assert [u.name for u in enforcement.agents(f["vehicle"].municipality_id)] == \
            ["Amanda", "Beatriz"]
