"""A permit's suspension the supervision chose (Nova Santa Helena Lei 535/2013, Art. 25, III:
"Suspensão ou cassação do Termo de Permissão", the mayor's, Art. 27) falls on the holder's
permit, not on the driver who was at the wheel: the driver's page keeps it out of the
driver's own sanctions and names it as the holder's; the holder's and the vehicle's pages
list it, saying what it falls on. The driver's own acts (Art. 26, § único: entered "no
cadastro do infrator") stay on the driver's page."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Sanction
from tests.support.enforcement import chosen_permit_suspension, nsh_failed_seat_belts


def _card(html: str, sid: str) -> str | None:
    m = re.search(rf'<section class="card" aria-labelledby="{sid}">(.*?)</section>', html, re.S)
    return m.group(1) if m else None


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.fixture
def suspended_permit(app):
    """The seat belts failed; the driver's warning proposed; the permit's suspension chosen
    and confirmed by the mayor (in effect)."""
    with app.app_context():
        insp, users = nsh_failed_seat_belts("admin")
        [warning] = enforcement.acts_of(insp)
        act = chosen_permit_suspension(insp, users["supervisor"], "Cintos soltos de novo.",
                                       confirmed=True)
        enforcement.record_mayor_decision(act, users["admin"],
                                          datetime.now(UTC) - timedelta(minutes=10),
                                          decision="confirm", ref="Decreto nº 5/2026")
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert act.target == "permit" and act.kind == "suspension"
        return {"act": act.id, "warning": warning.id, "driver": act.driver_id,
                "holder": act.holder_id, "holder_name": act.holder.name,
                "vehicle": act.vehicle_id, "sup": users["supervisor"].username}


def _page(client, who: str, path: str) -> str:
    assert client.login(who).status_code == 302
    r = client.get(path)
    assert r.status_code == 200
    return r.get_data(as_text=True)


def test_the_drivers_page_shows_the_permit_suspension_as_the_holders(client, suspended_permit):
    s = suspended_permit
    html = _page(client, s["sup"], f"/cadastro/condutores/{s['driver']}")
    own = _card(html, "s-sanctions")
    assert f'/revisao/atos/{s["warning"]}"' in own            # the driver's own warning
    assert f'/revisao/atos/{s["act"]}"' not in own             # not the permit's suspension
    others = _card(html, "s-sanctions-others")
    assert others is not None and f'/revisao/atos/{s["act"]}"' in others
    text = _text(others)
    assert "Atos sobre o titular e o veículo" in _text(html)
    assert "não são sanções deste condutor" in text
    assert f"sobre: Termo de Permissão do titular {s['holder_name']}" in text
    assert f'href="/cadastro/permissionarios/{s["holder"]}"' in others


@pytest.mark.parametrize("page", ["permissionarios", "veiculos"])
def test_the_holders_and_vehicles_pages_list_it_as_the_permits(client, suspended_permit, page):
    s = suspended_permit
    ident = s["holder"] if page == "permissionarios" else s["vehicle"]
    section = _card(_page(client, s["sup"], f"/cadastro/{page}/{ident}"), "s-sanctions")
    assert section is not None and f'/revisao/atos/{s["act"]}"' in section
    assert f"sobre: Termo de Permissão do titular {s['holder_name']}" in _text(section)
    assert "sobre: Condutor" in _text(section)                 # the driver's warning
