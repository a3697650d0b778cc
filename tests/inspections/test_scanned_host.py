"""The address of a swapped sticker, as the agent's phone saw it (`scanned_host`, docs/sync.md
§2): a malformed one is refused with a message and nothing stored; a good one is kept in the
body and the supervisor's review of the inspection warns of a possible fraud."""
from __future__ import annotations

import uuid

from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import Inspection
from tests.support.field_api import Api, body
from tests.support.web import login

HOST = "pix-mototaxi-tapurah.example.net"


def _put(app, town, extra: dict):
    c = app.test_client()
    assert c.login(town["agent"]).status_code == 302
    b = body(town["vehicle_id"], ok=("general-condition",)) | extra
    iid = str(uuid.uuid4())
    return iid, Api(c).put_inspection(iid, b)


def test_a_malformed_address_is_refused_and_nothing_is_stored(app, town):
    for bad in ("https://x.example/v/abc", "", 42, "a" * 300, "host name"):
        _, r = _put(app, town, {"scanned_host": bad})
        assert r.status_code == 422, bad
        assert r.get_json()["fields"]["scanned_host"] == "endereço do QR inválido"
        assert "endereço do QR inválido" in r.get_json()["error"]
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Inspection)) == 0


def test_the_review_warns_of_the_foreign_address_the_agent_scanned(app, town):
    iid, r = _put(app, town, {"scanned_host": f"{HOST}:8443"})
    assert r.status_code == 201
    plain, r = _put(app, town, {})
    assert r.status_code == 201
    with app.app_context():
        ids = {i.uuid: i.id for i in db.session.scalars(select(Inspection))}
    c = login(app, town["supervisor"])
    html = c.get(f"/revisao/vistorias/{ids[iid]}").get_data(as_text=True)
    assert f"Possível fraude: o QR lido tinha endereço não oficial ({HOST}:8443)" in html
    html = c.get(f"/revisao/vistorias/{ids[plain]}").get_data(as_text=True)
    assert "Possível fraude" not in html
