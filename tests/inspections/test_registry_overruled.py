"""An item the registry already knew failing: the field app pre-marks it
"não conforme" with the card's reason, and sends `items[].registry` = {reason, overruled}
(docs/sync.md §2). The agent may answer otherwise only with a note saying why: without one,
or with a flag that contradicts the answer, the body is a 422 naming the field and nothing is
stored; a good one is kept in the stored body, where the review reads it
(`input.registry_answers`)."""
from __future__ import annotations

import uuid

from sqlalchemy import func, select

from inspector.extensions import db
from inspector.inspections.input import registry_answers
from inspector.models import Inspection
from tests.support.field_api import Api, body

REASON = "Seguro obrigatório vencido em 01/11/2026 (Lei 406/2001, Art. 16)"


def _put(app, town, item: dict):
    c = app.test_client()
    assert c.login(town["agent"]).status_code == 302
    b = body(town["vehicle_id"], ok=("insurance",))
    b["items"][0] |= item
    iid = str(uuid.uuid4())
    return iid, Api(c).put_inspection(iid, b)


def _count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Inspection))


def test_overruling_the_registry_without_a_note_is_refused(app, town):
    _, r = _put(app, town, {"result": "ok", "note": "  ",
                            "registry": {"reason": REASON, "overruled": True}})
    assert r.status_code == 422
    assert r.get_json()["fields"]["items[0].note"] == "explique por que discorda do cadastro"
    _, r = _put(app, town, {"result": "ok", "note": "Apólice nova mostrada",
                            "registry": {"reason": REASON, "overruled": False}})
    assert r.status_code == 422
    assert "items[0].registry.overruled" in r.get_json()["fields"]
    _, r = _put(app, town, {"registry": {"reason": "", "overruled": True}})
    assert r.status_code == 422 and "items[0].registry.reason" in r.get_json()["fields"]
    _, r = _put(app, town, {"registry": {"reason": REASON, "overruled": "sim"}})
    assert r.status_code == 422 and "items[0].registry.overruled" in r.get_json()["fields"]
    assert _count(app) == 0


def test_the_disagreement_and_its_note_are_stored_for_the_review(app, town):
    iid, r = _put(app, town, {"result": "ok", "note": "Apólice renovada ontem, mostrada no celular",
                              "registry": {"reason": REASON, "overruled": True}})
    assert r.status_code == 201, r.get_json()
    agreed, r = _put(app, town, {"result": "fail", "note": "",
                                 "registry": {"reason": REASON, "overruled": False}})
    assert r.status_code == 201, r.get_json()
    with app.app_context():
        by_uuid = {i.uuid: i for i in db.session.scalars(select(Inspection))}
        assert registry_answers(by_uuid[iid]) == {
            "insurance": {"reason": REASON, "overruled": True}}
        assert registry_answers(by_uuid[agreed])["insurance"]["overruled"] is False
        item = by_uuid[iid].items[0]
        assert item.note == "Apólice renovada ontem, mostrada no celular"
