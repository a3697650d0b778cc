"""The field sync stores the evidence first; the request that completes an inspection then
makes its proposals, in a transaction of its own, each inspection once. What that leaves (a
concurrent writer holding the database) the enforcement tick makes; review pages only read."""
from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Inspection, Notification, Sanction, User
from tests.support.field_api import Api, body, jpeg


def _sync(app, username: str, vehicle_id: int, before_last=None) -> str:
    """The phone sends an inspection with one failed item, then its photo (the last awaited);
    `before_last(iid)` runs between the two."""
    c = app.test_client()
    assert c.login(username).status_code == 302
    api = Api(c)
    iid = str(uuid.uuid4())
    b = body(vehicle_id, fail={"mirrors": [jpeg(11)]}, ok=("general-condition",))
    assert api.put_inspection(iid, b).status_code == 201
    if before_last is not None:
        before_last(iid)
    ph = next(i for i in b["items"] if i["item_id"] == "mirrors")["photos"][0]
    r = api.put_photo(iid, ph["id"], jpeg(11))
    assert r.status_code == 201 and r.json["complete"] is True
    return iid


FAILURES = {
    # the proposals' transaction finds the database held by another writer (SQLite's lock)
    "locked": OperationalError("UPDATE inspections", {}, Exception("database is locked")),
    # anything else going wrong in the claim or its read: the evidence is stored all the same
    "unexpected": RuntimeError("claim failed"),
}


def _failing(monkeypatch, failure: Exception):
    def fail(*_a, **_kw):
        raise failure
    monkeypatch.setattr(enforcement, "propose_pending", fail)


def _state(app, iid: str) -> tuple[bool, int, int]:
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        acts = db.session.scalar(select(func.count(Sanction.id))
                                 .where(Sanction.inspection_id == insp.id))
        to_review = db.session.scalar(select(func.count(Notification.id))
                                      .where(Notification.kind == "inspection_to_review"))
        return insp.proposed_at is not None, acts, to_review


def test_the_sync_that_completes_an_inspection_makes_its_proposals_once(app, town):
    seen = []
    iid = _sync(app, town["agent"], town["vehicle_id"],
                before_last=lambda iid: seen.append(_state(app, iid)))
    assert seen == [(False, 0, 0)]   # a photo still awaited: nothing to propose yet
    proposed, acts, to_review = _state(app, iid)
    assert proposed and acts >= 1 and to_review >= 1   # the supervisors are told once

    sup = app.test_client()
    sup.login(town["supervisor"])
    assert sup.get("/revisao").status_code == 200
    with app.app_context():
        assert enforcement.tick(datetime.now(UTC)).proposed == []
    assert _state(app, iid) == (True, acts, to_review)  # once, whatever runs after


@pytest.mark.parametrize("failure", list(FAILURES))
def test_evidence_kept_when_the_proposals_cannot_be_made_and_the_tick_makes_them_once(
        app, town, monkeypatch, failure):
    _failing(monkeypatch, FAILURES[failure])
    iid = _sync(app, town["agent"], town["vehicle_id"])   # answered 201, complete
    assert _state(app, iid) == (False, 0, 0)
    monkeypatch.undo()

    sup = app.test_client()  # a review page proposes nothing: it only reads
    sup.login(town["supervisor"])
    assert sup.get("/revisao").status_code == 200
    assert _state(app, iid) == (False, 0, 0)

    with app.app_context():
        first = enforcement.tick(datetime.now(UTC))
        insp_id = db.session.scalar(select(Inspection.id).filter_by(uuid=iid))
        assert first.proposed == [insp_id]
        again = enforcement.tick(datetime.now(UTC))
        assert again.proposed == []
    proposed, acts, _ = _state(app, iid)
    assert proposed and acts >= 1


def test_the_reused_queue_follows_every_recorded_change(app, town):
    """The queue is rendered once per town version: a new sync, a decision, a proposal all
    show on the very next view (page and htmx fragment alike)."""
    sup = app.test_client()
    sup.login(town["supervisor"])
    hx = {"HX-Request": "true"}
    assert "Nenhuma vistoria" in sup.get("/revisao").get_data(as_text=True)
    assert "Nenhuma vistoria" in sup.get("/revisao", headers=hx).get_data(as_text=True)

    iid = _sync(app, town["agent"], town["vehicle_id"])
    with app.app_context():
        ident = db.session.scalar(select(Inspection.id).filter_by(uuid=iid))
    link = f"/revisao/vistorias/{ident}"
    page = sup.get("/revisao").get_data(as_text=True)
    assert link in page and "Nenhuma vistoria" not in page
    assert link in sup.get("/revisao", headers=hx).get_data(as_text=True)

    with app.app_context():  # every act decided: the inspection leaves "awaiting review"
        insp = db.session.get(Inspection, ident)
        boss = db.session.scalar(select(User).filter_by(username=town["supervisor"]))
        for act in enforcement.acts_of(insp):
            enforcement.reject(act, boss, datetime.now(UTC), reason="Foto não mostra o defeito.")
        db.session.commit()
    assert link not in sup.get("/revisao").get_data(as_text=True)
    assert link in sup.get("/revisao?situacao=reviewed").get_data(as_text=True)
