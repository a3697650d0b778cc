"""The OpenAPI `Error` schema names every field an error body carries:
it is generated from the model every JSON error answer is built with (errors.ErrorBody), and
real error answers of the field API — signed out, not found, a refused body, a photo refused
for good, a conflict, another agent's inspection, a photo the object store could not take —
validate against the published document (JSON Schema 2020-12, as Schemathesis checks
responses), which lists each status the operation answers. Runs on SQLite and PostgreSQL."""
from __future__ import annotations

import typing
import uuid
from io import BytesIO

import jsonschema_rs
import pytest
from PIL import Image

from inspector.errors import ErrorBody, PhotoProblem
from inspector.inspections import evidence
from tests import factories
from tests.support.field_api import Api, body, jpeg, photo_decl
from tests.support.localstack import free_port


def _error_schema(client) -> dict:
    """The Error response's schema of /api/openapi.json, with the document's components."""
    doc = client.get("/api/openapi.json").json
    ref = doc["components"]["responses"]["Error"]["content"]["application/json"]["schema"]
    return {**ref, "components": doc["components"]}, doc


def test_the_error_schema_lists_every_field_and_no_other(app):
    client = app.test_client()
    schema, doc = _error_schema(client)
    name = schema["$ref"].rsplit("/", 1)[-1]
    error = doc["components"]["schemas"][name]
    assert set(error["properties"]) == {"error", "status", "fields", "reason", "problem",
                                        "permanent"}
    assert set(error["required"]) == {"error", "status"}
    assert error["additionalProperties"] is False  # a field nobody documented fails the fuzzer
    assert set(error["properties"]["problem"]["enum"]) - {None} == set(evidence.ACTIONS)
    assert set(typing.get_args(PhotoProblem)) == set(evidence.ACTIONS)
    assert "photo_refused" in error["properties"]["reason"]["enum"]
    assert "other_author" in error["properties"]["reason"]["enum"]


def test_an_undocumented_field_cannot_be_answered():
    with pytest.raises(ValueError):
        ErrorBody(error="x", status=422, hint="not in the schema")


@pytest.fixture
def agent(app, make, moto):
    vehicle = moto()
    user = make(factories.user, "agent", "tapurah")
    other = make(factories.user, "agent", "tapurah")
    client = app.test_client()
    assert client.login(user.username).status_code == 302
    return Api(client), vehicle.id, other.id


def test_real_error_bodies_match_the_published_schema(app, agent):
    api, vehicle_id, other_agent = agent
    schema, _ = _error_schema(app.test_client())
    validator = jsonschema_rs.Draft202012Validator(schema)
    answers = {}

    answers["401"] = app.test_client().get("/api/field/session")
    answers["404"] = api.get(f"/api/field/inspections/{uuid.uuid4()}")
    answers["422 since"] = api.get("/api/field/reviews?since=abc")
    bad = body(vehicle_id)
    bad["junk"] = 1
    answers["422 body"] = api.put_inspection(str(uuid.uuid4()), bad)
    theirs = body(vehicle_id)
    theirs["agent_id"] = other_agent
    answers["403 other_author"] = api.put_inspection(str(uuid.uuid4()), theirs)

    out = BytesIO()
    Image.new("RGB", (64, 48), "red").save(out, "JPEG")
    cut = out.getvalue()[:-40]
    b = body(vehicle_id)
    decl = photo_decl(cut)
    b["items"].append({"item_id": "tank-sign", "result": "fail", "note": "x", "photos": [decl]})
    iid = str(uuid.uuid4())
    assert api.put_inspection(iid, b).status_code == 201
    answers["422 photo"] = api.put_photo(iid, decl["id"], cut)
    other = dict(b, finished_at=b["started_at"])
    answers["409"] = api.put_inspection(iid, other)

    seen = set()
    for what, r in answers.items():
        status = int(what.split()[0])
        assert r.status_code == status, (what, r.json)
        errors = [e.message for e in validator.iter_errors(r.json)]
        assert errors == [], (what, r.json, errors)
        assert ErrorBody.model_validate(r.json).model_dump(exclude_none=True) == r.json
        seen |= set(r.json)
    # every field of the schema is one a real answer above carries
    assert seen == {"error", "status", "fields", "reason", "problem", "permanent"}
    assert answers["422 photo"].json["permanent"] is True
    assert answers["403 other_author"].json["reason"] == "other_author"


def test_a_photo_the_object_store_cannot_take_answers_the_documented_503(app, agent):
    """The object store does not answer (EVIDENCE_BACKEND=s3, nothing listening at its
    endpoint): the photo PUT answers 503 with an Error body, as /api/openapi.json says it may;
    the photo is not acknowledged (the phone keeps it and sends it again)."""
    api, vehicle_id, _ = agent
    schema, doc = _error_schema(app.test_client())
    put_photo = doc["paths"]["/api/field/inspections/{inspection_id}/photos/{photo_id}"]["put"]
    documented = put_photo["responses"]["503"]
    assert documented["$ref"] == "#/components/responses/Error"
    assert "send the photo again" in documented["description"]

    app.config.update(EVIDENCE_BACKEND="s3", EVIDENCE_S3_BUCKET="provas",
                      EVIDENCE_S3_ENDPOINT_URL=f"http://127.0.0.1:{free_port()}",
                      EVIDENCE_S3_REGION="us-east-1", EVIDENCE_S3_ACCESS_KEY_ID="test",
                      EVIDENCE_S3_SECRET_ACCESS_KEY="test")
    photo = jpeg(7)
    b = body(vehicle_id, fail={"tank-sign": [photo]})
    iid, pid = str(uuid.uuid4()), b["items"][-1]["photos"][0]["id"]
    assert api.put_inspection(iid, b).status_code == 201
    r = api.put_photo(iid, pid, photo)
    assert r.status_code == 503, r.json
    errors = [e.message for e in jsonschema_rs.Draft202012Validator(schema).iter_errors(r.json)]
    assert errors == [], (r.json, errors)
    assert r.json["status"] == 503 and "armazenamento das fotos não respondeu" in r.json["error"]
    # the store's address, the object's key and botocore's English stay in the server's log
    assert "127.0.0.1" not in r.json["error"] and "Could not connect" not in r.json["error"]
    assert api.get(f"/api/field/inspections/{iid}").json["missing_photos"] == [pid]
