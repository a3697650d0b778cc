"""The site's header on a phone and on a desktop (Debian Chromium, real server): an agent finds
the field app first thing after signing in; on a 360 x 740 phone an admin's header leaves the
registry search on the first screen, every nav link is reachable (the row scrolls sideways, the
page never does) and every link and "Sair" is at least 44 x 44 px."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import sign_in

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
TAP = 44
WIDTH = "document.scrollingElement.scrollWidth"
ADMIN_LINKS = ["Início", "Cadastro", "Credenciais", "Denúncias", "Conformidade", "Município",
               "Painel", "Revisão", "Prazos", "Notificações", "Senha"]


def _user(app, role: str) -> str:
    from inspector.extensions import db

    with app.app_context():
        u = factories.user(role, "tapurah", name=f"{role.title()} Fulana de Tal")
        db.session.commit()
        name = u.username
        db.session.remove()
        return name


def _nav(page):
    return page.get_by_role("navigation", name="Principal")


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None, locator
    return box


def test_an_agent_finds_the_field_app_first_and_opens_it(app, page):
    agent = _user(app, "agent")
    page.set_viewport_size(PHONE)
    sign_in(page, agent, "/inicio")
    tiles = page.locator(".tiles > a")
    expect(tiles.first).to_have_attribute("href", "/campo")        # the first tile
    expect(tiles.first).to_contain_text("Fiscalização em campo")
    expect(tiles.first).to_be_in_viewport()                        # on the first screen
    expect(_nav(page).get_by_role("link", name="Campo")).to_have_attribute("href", "/campo")

    tiles.first.click()
    expect(page).to_have_url(re.compile(r"/campo$"))
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=20_000)
    expect(page.locator("#screen-home")).to_be_visible()
    expect(page.locator("#who")).to_contain_text("Agent Fulana de Tal")


def test_supervisor_has_the_field_app_and_admin_does_not(app, page):
    """The field API serves agents and supervisors (read only); an admin's session gets 403
    there, so the admin is not offered the app."""
    supervisor, admin = _user(app, "supervisor"), _user(app, "admin")
    sign_in(page, supervisor, "/inicio")
    expect(page.locator(".tiles > a").first).to_have_attribute("href", "/campo")
    expect(_nav(page).get_by_role("link", name="Campo")).to_have_count(1)
    page.get_by_role("button", name="Sair").click()
    expect(page.get_by_text("Você saiu.")).to_be_visible()  # else the next sign-in races the POST
    sign_in(page, admin, "/inicio")
    expect(page.locator('a[href="/campo"]')).to_have_count(0)


def test_admin_header_on_a_phone_leaves_the_search_on_the_first_screen(app, page, make):
    admin = _user(app, "admin")
    make(factories.driver, "tapurah", name="João Batista da Silva")
    page.set_viewport_size(PHONE)
    sign_in(page, admin, "/cadastro/condutores?q=batista")
    search = _box(page.locator("#q"))
    assert search["y"] + search["height"] < PHONE["height"], search
    found = _box(page.locator("#results").get_by_role("link", name="João Batista da Silva"))
    assert found["y"] + found["height"] < PHONE["height"], found  # the answer too, unscrolled
    assert page.evaluate(WIDTH) <= PHONE["width"]

    nav = _nav(page)
    expect(nav.get_by_role("link")).to_have_text(ADMIN_LINKS)
    assert _box(page.locator(".topbar"))["height"] <= 160       # was 394 px with links wrapping
    for name in ADMIN_LINKS:                                     # each reachable, each tappable
        link = nav.get_by_role("link", name=name, exact=True)
        link.scroll_into_view_if_needed()
        box = _box(link)
        assert box["width"] >= TAP and box["height"] >= TAP, (name, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (name, box)
    assert page.evaluate(WIDTH) <= PHONE["width"]               # the row scrolled, not the page
    out = _box(page.get_by_role("button", name="Sair"))
    assert out["width"] >= TAP and out["height"] >= TAP, out
    assert out["x"] + out["width"] <= PHONE["width"]

    # the registry's own link is marked as the current one
    expect(nav.get_by_role("link", name="Cadastro")).to_have_attribute("aria-current", "page")
    nav.get_by_role("link", name="Prazos").click()
    expect(page).to_have_url(re.compile(r"/revisao/prazos$"))


def test_admin_header_on_a_desktop_shows_every_link_at_once(app, page):
    admin = _user(app, "admin")
    page.set_viewport_size(DESKTOP)
    sign_in(page, admin, "/cadastro/condutores")
    nav = _nav(page)
    assert nav.evaluate("n => n.scrollWidth <= n.clientWidth")  # nothing hidden to the side
    for name in ADMIN_LINKS:
        box = _box(nav.get_by_role("link", name=name, exact=True))
        assert box["x"] >= 0 and box["x"] + box["width"] <= DESKTOP["width"], (name, box)
        assert box["y"] + box["height"] <= 200, (name, box)   # all in the header's band
    out = _box(page.get_by_role("button", name="Sair"))
    assert out["width"] >= TAP and out["height"] >= TAP, out
