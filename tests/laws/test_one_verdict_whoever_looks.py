"""One verdict on a vehicle, whoever looks: for every vehicle sticker of
the demo — its irregularities on purpose included (a lapsed licence, a suspended one, an old
moto-taxi, a lapsed insurance…) — the passenger's page, the admin's registry list and the
vehicle's page say the same REGULAR / IRREGULAR / SUSPENSO, with the same reasons."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from inspector.config import DEMO_PASSWORD
from inspector.extensions import db, limiter
from inspector.models import Credential, CredentialKind, Municipality
from tests.support.credentials import banner


def _word(text: str) -> str:
    return text.split()[0]   # "SUSPENSO até 10/12/2026" -> "SUSPENSO"


def _list_verdict(html: str, vehicle_id: int) -> str:
    row = re.search(rf'href="/cadastro/veiculos/{vehicle_id}".*?</tr>', html, re.S)
    assert row, f"vehicle {vehicle_id} not in the list"
    cell = re.search(r'data-label="Hoje"><span class="badge[^"]*">([^<]+)</span>', row.group(0))
    return cell.group(1)


def _page_verdict(html: str) -> str:
    return re.search(r'<span class="badge-label">Hoje:</span> <span class="badge[^"]*">([^<]+)'
                     r'</span>', html).group(1)


def _reasons(html: str) -> list[str]:
    found = re.search(r'<ul class="verdict-reasons">(.*?)</ul>', html, re.S)
    return re.findall(r"<li>([^<(]+)", found.group(1)) if found else []


@pytest.fixture
def unlimited():
    """The passenger page's rate limit off: one client opens every sticker of the demo."""
    was = limiter.enabled
    limiter.enabled = False
    yield
    limiter.enabled = was


def test_every_demo_vehicle_has_one_verdict_on_every_screen(app, runner, client, unlimited):
    assert runner.invoke(args=["demo", "seed"]).exit_code == 0
    with app.app_context():
        towns = {t.id: t.slug for t in db.session.scalars(select(Municipality))}
        stickers = [(c.token, c.vehicle_id, c.municipality_id, c.vehicle.plate)
                    for c in db.session.scalars(select(Credential).where(
                        Credential.kind == CredentialKind.VEHICLE,
                        Credential.revoked_at.is_(None)))]
        db.session.remove()
    assert len(stickers) > 40
    seen = {}
    for town_id, slug in towns.items():
        admin = app.test_client()
        assert admin.login(f"admin.{slug}", DEMO_PASSWORD).status_code == 302
        for token, vehicle_id, vehicle_town, plate in stickers:
            if vehicle_town != town_id:
                continue
            passenger = client.get(f"/v/{token}").get_data(as_text=True)
            word = _word(banner(passenger))
            listed = admin.get(f"/cadastro/veiculos?q={plate}").get_data(as_text=True)
            page = admin.get(f"/cadastro/veiculos/{vehicle_id}").get_data(as_text=True)
            assert (_list_verdict(listed, vehicle_id), _page_verdict(page)) == (word, word), plate
            passenger_reasons = re.findall(r"<li>([^<(]+)", passenger.split("</section>")[0])
            assert [r.strip() for r in _reasons(page)] == [r.strip() for r in passenger_reasons]
            seen[word] = seen.get(word, 0) + 1
    assert set(seen) == {"REGULAR", "IRREGULAR", "SUSPENSO"}, seen

