"""The data a drill makes through the services and the field API (backup/restore, upgrades):
a Tapurah moto-taxi fleet, an agent and a supervisor, QR credentials, inspections synced with
photos, an act confirmed with its notice's PDF."""
from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.models import NoticeDocument, Sanction, User
from tests import factories
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg, png_signature


def _moto():
    h = factories.holder("tapurah", company=True, name="Moto Rápida Ltda")
    factories.permit(h)
    v = factories.vehicle("tapurah", "mototaxi", holder=h)
    d = factories.driver("tapurah", "mototaxista", holder=h, name="Carlos Motoqueiro")
    d.vehicles.append(v)
    factories.licence(v)
    factories.insurance(v)
    return v


def sync(api: Api, vehicle_id: int, seed: int, iid: str | None = None) -> tuple[str, dict, list]:
    """One inspection with a failed mirror and two photos, as the phone's outbox sends it."""
    photos = [jpeg(seed, size=(320, 240)), jpeg(seed + 1, size=(240, 320))]
    iid = iid or str(uuid.uuid4())
    b = body(vehicle_id, ok=("general-condition", "tank-sign"), fail={"mirrors": photos},
             acknowledgement={"name": "Carlos Motoqueiro", "signature_png": png_signature()})
    return iid, b, photos


def send(api: Api, iid: str, b: dict, photos: list) -> list[int]:
    codes = [api.put_inspection(iid, b).status_code]
    for decl, data in zip(b["items"][-1]["photos"], photos):
        codes.append(api.put_photo(iid, decl["id"], data).status_code)
    return codes


def make_town(origin) -> dict:
    """Through the services: a fleet, an agent and a supervisor, credentials, an inspection
    synced with photos, its act confirmed (a notice and its PDF)."""
    with origin.app_context():
        agent = factories.user("agent", "tapurah", username="agente.t", badge_number="AG-1")
        sup = factories.user("supervisor", "tapurah", username="sup.t")
        v = _moto()
        db.session.commit()
        ids = {"agent": agent.id, "sup": sup.id, "vehicle": v.id}
    runner = origin.test_cli_runner()
    assert runner.invoke(args=["credentials", "issue", "--town", "tapurah"]).exit_code == 0
    listed = json.loads(runner.invoke(args=["credentials", "list", "--town", "tapurah",
                                            "--json"]).output)["credentials"]
    client = origin.test_client()
    assert client.login("agente.t").status_code == 302
    api = Api(client)
    iid, b, photos = sync(api, ids["vehicle"], 1)
    assert send(api, iid, b, photos) == [201, 201, 201]
    enforcement_worker(origin)
    with origin.app_context():
        act = db.session.scalar(select(Sanction).where(Sanction.kind == "notice"))
        decision = enforcement.confirm(act, db.session.get(User, ids["sup"]), datetime.now(UTC))
        db.session.commit()
        document = db.session.scalar(select(NoticeDocument).where(
            NoticeDocument.notice_id == decision.notice.id))
        ids.update(number=decision.notice.number, doc_sha=document.sha256)
    ids.update(token=listed[0]["url"].rsplit("/v/", 1)[1], first=(iid, b, photos), api=api)
    return ids
