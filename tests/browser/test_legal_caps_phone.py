"""The law's caps on the number of vehicles, on a 360 x 740 phone in Chromium, through the htmx
Alvará form. Nortelândia (Lei 127/2009 Art. 3: six taxis, no exception): the seventh Alvará
is refused in pt-BR with the article, readable without scrolling sideways, with no decree
field and nothing saved. Sapezal (Lei 060/1998 Art. 14: fifteen taxis; Art. 18: the town may
enlarge the fleet by decree): the sixteenth is refused with a "Decreto e motivo" field, again
without a reason, and saved with one, the reason in the audit log (`registry.cap_override`).
axe-core finds no violation on the refused pages."""
from __future__ import annotations

import json
import re
from datetime import date

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import AuditEntry, Licence, Vehicle
from tests import factories
from tests.browser.field_helpers import axe_violations, sign_in
from tests.support.registry import licensed_taxis

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}
REASON = "Decreto nº 12/2026 amplia a frota para 16 táxis"


def _town_with_a_full_fleet(app, town: str, cap: int) -> tuple[str, str]:
    """`cap` licensed taxis, one more without an Alvará, and the town's admin: (admin, plate)."""
    licensed_taxis(app, town, cap)
    with app.app_context():
        admin = factories.user("admin", town)
        plate = factories.vehicle(town, "taxi").plate
        db.session.commit()
        return admin.username, plate


def _written(app) -> tuple[int, int, int]:
    """Vehicles, licences and audit entries: what a refused save leaves as it was."""
    with app.app_context():
        return tuple(db.session.scalar(select(func.count()).select_from(t))
                     for t in (Vehicle, Licence, AuditEntry))


def _fill_licence(page, plate: str, number: str) -> None:
    """This year's Alvará (Nortelândia Lei 030/1998 Art. 6, Sapezal Lei 060/1998 Art. 10)."""
    year = default_day().year
    page.fill("#f-number", number)
    page.fill("#f-vehicle_plate", plate)
    page.fill("#f-valid_from", date(year, 1, 1).isoformat())
    page.fill("#f-valid_until", date(year, 12, 31).isoformat())


def _submit(page) -> int:
    """Click "Salvar"; the status of the form's htmx POST. A refusal (422) is awaited until htmx
    has swapped it in: before that the page still shows the previous refusal, and a field
    filled then would be replaced by the swap."""
    settled = page.evaluate_handle("""() => ({done: new Promise((resolve) => document
        .addEventListener("htmx:afterSettle", () => resolve(true), {once: true}))})""")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Salvar").click()
    assert answer.value.request.headers.get("hx-request") == "true"
    if answer.value.status == 422:
        assert settled.evaluate("swap => swap.done") is True
    settled.dispose()
    return answer.value.status


def _refusal(page) -> str:
    summary = page.locator(".error-summary")
    expect(summary).to_be_visible()
    return " ".join(summary.inner_text().split())


def _fits(page) -> None:
    """Nothing off the phone's right edge: no sideways scroll, the refusal inside the screen."""
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    box = page.locator(".error-summary").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(base_url=live_server.url, locale="pt-BR", viewport=PHONE)
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def _one_over_the_cap(app, page, town: str, cap: int, number: str) -> tuple[str, tuple, str]:
    """An admin of `town`, whose fleet is full at `cap`, sends one more Alvará (`number`) from
    the phone: refused (422). The vehicle's plate, the counts written before, the refusal's
    words."""
    admin, plate = _town_with_a_full_fleet(app, town, cap)
    sign_in(page, admin, "/cadastro/alvaras/novo")
    _fill_licence(page, plate, number)
    before = _written(app)
    assert _submit(page) == 422
    return plate, before, _refusal(page)


def test_a_seventh_taxi_in_nortelandia_is_refused_with_article_3_on_a_phone(app, phone):
    page = phone
    _, before, why = _one_over_the_cap(app, page, "nortelandia", 6, "007/2026")
    assert "7 veículos licenciados: o limite da lei é 6" in why
    assert "(Lei 127/2009, Art. 3)" in why and "A lei não admite exceção: nada foi gravado" in why
    assert page.locator("#f-acima_do_limite_motivo").count() == 0   # no decree passes Art. 3
    _fits(page)
    assert axe_violations(page, "alvará recusado (Nortelândia)") == []
    assert _written(app) == before
    with app.app_context():
        assert db.session.scalar(select(Licence).filter_by(number="007/2026")) is None


def test_sapezal_passes_its_fleet_cap_on_a_phone_only_with_the_decree_and_a_reason(app, phone):
    page = phone
    plate, before, why = _one_over_the_cap(app, page, "sapezal", 15, "016/2026")
    assert "16 veículos licenciados: o limite da lei é 15" in why
    assert "por decreto (Lei 060/1998, Art. 18)" in why
    reason = page.get_by_label("Decreto e motivo")
    expect(reason).to_be_visible()
    expect(reason).to_have_value("")
    expect(page.locator("#f-number")).to_have_value("016/2026")          # nothing retyped
    _fits(page)
    problems = axe_violations(page, "alvará acima do limite (Sapezal)")

    assert _submit(page) == 422                                         # still no reason
    assert "16 veículos licenciados" in _refusal(page)
    reason.fill("decreto")                                              # under 10 characters
    assert _submit(page) == 422
    assert "O motivo precisa ter de 10 a 500 caracteres" in _refusal(page)
    _fits(page)
    problems += axe_violations(page, "motivo curto (Sapezal)")
    assert problems == []
    assert _written(app) == before

    reason.fill(REASON)
    _submit(page)
    expect(page).to_have_url(re.compile(r"/cadastro/alvaras/\d+$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("016/2026")
    with app.app_context():
        licence = db.session.scalar(select(Licence).filter_by(number="016/2026"))
        assert licence is not None and licence.vehicle.plate == plate
        [entry] = db.session.scalars(
            select(AuditEntry).filter_by(action="registry.cap_override")).all()
        recorded = json.loads(entry.after)
    assert recorded["reason"] == REASON and recorded["rule_id"] == "town.fleet_cap"
    assert (recorded["before"], recorded["after"]) == (15, 16)
    assert recorded["citation"]["article"] == "Art. 14"
    assert recorded["override"]["citation"]["article"] == "Art. 18"
