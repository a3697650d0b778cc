"""On a 360×740 phone, every red passenger page says what to do and why inside its banner, within
the first 400 px: "NÃO EMBARQUE — a permissão deste moto-táxi foi cassada". Every red state of
the demo after its tick (a company permit fallen with its insurance, Lei 406/2001 Art. 17; an
over-age moto, Art. 13; a lapsed Alvará; a suspended one; a cancelled auxiliary's badge), a
cancelled sticker, an expired one and a code the town never issued; axe-core finds nothing on
any of them."""
from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from inspector.clock import now
from inspector.credentials import issuing
from inspector.extensions import db, limiter
from inspector.models import Credential, CredentialKind, Driver, Status

pytestmark = pytest.mark.browser
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 360, "height": 740}
FOLD = 400


@pytest.fixture
def unlimited():
    was = limiter.enabled
    limiter.enabled = False
    yield
    limiter.enabled = was


def test_every_red_page_says_do_not_board_and_why_in_its_first_400_px(app, runner, browser,
                                                                      live_server, unlimited):
    assert runner.invoke(args=["demo", "seed"]).exit_code == 0
    assert runner.invoke(args=["enforcement", "tick"]).exit_code == 0
    with app.app_context():
        vehicles = list(db.session.scalars(select(Credential).where(
            Credential.kind == CredentialKind.VEHICLE, Credential.revoked_at.is_(None))))
        pages = {c.vehicle.plate: urlsplit(issuing.public_url(c.token)).path for c in vehicles}
        cancelled_aux = db.session.scalar(select(Driver).where(Driver.status == Status.REVOKED))
        badge = db.session.scalar(select(Credential).where(
            Credential.driver_id == cancelled_aux.id, Credential.revoked_at.is_(None)))
        pages["crachá do auxiliar cancelado"] = urlsplit(issuing.public_url(badge.token)).path
        revoked, old = vehicles[0], vehicles[1]
        pages["adesivo cancelado"] = urlsplit(issuing.public_url(revoked.token)).path
        revoked.revoked_at = now()
        # a sticker whose signed validity ran out (issued long ago, in place of the current one)
        expired = issuing.issue(old.vehicle, replaces=old,
                                    today=date.today() - timedelta(days=20 * 365))
        pages["adesivo vencido"] = urlsplit(issuing.public_url(expired.token)).path
        db.session.commit()
        db.session.remove()
    pages["código não emitido"] = "/v/nao-e-um-codigo"

    context = browser.new_context(base_url=live_server.url, locale="pt-BR", viewport=PHONE)
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    red, states, found = {}, set(), []
    for label, path in pages.items():
        page.goto(path)
        state = page.locator("section.banner").get_attribute("class").split("b-")[-1]
        if state == "regular":
            continue
        instruction = page.locator("section.banner .instruction")
        text = " ".join(instruction.inner_text().split())
        box = instruction.bounding_box()
        red[label] = (state, round(box["y"] + box["height"]), text)
        assert text.startswith("NÃO EMBARQUE — ") and len(text) > len("NÃO EMBARQUE — ") + 10, label
        assert box["y"] + box["height"] <= FOLD, (label, box)
        if state not in states:   # axe once per red state
            states.add(state)
            result = page.evaluate("async () => await axe.run(document)")
            assert len(result["passes"]) > 10
            found += [f"{label}: {v['id']}" for v in result["violations"]]
    context.close()
    assert found == []
    assert states == {"irregular", "suspended", "revoked", "expired", "unknown"}, states
    assert len(red) >= 12, red
    assert red["SAF9Q98"][2] == ("NÃO EMBARQUE — a permissão da empresa deste moto-táxi foi "
                                 "cassada: nenhum moto-táxi da empresa pode circular.")
    assert red["QBX6R89"][2] == ("NÃO EMBARQUE — este moto-táxi passou da idade máxima que a "
                                 "lei permite.")
    assert "condutor" in red["crachá do auxiliar cancelado"][2]
    print("lowest instruction bottom (px):", max(v[1] for v in red.values()),
          {k: v[1] for k, v in red.items()})
