"""The snapshot's vehicle rows carry the newest vistoria (`vehicles[].vistoria`): a rejected one
with the day the vehicle must come back and what to fix, so the agent's card shows them offline
(docs/sync.md). The decision reaches phones in the next delta; an approved vistoria afterwards
replaces it. Tapurah Lei 406/2001 Art. 23 X. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from tests.support.field_api import jpeg
from tests.support.instants import CUIABA
from tests.support.vistorias import vistoria_body


def _row(snapshot: dict, vehicle_id: int) -> dict:
    rows = [x for x in snapshot["vehicles"] if x["id"] == vehicle_id]
    assert len(rows) == 1, snapshot["vehicles"]
    return rows[0]


def test_a_rejected_vistoria_reaches_the_phone_with_its_return_day(api, moto):
    v = moto()
    full = api.get("/api/field/snapshot").json
    assert _row(full, v.id)["vistoria"] is None  # none decided yet
    sent = vistoria_body(v.id, "tapurah", "mototaxi", "periodic", fail={"mirrors": jpeg(9)})
    r = api.put_inspection(str(uuid.uuid4()), sent)
    decided = r.json["vistoria"]
    assert decided["result"] == "rejected"
    # the day it was made on the town's clock: the day before today when it began before
    # midnight there
    day = datetime.fromisoformat(sent["started_at"].replace("Z", "+00:00")).astimezone(CUIABA).date()
    expected = {"result": "rejected", "on": day.isoformat(),
                # the town's default return days
                "return_on": (day + timedelta(days=15)).isoformat(),
                "to_fix": [f["label"] for f in decided["to_fix"]]}
    assert len(expected["to_fix"]) == 1 and expected["to_fix"][0]
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert delta["full"] is False
    assert _row(delta, v.id)["vistoria"] == expected
    assert _row(api.get("/api/field/snapshot").json, v.id)["vistoria"] == expected

    sent = vistoria_body(v.id, "tapurah", "mototaxi", "periodic")
    r = api.put_inspection(str(uuid.uuid4()), sent)
    assert r.json["vistoria"]["result"] == "approved"
    later = api.get(f"/api/field/snapshot?since={delta['version']}").json
    day = datetime.fromisoformat(sent["started_at"].replace("Z", "+00:00")).astimezone(CUIABA).date()
    assert _row(later, v.id)["vistoria"] == {"result": "approved", "on": day.isoformat()}
