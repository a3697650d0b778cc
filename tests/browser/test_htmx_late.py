"""Pages whose search box or filters ask the server through htmx still answer what a user set
before htmx had run: on a slow connection the page is on screen, and usable, before the deferred
htmx.min.js, so the first keystrokes or the first choice in a filter reach no listener."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import sign_in

pytestmark = pytest.mark.browser


def _open_holding_htmx(page, path: str):
    """Open path with htmx.min.js held back; return the held route once the page asked for it."""
    held = []
    page.route("**/vendor/htmx.min.js", lambda route: held.append(route))
    page.goto(path, wait_until="commit")
    return held


def _wait_asked(page, held) -> None:
    for _ in range(100):
        if held:
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page never asked for htmx")


def test_a_search_typed_before_htmx_is_ready_still_searches(page, make):
    """On a slow connection the box is on screen before htmx.min.js has run, so the keystrokes'
    input events reach nobody; once htmx is ready the page searches for what is in the box."""
    admin = make(factories.user, "admin", "tapurah")
    make(factories.vehicle, "tapurah", plate="QBC1D23")
    make(factories.vehicle, "tapurah", plate="QZZ9Z99")
    sign_in(page, admin.username, "/inicio")

    held = _open_holding_htmx(page, "/cadastro/veiculos")
    page.locator("#q").press_sequentially("QBC1", delay=30)
    _wait_asked(page, held)
    expect(page.locator("#results")).to_contain_text("QZZ9Z99")  # nothing searched yet

    with page.expect_response(lambda r: "q=QBC1" in r.url) as search:
        held[0].continue_()
    assert search.value.request.headers.get("hx-request") == "true"
    expect(page.locator("#results")).to_contain_text("QBC1D23")
    expect(page.locator("#results")).not_to_contain_text("QZZ9Z99")


def test_a_filter_chosen_before_htmx_is_ready_still_filters(page, make):
    """The supervisor's list of acts: "Situação" chosen while htmx was still loading."""
    supervisor = make(factories.user, "supervisor", "tapurah")
    sign_in(page, supervisor.username, "/inicio")

    held = _open_holding_htmx(page, "/revisao/atos")
    page.locator("select[name=situacao]").select_option("confirmed")
    _wait_asked(page, held)

    with page.expect_response(lambda r: "situacao=confirmed" in r.url) as answer:
        held[0].continue_()
    assert answer.value.request.headers.get("hx-request") == "true"
    assert answer.value.status == 200
    expect(page).to_have_url(re.compile(r"/revisao/atos\?situacao=confirmed"))  # pushed by htmx


def test_pages_nobody_touched_ask_for_nothing_more(page, make):
    """The check above runs on every page: filters as the server drew them (a select showing
    its first option, none marked selected; a search box filled from the address) are not an
    edit, so opening a page sends no second request (it sent one, with '&tipo=' added)."""
    supervisor = make(factories.user, "supervisor", "tapurah")
    sign_in(page, supervisor.username, "/inicio")
    asked = []
    page.on("request", lambda r: r.headers.get("hx-request") and asked.append(r.url))
    for path in ("/revisao/atos", "/revisao/atos?situacao=confirmed", "/revisao",
                 "/cadastro/veiculos?q=QB"):
        page.goto(path)
        page.wait_for_load_state("load")
        page.wait_for_timeout(400)  # htmx has processed the page and would have asked
    assert asked == []
