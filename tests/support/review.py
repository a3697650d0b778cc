"""An inspection sent through the field API as the agent's phone sends it (the request that
completes it makes its proposals), and the ids the review pages need."""
from __future__ import annotations

import uuid

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Inspection, Photo, Sanction
from tests.support.field_api import Api, body, jpeg

BIG = jpeg(7, size=(2000, 1500))


def send_inspection(app, username: str, vehicle_id: int, fail: dict, started=None) -> str:
    c = app.test_client()
    assert c.login(username).status_code == 302
    api = Api(c)
    iid = str(uuid.uuid4())
    b = body(vehicle_id, fail=fail, ok=("general-condition",), started=started)
    assert api.put_inspection(iid, b).status_code == 201
    for item in b["items"]:
        for ph, data in zip(item["photos"], fail.get(item["item_id"], [])):
            assert api.put_photo(iid, ph["id"], data).status_code == 201
    return iid


def inspection_ids(app, iid: str) -> tuple[int, list[int], list[int]]:
    with app.app_context():
        insp = db.session.scalar(select(Inspection).filter_by(uuid=iid))
        acts = db.session.scalars(select(Sanction.id).where(Sanction.inspection_id == insp.id)
                                  .order_by(Sanction.id)).all()
        photos = db.session.scalars(select(Photo.id).where(Photo.inspection_id == insp.id)
                                    .order_by(Photo.position)).all()
        return insp.id, list(acts), list(photos)
