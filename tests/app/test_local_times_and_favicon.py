"""The credential and passenger-report pages show Mato Grosso's local time (UTC−4), as the
rest of the app does, not the stored UTC; /favicon.ico answers the app's icon."""
from __future__ import annotations

from datetime import UTC, datetime

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import PassengerReport, ReportCategory
from tests import factories
from tests.support.credentials import regular_mototaxi

MOMENT = datetime(2026, 12, 1, 8, 13, tzinfo=UTC)      # 04:13 in Mato Grosso
LATE = datetime(2026, 12, 2, 2, 30, tzinfo=UTC)         # still 1 December in Mato Grosso


def test_credential_and_report_pages_show_local_time(app, client, make):
    with app.app_context():
        vehicle = regular_mototaxi()
        cred = issuing.issue(vehicle)
        cred.issued_at = MOMENT
        late = issuing.issue(factories.vehicle("tapurah", "mototaxi"))
        late.issued_at = LATE
        report = PassengerReport(municipality_id=vehicle.municipality_id, credential_id=cred.id,
                                 vehicle_id=vehicle.id, seen_status="regular",
                                 category=ReportCategory("driving"), text="Andou na contramão.",
                                 created_at=MOMENT)
        db.session.add(report)
        db.session.commit()
        cred_id, report_id = cred.id, report.id
    client.login(make(factories.user, "supervisor", "tapurah").username)

    detail = client.get(f"/credenciais/{cred_id}").get_data(as_text=True)
    assert "01/12/2026 04:13" in detail and "08:13" not in detail
    for url in ("/denuncias", f"/denuncias/{report_id}"):
        html = client.get(url).get_data(as_text=True)
        assert "01/12/2026 04:13" in html and "08:13" not in html, url
    listing = client.get("/credenciais").get_data(as_text=True)
    assert "01/12/2026" in listing and "02/12/2026" not in listing   # issued late on the 1st


def test_favicon_is_the_apps_icon(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200
    assert r.mimetype.startswith("image/")
    assert r.data.startswith(b"\x89PNG")
    assert "max-age" in r.headers.get("Cache-Control", "")
