"""JSON bodies that are valid JSON but absurd: unknown fields, numbers beyond what a
column holds or the domain allows, NaN and infinities, deep nesting, moments outside the
window around the server's clock. Each is a 422 naming the field in Portuguese, nothing
stored; replays of what was stored before still answer 200. And the OpenAPI document states
the bounds the models enforce, from the same models."""
from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from inspector import audit, bodies
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import AuditEntry, Inspection, PushSubscription
from tests import factories
from tests.support.field_api import Api, body, jpeg, sha


@pytest.fixture
def vehicle_id(make):
    def build():
        v = factories.vehicle("tapurah", "mototaxi")
        factories.licence(v)
        factories.insurance(v)
        return v
    return make(build).id


@pytest.fixture
def api(client, make) -> Api:
    agent = make(factories.user, "agent", "tapurah")
    assert client.login(agent.username).status_code == 302
    return Api(client)


def _stored(app, model=Inspection) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model))


def _z(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _refused(app, api, payload, field: str, *words: str):
    r = api.put_inspection(str(uuid.uuid4()), payload)
    assert r.status_code == 422, r.json
    assert r.json["status"] == 422 and r.json["error"].startswith("A vistoria não pode ser")
    assert field in r.json["fields"], r.json["fields"]
    for w in words:
        assert w in r.json["fields"][field], r.json["fields"][field]
    assert _stored(app) == 0 and _stored(app, AuditEntry) == 0
    return r.json["fields"]


def test_an_unknown_field_is_refused_and_never_stored(app, api, vehicle_id):
    fields = _refused(app, api, body(vehicle_id) | {"junk": "x" * 5_000_000}, "junk",
                      "campo desconhecido", "não é aceito")
    assert len(json.dumps(fields)) < 500  # the junk is not echoed back
    b = body(vehicle_id)
    b["location"]["altitude"] = 300
    _refused(app, api, b, "location.altitude", "campo desconhecido")
    b = body(vehicle_id, ok=("general-condition",), fail={"mirrors": [jpeg()]})
    b["items"][-1]["photos"][0]["exif"] = {}
    _refused(app, api, b, "items[1].photos[0].exif", "campo desconhecido")


@pytest.mark.parametrize("change, field, words", [
    ({"vehicle_id": 10**29}, "vehicle_id", ("veículo", "no máximo 2.147.483.647")),
    ({"vehicle_id": 0}, "vehicle_id", ("veículo", "no mínimo 1")),
    ({"vehicle_id": "12"}, "vehicle_id", ("veículo", "número inteiro")),
    ({"vehicle_id": 12.5}, "vehicle_id", ("veículo", "número inteiro")),
    ({"vehicle_id": True}, "vehicle_id", ("veículo", "número inteiro")),
    ({"snapshot_version": 2**31}, "snapshot_version", ("versão do cadastro",)),
    ({"agent_id": -1}, "agent_id", ("agente",)),
    ({"location": {"lat": 1, "lon": 2, "accuracy_m": -1}}, "location.accuracy_m",
     ("precisão", "no mínimo 0")),
    ({"location": {"lat": 1, "lon": 2, "accuracy_m": 1e12}}, "location.accuracy_m",
     ("precisão", "no máximo")),
    ({"location": {"lat": 1, "lon": "2"}}, "location.lon", ("longitude", "número")),
    ({"items": []}, "items", ("itens da vistoria",)),
    ({"items": [{"item_id": "mirrors", "result": "ok", "note": "n" * 2001}]},
     "items[0].note", ("observação", "até 2000 caracteres")),
    ({"items": [{"item_id": "x" * 121, "result": "ok"}]}, "items[0].item_id",
     ("item do checklist",)),
    ({"credential_token": "t" * 201}, "credential_token", ("credencial",)),
    ({"acknowledgement": {"name": "n" * 201}}, "acknowledgement.name", ("nome",)),
    ({"driver": {"id": 2**40, "name": "Zé"}}, "driver.id", ("condutor",)),
    ({"acknowledgement": []}, "acknowledgement", ("ciente", "objeto")),
])
def test_values_out_of_their_bounds_are_refused_naming_the_field(app, api, vehicle_id, change,
                                                                   field, words):
    _refused(app, api, body(vehicle_id) | change, field, *words)


@pytest.mark.parametrize("raw, field", [
    ('"accuracy_m": 1e400', "location.accuracy_m"),  # Infinity once stored: review page 500
    ('"accuracy_m": NaN', "body"),
    ('"accuracy_m": -Infinity', "body"),
])
def test_infinities_and_nan_are_refused(app, api, vehicle_id, raw, field):
    text = json.dumps(body(vehicle_id)).replace('"accuracy_m": 12', raw)
    r = api.put(f"/api/field/inspections/{uuid.uuid4()}", data=text.encode(),
                headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and field in r.json["fields"], r.json
    assert _stored(app) == 0


@pytest.mark.parametrize("depth", [150, 5_000, 200_000])
def test_a_deeply_nested_body_is_a_422_not_a_crash(app, api, vehicle_id, depth):
    b = json.dumps(body(vehicle_id))[:-1] + ', "note": ' + "[" * depth + "]" * depth + "}"
    r = api.put(f"/api/field/inspections/{uuid.uuid4()}", data=b.encode(),
                headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.status_code
    assert r.json["fields"]
    assert _stored(app) == 0


def test_moments_must_lie_in_the_window_around_the_servers_clock(app, api, vehicle_id):
    now = datetime.now(UTC)
    future = _refused(app, api, body(vehicle_id, started=now + timedelta(hours=25)),
                      "started_at", "início da vistoria", "futuro", "relógio do servidor")
    assert "finished_at" in future
    _refused(app, api, body(vehicle_id, started=now - timedelta(days=6 * 365)), "started_at",
             "5 anos")
    _refused(app, api, body(vehicle_id, started=datetime(3026, 1, 1, tzinfo=UTC)),
             "started_at", "futuro")
    b = body(vehicle_id, ok=("general-condition",), fail={"mirrors": [jpeg()]})
    b["items"][-1]["photos"][0]["taken_at"] = "2999-01-01T00:00:00Z"
    _refused(app, api, b, "items[1].photos[0].taken_at", "momento da foto", "futuro")
    _refused(app, api, body(vehicle_id) | {"started_at": "2026-11-30T13:00:00"}, "started_at",
             "com fuso")
    # a phone whose clock runs 23 hours ahead is still believed
    ahead = body(vehicle_id, started=now + timedelta(hours=23) - timedelta(minutes=7))
    assert api.put_inspection(str(uuid.uuid4()), ahead).status_code == 201


def test_what_the_field_app_sends_is_accepted(app, api, vehicle_id):
    """Every key inspection.js and db.js put in a body, at once (nulls where the app sends
    null), and the optional ones absent."""
    pic = jpeg()
    b = body(vehicle_id, ok=("general-condition",), fail={"mirrors": [pic]}, token="QR-TOKEN")
    b |= {"agent_id": None, "driver": {"id": None, "name": "Zé"}, "scanned_host": "x.example:8443"}
    b["acknowledgement"]["signature_png"] = None
    b["items"][0]["photos"] = []
    assert api.put_inspection(str(uuid.uuid4()), b).status_code == 201
    bare = body(vehicle_id, location=None, acknowledgement=None, version=None)
    del bare["items"][0]["photos"], bare["items"][0]["note"]
    assert api.put_inspection(str(uuid.uuid4()), bare).status_code == 201
    # JSON Schema's integer: 12.0 is 12
    assert api.put_inspection(str(uuid.uuid4()), body(float(vehicle_id))).status_code == 201


def test_a_body_stored_before_the_schema_still_replays(app, api, vehicle_id):
    """A body an earlier server took (with a key the model now refuses) answers 200 when its
    phone sends it again after a lost acknowledgement; other content is still a 409."""
    iid = str(uuid.uuid4())
    b = body(vehicle_id)
    assert api.put_inspection(iid, b).status_code == 201
    old = b | {"app_version": "0.9"}
    with app.app_context():
        db.session.execute(update(Inspection).values(
            body_sha256=sha(audit.canonical(old).encode())))
        db.session.commit()
    again = api.put_inspection(iid, old)
    assert again.status_code == 200, again.json
    assert api.put_inspection(iid, old | {"app_version": "1.0"}).status_code == 409


# ------------------------------------------------------------------ push subscriptions
def _sub(endpoint="http://127.0.0.1:9/push/x"):
    return {"endpoint": endpoint, "expirationTime": None,
            "keys": {"p256dh": "B" + "A" * 86, "auth": "A" * 22}}


@pytest.mark.parametrize("payload, field", [
    ({"subscription": _sub(), "extra": 1}, "extra"),
    ({"subscription": _sub() | {"other": 1}}, "subscription.other"),
    ({"subscription": _sub("https://fcm.googleapis.com/" + "a" * 2000)},
     "subscription.endpoint"),
    ({"subscription": _sub() | {"expirationTime": 1e300}}, "subscription.expirationTime"),
    ({"subscription": dict(_sub(), keys={"p256dh": "A" * 500, "auth": "A"})},
     "subscription.keys.p256dh"),
    (_sub() | {"keys": None}, "keys"),
    ([], "body"),
])
def test_push_subscription_bodies_are_bounded(app, client, make, payload, field):
    agent = make(factories.user, "agent", "tapurah")
    client.login(agent.username)
    token = client.csrf_token("/inicio")
    r = client.post("/api/push/subscriptions", json=payload, headers={"X-CSRFToken": token})
    assert r.status_code == 422, r.json
    assert field in r.json["fields"], r.json
    assert _stored(app, PushSubscription) == 0
    r = client.delete("/api/push/subscriptions", json={"subscription": {"endpoint": 5}},
                      headers={"X-CSRFToken": token})
    assert r.status_code == 422 and "subscription.endpoint" in r.json["fields"]
    r = client.post("/api/push/notice-subscriptions", json={"notice": "x" * 81,
                    "subscription": _sub()}, headers={"X-CSRFToken": token})
    assert r.status_code == 422 and "notice" in r.json["fields"]


# ------------------------------------------------------------------ the document
def _walk(node, path="#"):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}/{i}")


def test_the_document_states_every_bound_of_every_request_body(client):
    """The request bodies' schemas come from the models: every object closed, every string,
    array and number bounded; the inspection's says what the app sends."""
    doc = client.get("/api/openapi.json").json
    schemas = doc["components"]["schemas"]
    bodies = ["InspectionBody", "Subscribe", "BrowserSubscription", "Unsubscribe",
              "SubscriptionRef", "NoticeSubscribe", "NoticeUnsubscribe"]
    for name in bodies + ["Item", "PhotoDeclaration", "PushKeys"]:
        for where, node in _walk(schemas[name], f"#/components/schemas/{name}"):
            types = node.get("type")
            types = types if isinstance(types, list) else [types]
            if "object" in types:
                assert node.get("additionalProperties") is False, where
            if "string" in types and "enum" not in node and "format" not in node:
                assert "maxLength" in node, where
            if "array" in types:
                assert "maxItems" in node, where
            if "integer" in types or "number" in types:
                assert "minimum" in node and "maximum" in node, where
    insp = schemas["InspectionBody"]["properties"]
    assert insp["vehicle_id"]["maximum"] == 2**31 - 1
    assert insp["location"]["properties"]["accuracy_m"]["maximum"] == 20_004_000
    assert set(insp) >= {"vehicle_id", "agent_id", "credential_token", "started_at",
                         "finished_at", "snapshot_version", "location", "items",
                         "acknowledgement", "driver", "scanned_host"}
    put = doc["paths"]["/api/field/inspections/{inspection_id}"]["put"]
    assert put["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/InspectionBody"}
    assert set(doc["components"]["securitySchemes"]) == {"session", "csrf"}


def test_a_nul_in_any_json_string_is_refused_before_the_database_sees_it():
    """PostgreSQL text cannot hold NUL (a 500 there before): every JSON body is refused with
    a 422 naming it, as forms and URLs are, whatever the body's model."""
    for raw in (b'{"note": "a\\u0000b"}', '{"note": "a\\u0000b"}'):
        with pytest.raises(ValidationFailed) as e:
            bodies.parse(dict, raw)
        assert e.value.errors == {"body": "O pedido contém um caractere inválido (NUL)."}


def test_a_nul_in_an_inspection_note_is_a_422_and_nothing_is_stored(app, api, moto):
    v = moto()
    b = body(v.id, fail={"mirrors": [jpeg(3)]})
    next(i for i in b["items"] if i["result"] == "fail")["note"] = "retrovisor\x00solto"
    r = api.put_inspection(str(uuid.uuid4()), b)
    assert r.status_code == 422
    assert r.get_json()["fields"] == {"body": "O pedido contém um caractere inválido (NUL)."}
    with app.app_context():
        assert db.session.scalar(select(func.count(Inspection.id))) == 0
