"""The result card after days offline, in Chromium: the phone's standing is the server's verdict
for the day of the last refresh, and a licence that expired since then must not read REGULAR.
The snapshot is loaded today with the moto-taxi's licence ending in 5 days (the server's verdict:
REGULAR, "Alvará … vence em …"); the phone's clock then reads 10 days later, offline. The banner
and the card's standing say IRREGULAR and name the licence, the day it expired and the law's
article, as the expiry line below says "Alvará … (vencido)". The same moto-taxi with its licence in force
stays REGULAR 10 days later. A licence that ends beyond the server's 30 days of warnings reads
IRREGULAR with its article too: the snapshot says what the law requires (`checklists[].
requirements`)."""
from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import expect_banner, start_online

pytestmark = pytest.mark.browser

LATER = 10  # days the phone stays offline after the refresh


def _licence_ends(app, world, days: int) -> tuple[str, str]:
    """Move the moto-taxi's licence end to `days` from today (with its audit entry, as the
    registry does); its number and the end as the card prints it."""
    from inspector import audit
    from inspector.extensions import db
    from inspector.models import Vehicle

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
    banner = expect_banner(card, "irregular", "IRREGULAR", [
        f"Veículo {world['plate']} IRREGULAR: Alvará {number} vencido em {end}, depois da "
        "última atualização dos dados do aparelho (Lei 406/2001, Art. 4)"])
    expect(banner.locator(".situation-lines a.cite")).to_have_attribute(
        "href", "/leis/tapurah-lei-406-2001-mototaxi#art-4")
    # the card below agrees: its standing, the reason, the expiry line
    expect(card.locator(".standing")).to_have_attribute("data-standing", "irregular")
    expect(card.locator(".standing-title")).to_have_text("IRREGULAR")
    expect(card.locator(".reasons li")).to_contain_text([f"Alvará {number} vencido em {end}"])
    expect(card.locator(".warnings li", has_text=f"Alvará {number} vence em")).to_have_count(0)
    expect(card.locator(".expiries li", has_text="Alvará")).to_contain_text(f"{end} (vencido)")
    assert guard.foreign() == []
    context.close()


def test_a_licence_still_in_force_stays_regular(browser, live_server, app, world):
    number, end = _licence_ends(app, world, days=LATER + 5)
    context, guard, card = _card_days_later(browser, live_server, world)
    banner = expect_banner(card, "regular", "REGULAR")
    expect(banner.locator(".situation-lines")).to_have_text("Veículo em dia nos dados do aparelho.")
    expect(card.locator(".standing-title")).to_have_text("REGULAR")
    expect(card.locator(".expiries li", has_text="Alvará")).to_contain_text(
        f"{end} (vence em 5 dias)")
    assert guard.foreign() == []
    context.close()


def test_a_licence_ended_beyond_the_warnings_is_irregular_with_its_article(browser, live_server,
                                                                           app, world):
    """40 days offline: the licence ended 35 days after the refresh, beyond the server's 30 days
    of warnings. The snapshot says the law asks for a licence and where (`checklists[].
    requirements`): IRREGULAR with the article, never REGULAR beside "(vencido)"."""
    number, end = _licence_ends(app, world, days=35)
    context, guard, card = _card_days_later(browser, live_server, world, later=40)
    expect_banner(card, "irregular", "IRREGULAR", [
        f"Veículo {world['plate']} IRREGULAR: Alvará {number} vencido em {end}, depois da "
        "última atualização dos dados do aparelho (Lei 406/2001, Art. 4)"])
    expect(card.locator(".standing-title")).to_have_text("IRREGULAR")
    expect(card.locator(".expiries li", has_text="Alvará")).to_contain_text(f"{end} (vencido)")
    assert guard.foreign() == []
    context.close()


JUDGE = """async () => {
    const { driverProblems, standingToday } = await import('/static/js/field/situation.js');
    const cite = (article) => ({ law: 'Lei 406/2001', article, law_slug: 'x', anchor: 'a' });
    const req = { licence: { citation: cite('Art. 4') }, permit: { citation: cite('Art. 6') },
        insurance: { citation: cite('Art. 17') }, cnh: { citation: cite('Art. 20, I') },
        driver_registration: { citation: cite('Art. 3') },
        vistoria: { months: 6, citation: cite('Art. 23'), shortened_citation: cite('Art. 32') },
        vehicle_age: { irregular_at_age: 6, limit_years: 5, citation: cite('Art. 13') },
        cnh_category: { category: 'A', citation: cite('Art. 20, I') } };
    const vehicle = { id: 1, year_of_manufacture: 2024, last_vistoria_on: '2026-10-01', holder_id: 1 };
    const licence = { number: 'AL-9', status: 'active', valid_from: '2026-01-01', valid_until: '2027-06-01' };
    const permit = { number: 'P-7', status: 'active', valid_from: '2024-01-01', valid_until: null };
    const insurance = [{ valid_from: '2026-01-01', valid_until: '2027-06-01' }];
    const regular = { vehicle_id: 1, status: 'regular', reasons: [], warnings: [] };
    const facts = (over = {}) => ({ vehicle, licence, permit, insurance, requirements: req, ...over });
    const judged = (f, s = regular) => {
        const out = standingToday(s, f);
        return { status: out.status, reasons: out.reasons.map((r) => r.message),
                 cited: out.reasons.map((r) => r.citation && r.citation.article),
                 warnings: out.warnings.map((w) => w.rule_id) };
    };
    return {
        regular: judged(facts()),
        insurance: judged(facts({ insurance: [{ valid_from: '2026-01-01', valid_until: '2026-12-04' }] })),
        renewed: judged(facts({ insurance: [{ valid_from: '2026-01-01', valid_until: '2026-12-04' },
                                            { valid_from: '2026-12-05', valid_until: '2027-12-04' }] })),
        last_day: judged(facts({ licence: { ...licence, valid_until: '2026-12-10' } })),
        vistoria: judged(facts({ vehicle: { ...vehicle, last_vistoria_on: '2026-06-09' } })),
        shortened: judged(facts({ vehicle: { ...vehicle, vistoria_valid_until: '2026-12-01' } })),
        age: judged(facts({ vehicle: { ...vehicle, year_of_manufacture: 2020 } })),
        // with the CRLV's day the vehicle is out the day after its fifth anniversary (DOMAIN
        // "completarem N anos"), as the engine's age_limit; "anos de uso" from the licensing
        age_day: judged(facts({ vehicle: { ...vehicle, year_of_manufacture: 2021,
                                           manufactured_on: '2021-12-05' } })),
        age_day_soon: judged(facts({ vehicle: { ...vehicle, year_of_manufacture: 2021,
                                                manufactured_on: '2021-12-20' } })),
        age_use: judged(facts({
            requirements: { ...req, vehicle_age: { ...req.vehicle_age, counts_use: true } },
            vehicle: { ...vehicle, year_of_manufacture: 2021, manufactured_on: '2021-01-10',
                       first_licensed_on: '2021-12-20' } })),
        ended: judged(facts({ licence: { ...licence, status: 'suspended', suspended_until: '2026-12-09' } }),
            { vehicle_id: 1, status: 'suspended', suspended_until: '2026-12-09', warnings: [],
              reasons: [{ rule_id: 'licence.suspended', message: 'Alvará AL-9 suspenso até 09/12/2026.' }] }),
        running: judged(facts({ licence: { ...licence, status: 'suspended',
                                           suspended_until: '2026-12-31' } })),
        kept: judged(facts(), { ...regular, status: 'irregular',
            reasons: [{ rule_id: 'vehicle.cc.min', message: 'Motocicleta de 100 cc.' }] }),
        no_requirements: judged(facts({ requirements: null }), { ...regular, warnings: [
            { rule_id: 'insurance.due', message: 'Seguro obrigatório vence em 04/12/2026.',
              due_on: '2026-12-04' }] }),
        // the engine's citations: the validity article for an expired Alvará, the sanction's
        // for a suspended one, the requiring article for a missing one (Sapezal 060/1998)
        ...(() => {
            const sap = { ...req, licence: { citation: cite('Art. 1'), validity_citation: cite('Art. 10'),
                                             sanction_citation: cite('Art. 20, IV') } };
            const cited = (over) => judged(facts({ requirements: sap, ...over })).cited;
            return { sap_expired: cited({ licence: { ...licence, valid_until: '2026-12-01' } }),
                     sap_suspended: cited({ licence: { ...licence, status: 'suspended',
                                                       suspended_until: '2026-12-31' } }),
                     sap_missing: cited({ licence: null }) };
        })(),
        driver_ended: driverProblems({ status: 'suspended', suspended_until: '2026-12-09' }, req)
            .map((p) => p.text),
        driver_category: driverProblems({ status: 'active', cnh_category: 'B' }, req).map((p) => p.text),
        unknown_driver: driverProblems({ status: 'inactive' }).map((p) => p.text),
        revoked_driver: driverProblems({ status: 'revoked' }).map((p) => p.text),
        // Nortelândia 127 Art. 8 § único: 30 days to revalidate, then cancelled
        ...Object.fromEntries([['last_grace_day', '2026-11-10'],
                               ['cancelled', '2026-11-09'], ['no_grace', '2026-11-09']].map(([k, day]) => {
            const grace = k === 'no_grace' ? null : { days: 30, citation: cite('Art. 8, § único') };
            const r = { driver_registration: { citation: cite('Art. 3') }, registration_grace: grace };
            const got = driverProblems({ status: 'active', registration_expiry: day }, r);
            return [k, got.map((p) => [p.text, p.citation && p.citation.article])];
        })),
    };
}"""


def test_each_requirement_is_judged_on_the_phones_day(page):
    """One rule per requirement, on the phone's 10/12/2026, from the rows and the law's
    requirements: what ended before today is irregular with its article (a renewal already in
    force keeps the insurance), what ends today still holds, a suspension whose last day is
    over no longer holds; without the law's requirements a passed day reads SEM SITUAÇÃO."""
    page.clock.set_fixed_time(datetime(2026, 12, 10, 12, 0))
    page.goto("/entrar")
    got = page.evaluate(JUDGE)
    since = "depois da última atualização dos dados do aparelho"
    assert got["regular"] == {"status": "regular", "reasons": [], "cited": [], "warnings": []}
    assert got["insurance"] == {"status": "irregular", "warnings": [], "cited": ["Art. 17"],
                                "reasons": [f"Seguro obrigatório vencido em 04/12/2026, {since}"]}
    assert got["renewed"] == {"status": "regular", "reasons": [], "cited": [], "warnings": []}
    assert got["last_day"] == {"status": "regular", "reasons": [], "cited": [],
                               "warnings": ["licence.due"]}
    assert got["vistoria"]["reasons"] == [
        f"Vistoria vencida desde 09/12/2026 (a última foi em 09/06/2026), {since}"]
    assert got["shortened"]["reasons"] == [
        f"Vistoria vencida desde 01/12/2026 (validade reduzida na vistoria) (a última foi em "
        f"01/10/2026), {since}"] and got["shortened"]["cited"] == ["Art. 32"]
    assert got["age"] == {"status": "irregular", "warnings": [], "cited": ["Art. 13"], "reasons": [
        f"Veículo fabricado em 2020 atingiu o limite de idade (5 anos) em 01/01/2026, {since}"]}
    assert got["age_day"] == {"status": "irregular", "warnings": [], "cited": ["Art. 13"], "reasons": [
        f"Veículo fabricado em 05/12/2021 atingiu o limite de idade (5 anos) em 06/12/2026, {since}"]}
    assert got["age_day_soon"]["status"] == "regular"   # out on 21/12/2026
    assert got["age_day_soon"]["warnings"] == ["vehicle.age.due"]
    assert got["age_use"]["status"] == "regular"        # in use since 20/12/2021: 5 years on 20/12
    assert got["ended"] == {"status": "regular", "reasons": [], "cited": [],
                            "warnings": ["licence.suspension_ended"]}
    assert got["running"]["status"] == "suspended"
    assert got["kept"] == {"status": "irregular", "reasons": ["Motocicleta de 100 cc."],
                           "cited": [None], "warnings": []}
    assert got["no_requirements"]["status"] == "unknown"
    assert got["driver_ended"] == []
    assert got["driver_category"] == ["CNH categoria B: é exigida a categoria A"]
    assert got["unknown_driver"] == ["registro em situação não reconhecida pelo aparelho"]
    assert got["revoked_driver"] == ["registro CASSADO"]
    assert got["sap_expired"] == ["Art. 10"] and got["sap_suspended"] == ["Art. 20, IV"]
    assert got["sap_missing"] == ["Art. 1"]
    # a registration expired on 10/11 may still be revalidated on 10/12, its 30th day
    # the message names the day the thing happens: the registration expired
    # on 09/11, revalidable until 09/12 (its 30th day), is cancelled on 10/12
    assert got["last_grace_day"] == [[
        "registro VENCIDO em 10/11/2026; sem revalidação até 10/12/2026 será CANCELADO em "
        "11/12/2026", "Art. 8, § único"]]
    assert got["cancelled"] == [[
        "registro CANCELADO automaticamente em 10/12/2026: não revalidado em até 30 dias do "
        "vencimento", "Art. 8, § único"]]
    assert got["no_grace"] == [["registro VENCIDO em 09/11/2026", "Art. 3"]]
