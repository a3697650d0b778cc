"""Staff pages on a 360 x 740 phone (Debian Chromium, real server): the header shows the
whole name and the whole "role · town" (each account sees only its own town), wrapping onto
a second line instead of ending in "…", and stays compact; the links people tap in the
dashboard's tables, the town setup's steps, the town calendar's years, the credentials list
and the acts list are at least 44 x 44 px. On a desktop the header keeps one line each."""
from __future__ import annotations

import pytest

from tests import factories
from tests.browser.field_helpers import sign_in
from tests.support.dashboard import PERIOD

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}
TAP = 44
NAME = "Vilmar Capeletti Ruaro"
BOXES = """sel => [...document.querySelectorAll(sel)].map(e => {
  const r = e.getBoundingClientRect();
  return {text: e.textContent.trim(), w: r.width, h: r.height, right: r.right};
})"""
FITS = """sel => { const e = document.querySelector(sel); const r = e.getBoundingClientRect();
  return {fits: e.scrollWidth <= e.clientWidth + 1, right: r.right, h: r.height,
          text: e.innerText}; }"""


@pytest.fixture
def staff(app):
    """Tapurah's month of work (tests/support/dashboard.py), a credential issued, and an
    admin with a long name; an admin of Nova Santa Helena (the longest town name)."""
    from inspector.credentials import issuing
    from inspector.extensions import db
    from tests.support import dashboard
    from tests.support.credentials import regular_mototaxi

    with app.app_context():
        dashboard.build()
        issuing.issue(regular_mototaxi("tapurah", plate="QBZ9Z99"))
        admin = factories.user("admin", "tapurah", name=NAME)
        far = factories.user("supervisor", "nova-santa-helena", name=NAME)
        db.session.commit()
        return {"admin": admin.username, "far": far.username}


def _small(page, selector: str) -> list[dict]:
    boxes = page.evaluate(BOXES, selector)
    assert boxes, selector
    return [b for b in boxes if b["w"] < TAP or b["h"] < TAP]


def test_tap_targets_of_the_staff_pages_are_44_px(page, staff):
    page.set_viewport_size(PHONE)
    sign_in(page, staff["admin"], "/inicio")
    for path, selector in ((f"/painel?{PERIOD}", "table.numbers td a"),
                           ("/municipio", ".setup-steps td a"),
                           ("/conformidade/calendario", "nav[aria-label='Ano'] a"),
                           ("/credenciais", "a.row-link"),
                           ("/revisao/atos", "a.row-link")):
        page.goto(path)
        page.wait_for_load_state("load")
        assert _small(page, selector) == [], path
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"], path


@pytest.mark.parametrize("who", ["admin", "far"])
def test_the_header_shows_the_whole_name_and_town_on_a_phone(page, staff, who):
    page.set_viewport_size(PHONE)
    sign_in(page, staff[who], "/inicio")
    name, town = page.evaluate(FITS, ".who-name"), page.evaluate(FITS, ".who-town")
    for part in (name, town):
        assert part["fits"] and part["right"] <= PHONE["width"], part   # nothing cut off
    assert " ".join(name["text"].split()) == NAME
    assert town["text"].endswith("Tapurah" if who == "admin" else "Nova Santa Helena")
    assert page.locator(".topbar").bounding_box()["height"] <= 150     # still compact
    out = page.get_by_role("button", name="Sair").bounding_box()
    assert out["width"] >= TAP and out["height"] >= TAP


def test_the_header_keeps_one_line_each_on_a_desktop(page, staff):
    page.set_viewport_size({"width": 1280, "height": 800})
    sign_in(page, staff["far"], "/inicio")
    for selector in (".who-name", ".who-town"):
        part = page.evaluate(FITS, selector)
        assert part["fits"] and part["h"] < 30, (selector, part)
