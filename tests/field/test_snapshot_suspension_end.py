"""The end of a suspension on the phone: the snapshot ships `suspended_until` of drivers,
licences and permits, and the vehicle's standing carries the last day of the suspensions
holding it (what the result card shows as "Suspenso até dd/mm/aaaa"), in full snapshots and
in deltas. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import date, timedelta

from inspector import audit
from inspector.enforcement import suspensions
from inspector.extensions import db
from inspector.models import Driver, Licence, Status, Vehicle
from tests import factories

END = date.today() + timedelta(days=20)
LATER = date.today() + timedelta(days=45)


def _fleet(app):
    """Three Tapurah moto-taxis: a licence suspended until END, a licence suspended by hand
    (no known end), a licence until END whose holder's permit and rider are suspended until
    LATER."""
    def build():
        out = {}
        for name in ("licence", "by_hand", "both"):
            v = factories.vehicle("tapurah", "mototaxi")
            factories.insurance(v)
            d = factories.driver("tapurah", "mototaxista", holder=v.holder)
            d.vehicles.append(v)
            p = factories.permit(v.holder, "mototaxi")
            if name == "both":
                p.status, p.suspended_until = Status.SUSPENDED, LATER
            audit.record("vehicle_created", "vehicle", v.id, municipality_id=v.municipality_id)
            out[name] = (v.id, d.id)
        for name, until in (("licence", END), ("by_hand", None), ("both", END)):
            v = db.session.get(Vehicle, out[name][0])
            lic = factories.licence(v, status=Status.SUSPENDED, suspended_until=until)
            out[name] += (lic.id,)
        rider = db.session.get(Driver, out["both"][1])
        rider.status, rider.suspended_until = Status.SUSPENDED, LATER
        return out
    with app.app_context():
        out = build()
        db.session.commit()
        return out


def _by(rows, key="id"):
    return {r[key]: r for r in rows}


def test_full_snapshot_ships_the_last_day_of_each_suspension(instant, app, api):
    fleet = _fleet(app)
    s = api.get("/api/field/snapshot").json
    licences, drivers = _by(s["licences"]), _by(s["drivers"])
    standing = _by(s["standing"], "vehicle_id")
    vid, did, lid = fleet["licence"]
    assert licences[lid]["status"] == "suspended"
    assert licences[lid]["suspended_until"] == END.isoformat()
    assert drivers[did]["suspended_until"] is None
    assert standing[vid]["status"] == "suspended"
    assert standing[vid]["suspended_until"] == END.isoformat()
    # Entered by hand: suspended, with no known end.
    vid, _, lid = fleet["by_hand"]
    assert licences[lid]["suspended_until"] is None
    assert standing[vid]["status"] == "suspended" and standing[vid]["suspended_until"] is None
    # Licence until END, permit until LATER: the vehicle is suspended until the later day;
    # its rider's own end is on the driver's row (the card shows it in the rider's block).
    vid, did, lid = fleet["both"]
    assert drivers[did]["status"] == "suspended"
    assert drivers[did]["suspended_until"] == LATER.isoformat()
    assert standing[vid]["suspended_until"] == LATER.isoformat()
    assert {p["suspended_until"] for p in s["permits"]} == {None, LATER.isoformat()}
    assert all(x["suspended_until"] is None for x in s["standing"] if x["status"] != "suspended")


def test_a_delta_carries_a_moved_end_and_the_vehicles_standing(instant, app, api):
    fleet = _fleet(app)
    full = api.get("/api/field/snapshot").json
    vid, _, lid = fleet["licence"]
    with app.app_context():
        # The period as enforcement rewrites it (suspension_period_changed): an audit entry
        # that names the licence but not its vehicle. No act holds it: the end is cleared.
        lic = db.session.get(Licence, lid)
        suspensions.refresh_until(lic)
        db.session.commit()
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert [(x["id"], x["suspended_until"]) for x in delta["licences"]] == [(lid, None)]
    assert [(x["vehicle_id"], x["status"], x["suspended_until"]) for x in delta["standing"]] \
        == [(vid, "suspended", None)]
    with app.app_context():
        lic = db.session.get(Licence, lid)
        lic.suspended_until = LATER
        audit.record("suspension_period_changed", "licence", lid,
                     before={"status": "suspended", "suspended_until": None},
                     after={"status": "suspended", "suspended_until": LATER},
                     municipality_id=lic.municipality_id)
        db.session.commit()
    again = api.get(f"/api/field/snapshot?since={delta['version']}").json
    assert [x["suspended_until"] for x in again["licences"]] == [LATER.isoformat()]
    assert [(x["vehicle_id"], x["suspended_until"]) for x in again["standing"]] \
        == [(vid, LATER.isoformat())]
