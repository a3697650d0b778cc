"""The result card after days offline, in Chromium: the phone's standing is the server's verdict
for the day of the last refresh, and a licence that expired since then must not read REGULAR.
The snapshot is loaded today with the moto-taxi's licence ending in 5 days (the server's verdict:
REGULAR, "Alvará … vence em …"); the phone's clock then reads 10 days later, offline. The banner
and the card's standing say IRREGULAR and name the licence, the day it expired and the law's
article, as the expiry line below says "(vencido)". The same moto-taxi with its licence in force
stays REGULAR 10 days later. A licence that ends beyond the server's 30 days of warnings reads
SEM SITUAÇÃO once ended, never REGULAR."""
from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from playwright.sync_api import expect

from .field_helpers import start_online, world

pytestmark = pytest.mark.browser
__all__ = ["world"]  # the fixture, imported for pytest

LATER = 10  # days the phone stays offline after the refresh


def _licence_ends(app, world, days: int) -> tuple[str, str]:
    """Move the moto-taxi's licence end to `days` from today (with its audit entry, as the
    registry does); its number and the end as the card prints it."""
    from inspector.extensions import db
    from inspector.models import Vehicle
    from inspector.services import audit

    with app.app_context():
        lic = db.session.get(Vehicle, world["vehicle_id"]).current_licence
        before = audit.snapshot(lic)
        lic.valid_until = date.today() + timedelta(days=days)
        audit.record("updated", "licence", lic.id, before=before, after=audit.snapshot(lic),
                     municipality_id=lic.municipality_id)
        db.session.commit()
        out = lic.number, lic.valid_until.strftime("%d/%m/%Y")
        db.session.remove()
        return out


def _card_days_later(browser, live_server, world, later: int = LATER):
    """Refresh the snapshot today, go offline, read the card by plate `later` days later."""
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    page.clock.set_fixed_time(datetime.now() + timedelta(days=later))
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=20_000)
    assert page.evaluate("() => new Date().getTime()") > (
        datetime.now() + timedelta(days=later - 1)).timestamp() * 1000
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    card = page.locator("#result .card")
    expect(card.locator(".plate")).to_contain_text(world["plate"])
    return context, guard, card


def test_a_licence_expired_since_the_refresh_is_not_regular(browser, live_server, app, world):
    number, end = _licence_ends(app, world, days=5)
    context, guard, card = _card_days_later(browser, live_server, world)
    banner = card.locator(".situation")
    expect(banner).to_have_attribute("data-situation", "irregular")
    expect(banner.locator(".situation-title")).to_have_text("IRREGULAR")
    expect(banner.locator(".situation-lines li")).to_have_text([
        f"Veículo {world['plate']} IRREGULAR: Alvará {number} vencido em {end}, depois da "
        "última atualização dos dados do aparelho (Lei 406/2001, Art. 4)"])
    expect(banner.locator(".situation-lines a.cite")).to_have_attribute("href", "/leis/tapurah-lei-406-2001-mototaxi#art-4")
    # the card below agrees: its standing, the reason, the expiry line
    expect(card.locator(".standing")).to_have_attribute("data-standing", "irregular")
    expect(card.locator(".standing-title")).to_have_text("IRREGULAR")
    expect(card.locator(".reasons li")).to_contain_text([f"Alvará {number} vencido em {end}"])
    expect(card.locator(".warnings li", has_text=f"Alvará {number} vence em")).to_have_count(0)
    expect(card.locator(".expiries li", has_text="Licença")).to_contain_text(f"{end} (vencido)")
    assert guard.foreign() == []
    context.close()


def test_a_licence_still_in_force_stays_regular(browser, live_server, app, world):
    number, end = _licence_ends(app, world, days=LATER + 5)
    context, guard, card = _card_days_later(browser, live_server, world)
    banner = card.locator(".situation")
    expect(banner).to_have_attribute("data-situation", "regular")
    expect(banner.locator(".situation-title")).to_have_text("REGULAR")
    expect(banner.locator(".situation-lines")).to_have_text("Veículo em dia nos dados do aparelho.")
    expect(card.locator(".standing-title")).to_have_text("REGULAR")
    expect(card.locator(".expiries li", has_text="Licença")).to_contain_text(
        f"{end} (vence em 5 dias)")
    assert guard.foreign() == []
    context.close()


def test_a_licence_ended_unannounced_is_not_regular_either(browser, live_server, app, world):
    """40 days offline: the licence ended 35 days after the refresh, beyond the server's 30 days
    of warnings, so the snapshot does not say which article asks for it. The phone cannot judge:
    SEM SITUAÇÃO (amber), naming the licence and the day, never REGULAR beside "(vencido)"."""
    number, end = _licence_ends(app, world, days=35)
    context, guard, card = _card_days_later(browser, live_server, world, later=40)
    banner = card.locator(".situation")
    expect(banner).to_have_attribute("data-situation", "unknown")
    expect(banner.locator(".situation-title")).to_have_text("SEM SITUAÇÃO")
    expect(banner.locator(".situation-lines li")).to_have_text([
        f"Veículo {world['plate']} SEM SITUAÇÃO: Alvará {number} vencido em {end}, depois da "
        "última atualização dos dados do aparelho: atualize os dados para saber a situação"])
    expect(card.locator(".standing-title")).to_have_text("SEM SITUAÇÃO")
    expect(card.locator(".expiries li", has_text="Licença")).to_contain_text(f"{end} (vencido)")
    assert guard.foreign() == []
    context.close()


JUDGE = """async () => {
    const { driverProblems, standingToday } = await import('/static/js/field/situation.js');
    const cite = { law: 'Lei 406/2001', article: 'Art. 17', law_slug: 'x', anchor: 'art-17' };
    const due = (rule_id, message, due_on) => ({ rule_id, message, due_on, citation: cite, severity: 'warning' });
    const ended = { number: 'AL-9', status: 'active', valid_until: '2026-12-01' };
    const regular = (...warnings) => ({ vehicle_id: 1, status: 'regular', reasons: [], warnings });
    const judged = (s, insurance) => {
        const out = standingToday(s, insurance);
        return { status: out.status, reasons: out.reasons.map((r) => r.message),
                 warnings: out.warnings.map((w) => w.rule_id) };
    };
    return {
        insurance: judged(regular(due('insurance.due', 'Seguro obrigatório vence em 04/12/2026.', '2026-12-04'))),
        renewed: judged(regular(due('insurance.due', 'Seguro obrigatório vence em 04/12/2026.', '2026-12-04')),
                        { insurance: [{ valid_from: '2026-12-05', valid_until: '2027-12-04' }] }),
        licence_unsaid: judged(regular(), { licence: ended }),
        licence_said: judged(regular(due('licence.due', 'Alvará AL-9 vence em 01/12/2026.', '2026-12-01')),
                             { licence: ended }),
        licence_valid: judged(regular(), { licence: { ...ended, valid_until: '2026-12-10' } }),
        vistoria: judged(regular(due('vistoria.due', 'Vistoria vence em 09/12/2026.', '2026-12-09'))),
        last_day: judged(regular(due('permit.due', 'Permissão P-7 vence em 10/12/2026.', '2026-12-10'))),
        age: judged(regular(due('vehicle.age.due', 'Veículo fabricado em 2018 atinge o limite de idade em 10/12/2026.', '2026-12-10'))),
        suspended: judged({ status: 'suspended', suspended_until: '2027-01-31', reasons: [{ message: 'Alvará A-1 suspenso até 31/01/2027.' }],
                            warnings: [due('licence.due', 'Alvará A-1 vence em 01/12/2026.', '2026-12-01')] }),
        unknown_driver: driverProblems({ status: 'inactive' }).map((p) => p.text),
        revoked_driver: driverProblems({ status: 'revoked' }).map((p) => p.text),
    };
}"""


def test_each_dated_fact_is_judged_on_the_phones_day(page):
    """The one rule, on the phone's 10/12/2026: what fell due before today has passed since the
    refresh (a renewal already in force keeps the insurance), what ends today still holds; an
    unknown registration status reads in Portuguese."""
    page.clock.set_fixed_time(datetime(2026, 12, 10, 12, 0))
    page.goto("/entrar")
    got = page.evaluate(JUDGE)
    since = "depois da última atualização dos dados do aparelho"
    assert got["insurance"] == {"status": "irregular", "warnings": [], "reasons": [
        f"Seguro obrigatório vencido em 04/12/2026, {since}"]}
    assert got["renewed"] == {"status": "regular", "reasons": [], "warnings": ["insurance.due"]}
    assert got["vistoria"]["reasons"] == [f"Vistoria vencida em 09/12/2026, {since}"]
    assert got["last_day"] == {"status": "regular", "reasons": [], "warnings": ["permit.due"]}
    assert got["age"] == {"status": "irregular", "warnings": [], "reasons": [
        f"Veículo fabricado em 2018 atingiu o limite de idade em 10/12/2026, {since}"]}
    assert got["suspended"] == {"status": "irregular", "warnings": [], "reasons": [
        "Alvará A-1 suspenso até 31/01/2027.", f"Alvará A-1 vencido em 01/12/2026, {since}"]}
    assert got["licence_unsaid"] == {"status": "unknown", "warnings": [], "reasons": [
        f"Alvará AL-9 vencido em 01/12/2026, {since}: atualize os dados para saber a situação"]}
    assert got["licence_said"] == {"status": "irregular", "warnings": [], "reasons": [
        f"Alvará AL-9 vencido em 01/12/2026, {since}"]}
    assert got["licence_valid"] == {"status": "regular", "reasons": [], "warnings": []}
    assert got["unknown_driver"] == ["registro em situação não reconhecida pelo aparelho"]
    assert got["revoked_driver"] == ["registro CASSADO"]
