"""Open notices on the result card: the snapshot's `notices` holds the decided acts
still running against the town's vehicles, drivers and holders, and its deltas follow them
until they are complied with or voided. Runs on SQLite and PostgreSQL."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Sanction, User
from tests import factories
from tests.support.enforcement import acts, fleet, inspect
from tests.support.field_api import Api

KEYS = {"id", "number", "kind", "kind_label", "label", "what", "required_action", "citation",
        "deadline_at", "deadline_explain", "appeal_until", "appeal_explain", "status",
        "status_label", "suspended", "awaiting_delivery", "issued_at", "concerns", "vehicle_id",
        "driver_id", "holder_id"}
MIRRORS = {"mirrors": "fail", "uniform": "fail", "general-condition": "ok"}


def _inspected(app, results=MIRRORS, hours_ago: float = 1) -> dict:
    """A Tapurah moto-taxi inspected with the mirrors and the uniform failed (one notice each,
    proposed); the supervisor and the agent who did it."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        inspector_ = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        insp = inspect(f["vehicle"], inspector_, results,
                       datetime.now(UTC) - timedelta(hours=hours_ago))
        made = acts(insp)
        by_item = {a.inspection_item.item_id: a.id for a in made}
        labels = {a.inspection_item.item_id: a.inspection_item.label for a in made}
        db.session.commit()
        return {"vehicle": f["vehicle"].id, "driver": f["driver"].id, "holder": f["holder"].id,
                "agent": inspector_.id, "sup": sup.id, "labels": labels, **by_item}


def _decide(app, act_id: int, how: str = "confirm") -> None:
    from inspector import enforcement

    with app.app_context():
        act = db.session.get(Sanction, act_id)
        sup = db.session.scalar(select(User).filter_by(role="supervisor",
                                                       municipality_id=act.municipality_id))
        if how == "confirm":
            enforcement.confirm(act, sup, datetime.now(UTC))
        else:
            enforcement.reject(act, sup, datetime.now(UTC), reason="Foto não mostra o defeito.")
        db.session.commit()


def test_a_confirmed_notice_is_on_the_snapshot_with_what_the_card_needs(instant, app, api, make):
    w = _inspected(app)
    assert api.get("/api/field/snapshot").json["notices"] == []   # proposals are not notices
    _decide(app, w["mirrors"])
    _decide(app, w["uniform"], "reject")
    [notice] = api.get("/api/field/snapshot").json["notices"]
    assert set(notice) == KEYS                                    # no name, amount or code
    assert notice["id"] == w["mirrors"] and notice["number"].startswith("NOT-")
    assert (notice["kind"], notice["kind_label"]) == ("notice", "Notificação")
    assert notice["what"] == w["labels"]["mirrors"] and "retrovisor" in notice["what"].lower()
    assert notice["citation"]["law"] == "Lei 406/2001" and notice["citation"]["article"]
    assert "quote" not in notice["citation"]
    deadline = datetime.fromisoformat(notice["deadline_at"])
    # 72 hours (Tapurah) from the "ciente" signed on the street an hour ago
    assert timedelta(hours=70) < deadline - datetime.now(UTC) < timedelta(hours=71)
    # the legal calendar's explanation goes with each date, so the card shows it offline
    assert notice["deadline_explain"].startswith("72 horas, contadas minuto a minuto")
    # 8 days to appeal (Tapurah Art. 30), counted by Lei 9.784/1999 Art. 66
    assert notice["appeal_explain"].startswith("8 dias (Lei 9.784/1999, art. 66): ")
    # the last day said is the window's end, or the day it moved to when that end is a day
    # without office (art. 66, § 1º): which of the two depends on the day the test runs
    last_said = notice["appeal_explain"].split(" a ")[1][:10]
    if "prorrogado para " in notice["appeal_explain"]:
        last_said = notice["appeal_explain"].split("prorrogado para ")[1][:10]
    assert last_said == "/".join(reversed(notice["appeal_until"].split("-")))
    assert (notice["status"], notice["status_label"]) == ("confirmed", "Confirmado")
    assert notice["awaiting_delivery"] is False  # signed for on the street: its time runs
    assert (notice["concerns"], notice["vehicle_id"], notice["driver_id"],
            notice["holder_id"]) == ("driver", w["vehicle"], w["driver"], w["holder"])
    next_door = make(factories.user, "agent", "sapezal")
    c = app.test_client()
    c.login(next_door.username)
    assert Api(c).get("/api/field/snapshot").json["notices"] == []


def test_deltas_bring_new_notices_and_drop_those_complied_with(app, api):
    w = _inspected(app)
    _decide(app, w["mirrors"])
    full = api.get("/api/field/snapshot").json
    assert [n["id"] for n in full["notices"]] == [w["mirrors"]]

    _decide(app, w["uniform"])
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert [n["id"] for n in delta["notices"]] == [w["uniform"]]
    assert "notices" not in delta["deleted"]

    with app.app_context():                # re-inspection: the mirrors are fixed now
        vehicle = db.session.get(factories.Vehicle, w["vehicle"])
        inspect(vehicle, db.session.get(User, w["agent"]),
                {"mirrors": "ok", "uniform": "fail", "general-condition": "ok"},
                datetime.now(UTC))
        db.session.commit()
        assert db.session.get(Sanction, w["mirrors"]).status.value == "complied"
    later = api.get(f"/api/field/snapshot?since={delta['version']}").json
    assert w["mirrors"] in later["deleted"]["notices"]
    assert w["mirrors"] not in [n["id"] for n in later["notices"]]
    again = api.get("/api/field/snapshot").json
    assert [n["id"] for n in again["notices"]] == [w["uniform"]]
