"""The phone's "Marcar os demais como conformes" reaches the server as items[].bulk: kept in
the stored inspection (inspections.bulk_answers), shown on the review beside each such item,
refused on an answer other than "conforme", and optional (an older app's body without it is
stored as before). The OpenAPI schema documents it."""
from __future__ import annotations

import uuid

from inspector.extensions import db
from inspector.inspections import bulk_answers
from inspector.models import Inspection
from tests import factories
from tests.support.field_api import body, count


def test_bulk_items_are_kept_and_the_review_says_so(app, api, moto, client, make):
    v = moto()
    b = body(v.id, ok=("general-condition", "mirrors", "helmet-band"))
    for it in b["items"][1:]:
        it["bulk"] = True
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    with app.app_context():
        insp = db.session.scalars(db.select(Inspection)).one()
        assert bulk_answers(insp) == {"mirrors", "helmet-band"}
        insp_id = insp.id
    sup = make(factories.user, "supervisor", "tapurah")
    client.post_form("/sair", token_from="/inicio")
    client.login(sup.username)
    page = client.get(f"/revisao/vistorias/{insp_id}").get_data(as_text=True)
    assert page.count("Marcado em bloco") == 2
    assert "2 marcados de uma vez com “os demais conformes”" in page


def test_bulk_on_a_failed_item_is_refused_and_nothing_stored(app, api, moto):
    v = moto()
    b = body(v.id)
    b["items"].append({"item_id": "sober", "result": "fail", "note": "hálito", "photos": [],
                       "bulk": True})
    r = api.put_inspection(str(uuid.uuid4()), b)
    assert r.status_code == 422 and "items[2].bulk" in r.json["fields"], r.json
    assert "só um item conforme" in r.json["fields"]["items[2].bulk"]
    assert count(app, Inspection) == 0


def test_an_older_app_without_the_flag_is_stored_as_before(app, api, moto):
    v = moto()
    assert api.put_inspection(str(uuid.uuid4()), body(v.id)).status_code == 201
    with app.app_context():
        assert bulk_answers(db.session.scalars(db.select(Inspection)).one()) == set()


def test_openapi_documents_the_flag(client):
    spec = client.get("/api/openapi.json").get_json()
    item = spec["components"]["schemas"]["Item"]["properties"]
    assert item["bulk"]["type"] == "boolean" and item["bulk"]["default"] is False
