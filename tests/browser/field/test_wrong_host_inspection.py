"""An inspection started from a genuine code behind a foreign web address (a swapped sticker,
"possível FRAUDE" on the card) carries that address to the server, offline first, so the
supervisor's review says so; one started from a plate search carries none."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import fill_checklist, find_by_plate, start_online, sync_until_empty

pytestmark = pytest.mark.browser

HOST = "pix-mototaxi-tapurah.example.net"


def _bodies(app) -> list[dict]:
    from inspector.extensions import db
    from inspector.models import Inspection

    with app.app_context():
        out = [json.loads(i.body) for i in db.session.scalars(
            db.select(Inspection).order_by(Inspection.id))]
        db.session.remove()
        return out


def _save(page) -> None:
    page.get_by_role("button", name="Iniciar vistoria").click()
    fill_checklist(page, [], fail=0)
    page.get_by_role("button", name="Salvar vistoria").click()


def test_the_foreign_address_of_the_scanned_qr_reaches_the_review(browser, live_server, app,
                                                                  world):
    from inspector.extensions import db
    from inspector.models import Credential

    with app.app_context():
        token = db.session.get(Credential, world["credential_id"]).token
        db.session.remove()
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    page.evaluate("(text) => window.fieldApp.handleCode(text)", f"https://{HOST}/v/{token}")
    expect(page.locator("#result .verdict")).to_have_attribute("data-verdict", "wrong_host")
    _save(page)
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")
    # the same vehicle found by its plate afterwards: nothing was scanned
    find_by_plate(page, world["plate"])
    _save(page)
    context.set_offline(False)
    sync_until_empty(page)
    bodies = _bodies(app)                    # the outbox sends them side by side: any order
    [scanned] = [b for b in bodies if b["credential_token"] == token]
    [searched] = [b for b in bodies if b["credential_token"] is None]
    assert scanned["scanned_host"] == HOST and "scanned_host" not in searched
    assert guard.foreign() == []
    context.close()
