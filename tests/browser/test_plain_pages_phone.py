"""On a 360 px phone, in Chromium: the passenger's report form names the plate and prefix it
reports before anything else and every link, button and field on it is at least 44 x 44 CSS
px (the "Voltar" link was 21 px tall); the public document page says in words first whether
the document is authentic, the SHA-256 below as a detail; and the holder's page, the
authenticity page, the credential's page and the credentials search have no axe violation."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from inspector.credentials import issuing
from inspector.extensions import db
from tests import factories
from tests.browser.field_helpers import sign_in
from tests.support.credentials import regular_mototaxi
from tests.support.holder import tapurah_notice

pytestmark = pytest.mark.browser
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 360, "height": 780}
TAP = 44


def _phone(browser, live_server, axe: bool = False):
    context = browser.new_context(base_url=live_server.url, locale="pt-BR", viewport=PHONE)
    if axe:
        context.add_init_script(path=str(AXE))
    context.set_default_timeout(20_000)
    return context


def _axe(page) -> list[str]:
    result = page.evaluate("async () => await axe.run(document)")
    assert len(result["passes"]) > 10, "axe did not run"
    return [f"{page.url}: {v['id']} ({v['impact']}) at "
            + ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
            for v in result["violations"]]


def test_report_form_names_the_vehicle_and_every_target_is_tap_sized(app, browser, live_server):
    with app.app_context():
        v = regular_mototaxi("tapurah", plate="QBA1D23")
        v.prefix = "TMT07"
        path = urlsplit(issuing.public_url(issuing.issue(v).token)).path
        db.session.commit()
    context = _phone(browser, live_server)
    try:
        page = context.new_page()
        page.goto(path + "/denunciar")
        page.wait_for_load_state("load")
        top = page.locator("#denunciado")
        assert "QBA1D23" in top.inner_text().replace("-", "") and "TMT07" in top.inner_text()
        # the vehicle comes before the form's first field
        assert top.bounding_box()["y"] < page.locator("#categoria").bounding_box()["y"]
        small = page.evaluate("""(tap) => [...document.querySelectorAll(
              'main a, main button, main input, main select, main textarea')]
            .filter(e => e.offsetParent !== null && !e.closest('[aria-hidden=true]'))
            .map(e => [e.textContent.trim() || e.name || e.id, e.getBoundingClientRect()])
            .filter(([, r]) => r.width < tap || r.height < tap)
            .map(([n, r]) => `${n}: ${Math.round(r.width)}x${Math.round(r.height)}`)""", TAP)
        assert small == []
        back = page.get_by_role("link", name="Voltar").bounding_box()
        assert back["height"] >= TAP and back["width"] >= TAP
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    finally:
        context.close()


def test_authenticity_page_says_authentic_first_and_holder_page_is_clean(app, browser,
                                                                          live_server):
    n = tapurah_notice(app)
    context = _phone(browser, live_server, axe=True)
    try:
        page = context.new_page()
        page.goto(f"/documentos/{n['path']}")
        page.wait_for_load_state("load")
        words = page.locator("main").inner_text().split()
        assert words[:2] == ["Documento", "autêntico"]
        text = page.locator("main").inner_text()
        assert text.index("Documento autêntico") < text.index("SHA-256")
        # above the fold on the phone
        assert page.get_by_role("heading", name="Documento autêntico").bounding_box()["y"] < 200
        problems = _axe(page)

        page.goto(f"/notificacoes/{n['path']}")
        page.fill("#codigo", n["code"])
        page.click("button[type=submit]")
        page.locator("[data-if-not-done]").wait_for()
        assert n["appeal_until"] in page.locator("[data-appeal-how]").inner_text()
        pdf = page.request.get(page.locator("[data-pdf]").get_attribute("href"))
        assert pdf.status == 200 and pdf.headers["content-type"] == "application/pdf"
        problems += _axe(page)
        assert problems == []
    finally:
        context.close()


def test_credential_pages_have_no_accessibility_violation(app, browser, live_server):
    with app.app_context():
        v = regular_mototaxi("tapurah", plate="QBA1D23")
        cred = issuing.issue(v.drivers[0])
        admin = factories.user("admin", "tapurah")
        db.session.commit()
        cid, username = cred.id, admin.username
    context = _phone(browser, live_server, axe=True)
    try:
        page = context.new_page()
        sign_in(page, username, f"/credenciais/{cid}")
        problems = _axe(page)
        page.goto("/credenciais?q=QBA1D23")
        page.wait_for_load_state("load")
        assert page.locator("#results a.row-link").count() == 1
        problems += _axe(page)
        assert problems == []
    finally:
        context.close()
