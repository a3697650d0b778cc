"""The article a passenger sees next to a reason about the Alvará (Sapezal Lei 060/1998):
Art. 10 sets its validity, Art. 20, IV provides its suspension; Art. 1 only requires it."""
from __future__ import annotations

import re
from datetime import date, timedelta

from inspector.credentials import issuing as credentials
from inspector.extensions import db
from inspector.models import Status
from tests import factories


def _sapezal_taxi_page(app, client, **licence):
    with app.app_context():
        holder = factories.holder("sapezal", name="Taxista Sapezal")
        factories.permit(holder, "taxi")
        taxi = factories.vehicle("sapezal", "taxi", holder=holder, plate="QBX5Z06",
                                 year_of_manufacture=date.today().year - 1,
                                 last_vistoria_on=date.today() - timedelta(days=20))
        lic = factories.licence(taxi, number="AL-0009", **licence)
        taxi.licences = [lic]
        token = credentials.issue(taxi, actor="test").token
        db.session.commit()
    html = client.get(f"/v/{token}").get_data(as_text=True)
    return [re.sub(r"<[^>]+>", "", li) for li in re.findall(r"<li>(.*?)</li>", html)], html


def test_a_suspended_alvara_cites_art_20_iv(app, client):
    reasons, html = _sapezal_taxi_page(app, client, status=Status.SUSPENDED)
    assert "Alvará AL-0009 suspenso. (Lei 060/1998, Art. 20, IV)" in reasons
    assert 'href="/leis/sapezal-lei-060-1998-taxi#art-20-iv"' in html


def test_an_expired_alvara_cites_art_10(app, client):
    past = date.today() - timedelta(days=35)
    reasons, _ = _sapezal_taxi_page(app, client, valid_from=past - timedelta(365),
                                    valid_until=past)
    assert f"Alvará AL-0009 vencido em {past:%d/%m/%Y}. (Lei 060/1998, Art. 10)" in reasons
