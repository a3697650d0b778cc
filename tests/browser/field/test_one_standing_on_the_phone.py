"""The phone says each document's standing as the server does. The demo seeded and its tick run
(Tapurah's company permit falls with a lapsed policy, Lei 406/2001 Art. 17; a Nortelândia
auxiliary's registration is cancelled, Lei 127/2009 Art. 8 § ú): for every vehicle, the field
app's own code in Chromium (situation.standingToday, then standing.vehicleDocuments and
driverDocuments) reads the snapshot's rows and the law's requirements and must give, document
by document, the words, state and article of the server's `laws.standing_of`."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from inspector import laws
from inspector.clock import default_day
from inspector.demo.data import DEMO_PASSWORD
from inspector.extensions import db
from inspector.models import Municipality, Vehicle

pytestmark = pytest.mark.browser

JUDGE = """async ({ snap }) => {
    const { standingToday } = await import('/static/js/field/situation.js');
    const { vehicleDocuments, driverDocuments } = await import('/static/js/field/standing.js');
    const by = (rows, key) => rows.reduce((m, r) => ((m[r[key]] = m[r[key]] || []).push(r), m), {});
    const licences = by(snap.licences, 'vehicle_id');
    const insurance = by(snap.insurance, 'vehicle_id');
    const permits = by(snap.permits, 'holder_id');
    const standing = Object.fromEntries(snap.standing.map((s) => [s.vehicle_id, s]));
    const req = Object.fromEntries(snap.checklists.map((c) => [c.service, c.requirements]));
    const out = {};
    for (const vehicle of snap.vehicles) {
        // registry.vehicleFacts: the newest licence, its permit or the holder's of the service
        const lic = (licences[vehicle.id] || [])
            .sort((a, b) => b.valid_from.localeCompare(a.valid_from))[0] || null;
        const mine = permits[vehicle.holder_id] || [];
        const permit = (lic && lic.permit_id && mine.find((p) => p.id === lic.permit_id))
            || mine.filter((p) => p.service === vehicle.service)
                .sort((a, b) => (b.status === 'active') - (a.status === 'active')
                    || String(b.valid_from || '').localeCompare(String(a.valid_from || '')))[0] || null;
        const facts = { vehicle, licence: lic, permit, insurance: insurance[vehicle.id] || [],
            requirements: req[vehicle.service] || null };
        const judged = standingToday(standing[vehicle.id], facts);
        const drivers = snap.drivers.filter((d) => (d.vehicle_ids || []).includes(vehicle.id))
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)); // as Python's sorted()
        out[vehicle.id] = { status: judged.status,
            documents: [...vehicleDocuments(facts, judged),
                ...drivers.flatMap((d) => driverDocuments(d, facts.requirements))] };
    }
    return out;
}"""


def _server(app, town_id: int) -> dict[int, tuple]:
    with app.app_context():
        today = default_day()
        out = {}
        for v in db.session.scalars(select(Vehicle).where(Vehicle.municipality_id == town_id)):
            s = laws.standing_of(v, today)
            out[v.id] = (v.plate, s.verdict.state,
                         [(d.kind, d.owner, d.state, d.words, d.law, d.article) for d in s.documents])
        db.session.remove()
        return out


def test_the_phone_words_every_document_as_the_server(app, runner, page):
    assert runner.invoke(args=["demo", "seed"]).exit_code == 0
    assert runner.invoke(args=["enforcement", "tick"]).exit_code == 0
    with app.app_context():
        towns = {t.id: t.slug for t in db.session.scalars(select(Municipality))}
        db.session.remove()
    page.goto("/leis")   # any page of the site: the modules are imported as the app does
    compared, void = 0, 0
    for town_id, slug in towns.items():
        agent = app.test_client()
        assert agent.login(f"agente.{slug}", DEMO_PASSWORD).status_code == 302
        snap = agent.get("/api/field/snapshot").json
        phone = page.evaluate(JUDGE, {"snap": snap})
        for vehicle_id, (plate, state, documents) in _server(app, town_id).items():
            got = phone[str(vehicle_id)]
            assert got["status"] == state, plate
            mine = [(d["kind"], d.get("owner", ""), d["state"], d["words"], d["law"], d["article"])
                    for d in got["documents"]]
            assert mine == documents, plate
            compared += 1
            void += any(d[2] == "void" for d in documents)
    assert compared > 40 and void == 6   # the six motos of the company whose permit fell
