"""The result card never contradicts itself, offline in Chromium: one verdict per subject,
the same as the banner on top. A vehicle whose sticker is cancelled is IRREGULAR in every box
(no green REGULAR under the red banner) and its credential reads "cancelada" in the dates; a
rider's genuine badge whose registration is revoked says the badge is authentic but the rider
may not ride (no green "Credencial válida"); the vehicle's credential row is the vehicle's,
the badge's is under the rider. A genuine token behind another web address (a sticker swapped
for a phishing one) is shown as a possible fraud; the official address and a bare token pass."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import expect_banner, start_online

pytestmark = pytest.mark.browser

RIDER = "João Batista da Silva"
GREEN = ".standing-ok, .verdict-ok, .situation-ok"


def _fmt(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def _handle(page, text: str):
    """What the camera does with a decoded QR (app.js handleCode); the card shown."""
    page.evaluate("(text) => window.fieldApp.handleCode(text)", text)
    card = page.locator("#result .card")
    expect(card.locator(".verdict")).to_be_visible()
    return card


def _credential(app, world):
    from inspector.extensions import db
    from inspector.models import Credential

    with app.app_context():
        cred = db.session.get(Credential, world["credential_id"])
        out = cred.token, cred.expires_on
        db.session.remove()
        return out


def test_a_cancelled_sticker_is_irregular_in_every_box(browser, live_server, app, world):
    from inspector.credentials import issuing
    from inspector.extensions import db
    from inspector.models import Credential

    token, expires = _credential(app, world)
    with app.app_context():
        issuing.revoke(db.session.get(Credential, world["credential_id"]), "Adesivo clonado")
        db.session.commit()
        db.session.remove()
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    card = _handle(page, world["url"])
    expect_banner(card, "irregular", "IRREGULAR", ["Credencial CANCELADA"])
    expect(card.locator(".verdict")).to_have_attribute("data-verdict", "revoked")
    expect(card.locator(".verdict-title")).to_have_text("Credencial CANCELADA")
    standing = card.locator("[data-standing]")
    expect(standing).to_have_attribute("data-standing", "irregular")
    expect(standing.locator(".standing-title")).to_have_text("IRREGULAR")
    expect(standing).to_contain_text("Credencial CANCELADA")
    expect(standing).to_contain_text("Documentos do veículo em dia")
    expect(card.locator(GREEN)).to_have_count(0)
    expect(card.locator(".expiries li", has_text="Credencial")).to_have_text(
        f"Credencial{_fmt(expires)} (cancelada)")
    context.close()


def test_an_expired_sticker_reads_vencida(browser, live_server, app, world):
    from inspector.credentials import issuing
    from inspector.extensions import db
    from inspector.models import Credential, Vehicle

    with app.app_context():
        issuing.revoke(db.session.get(Credential, world["credential_id"]), "Substituída")
        old = issuing.issue(db.session.get(Vehicle, world["vehicle_id"]),
                                today=date.today() - timedelta(days=800))
        url, expires = issuing.public_url(old.token), old.expires_on
        db.session.commit()
        db.session.remove()
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    card = _handle(page, url)
    expect(card.locator(".verdict")).to_have_attribute("data-verdict", "expired")
    expect(card.locator(".verdict.verdict-bad")).to_have_count(1)   # red, as the banner's line
    expect(card.locator("[data-standing]")).to_have_attribute("data-standing", "irregular")
    expect(card.locator(GREEN)).to_have_count(0)
    expect(card.locator(".expiries li", has_text="Credencial")).to_have_text(
        f"Credencial{_fmt(expires)} (vencida)")
    context.close()


def test_a_genuine_badge_of_a_rider_whose_registration_is_revoked(browser, live_server, app,
                                                                   world):
    from inspector import audit
    from inspector.credentials import issuing
    from inspector.extensions import db
    from inspector.models import Status, Vehicle

    _, vehicle_expires = _credential(app, world)
    with app.app_context():
        rider = db.session.get(Vehicle, world["vehicle_id"]).drivers[0]
        badge = issuing.issue(rider, today=date.today() - timedelta(days=10))
        badge_url, badge_expires = issuing.public_url(badge.token), badge.expires_on
        before = audit.snapshot(rider)
        rider.status = Status.REVOKED
        audit.record("status_changed", "driver", rider.id, before=before,
                     after=audit.snapshot(rider), municipality_id=rider.municipality_id)
        db.session.commit()
        db.session.remove()
    assert badge_expires != vehicle_expires
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    card = _handle(page, badge_url)
    banner = expect_banner(card, "irregular", "IRREGULAR")
    expect(banner.locator(".situation-lines > li")).to_contain_text(["registro CASSADO"])
    verdict = card.locator(".verdict")
    expect(verdict).to_have_attribute("data-verdict", "valid")
    expect(verdict).to_have_class("verdict verdict-bad verdict-line")
    expect(verdict.locator(".verdict-title")).to_have_text(
        "Credencial autêntica, mas o condutor não pode conduzir: registro CASSADO")
    expect(verdict).to_contain_text(f"Crachá de {RIDER}")
    expect(card).not_to_contain_text("Credencial válida")
    expect(card.locator(GREEN)).to_have_count(0)
    note = card.locator("[data-standing]")
    expect(note.locator(".standing-title")).to_have_text("Veículo em dia")
    expect(note).to_contain_text("o problema acima é do condutor")
    # each row its own subject's dates: the vehicle's sticker, the rider's badge
    expect(card.locator("h2 + ul.expiries li", has_text="Credencial")).to_have_text(
        f"Credencial{_fmt(vehicle_expires)}")
    expect(card.locator(".driver .expiries li", has_text="Credencial")).to_have_text(
        f"Credencial (crachá){_fmt(badge_expires)}")
    context.close()


def test_a_genuine_token_behind_another_address_is_a_possible_fraud(browser, live_server, app,
                                                                    world):
    token, _ = _credential(app, world)
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    host = "pix-mototaxi-tapurah.example.net"
    card = _handle(page, f"https://{host}/v/{token}")
    fraud = f"QR aponta para outro endereço ({host}): não é o endereço oficial — possível fraude"
    expect_banner(card, "irregular", "IRREGULAR", [fraud])
    verdict = card.locator(".verdict")
    expect(verdict).to_have_attribute("data-verdict", "wrong_host")
    expect(verdict).to_have_class("verdict verdict-bad verdict-line")
    expect(verdict).to_contain_text("possível fraude")
    expect(card.locator("[data-standing]")).to_have_attribute("data-standing", "irregular")
    expect(card.locator(GREEN)).to_have_count(0)
    expect(card.locator(".plate")).to_contain_text(world["plate"])   # whose token it carries

    # The official address (PUBLIC_BASE_URL, told by the snapshot) and a typed token pass.
    for text in (world["url"], token):
        page.locator("#screen-result [data-go=home]").click()
        card = _handle(page, text)
        expect(card.locator(".verdict")).to_have_attribute("data-verdict", "valid")
        expect(card.locator(".verdict-title")).to_have_text("Credencial válida")
        expect_banner(card, "regular", "REGULAR")

    # A phone whose data predates the snapshot's address: the app's own origin is the official one.
    page.evaluate("""async () => { const t = await window.fieldApp.store.getMeta('town');
        delete t.public_base_url; await window.fieldApp.store.setMeta('town', t); }""")
    for text, verdict in ((f"{live_server.url}/v/{token}", "valid"), (world["url"], "wrong_host")):
        page.locator("#screen-result [data-go=home]").click()
        card = _handle(page, text)
        expect(card.locator(".verdict")).to_have_attribute("data-verdict", verdict)
    assert guard.foreign() == []
    context.close()
