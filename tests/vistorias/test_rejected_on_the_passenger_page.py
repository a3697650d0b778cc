"""A rejected vistoria's return day shows on the vehicle's passenger page, on the very next
request (the page's cached view is keyed by the vehicle's newest vistoria too); an approved one
afterwards clears it. Tapurah Lei 406/2001 Art. 23 X (6 months). Runs on SQLite and PostgreSQL."""
from __future__ import annotations

import re
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from inspector.clock import default_day
from inspector.credentials import issue, public_url
from inspector.extensions import db
from inspector.models import Vehicle
from inspector.rules import add_months, fmt_date
from tests.support.field_api import jpeg
from tests.support.vistorias import vistoria_body


def _line(html: str) -> str:
    found = re.search(r'<p class="vistoria" id="vistoria">(.*?)</p>', html)
    return found.group(1) if found else ""


def test_the_return_day_shows_then_an_approved_vistoria_clears_it(app, api, moto, client):
    v = moto()
    with app.app_context():
        vehicle = db.session.get(Vehicle, v.id)
        last = vehicle.last_vistoria_on
        path = urlsplit(public_url(issue(vehicle, actor="test").token)).path
        db.session.commit()
    valid = f"Vistoria válida até {fmt_date(add_months(last, 6))}"
    assert _line(client.get(path).get_data(as_text=True)) == valid
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(v.id, "tapurah", "mototaxi",
                                                            "periodic", fail={"mirrors": jpeg(9)}))
    assert r.json["vistoria"]["result"] == "rejected"
    today = default_day()
    back = fmt_date(today + timedelta(days=15))  # the town's default return days
    assert _line(client.get(path).get_data(as_text=True)) == \
        f"{valid}; reprovada na vistoria de {fmt_date(today)}, retorno até {back}"
    r = api.put_inspection(str(uuid.uuid4()), vistoria_body(v.id, "tapurah", "mototaxi",
                                                            "periodic"))
    assert r.json["vistoria"]["result"] == "approved"
    assert _line(client.get(path).get_data(as_text=True)) == \
        f"Vistoria válida até {fmt_date(add_months(today, 6))}"
