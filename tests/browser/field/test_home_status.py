"""The field app's home says what the phone holds and when it last delivered,
and a lost answer while online is not called "Sem conexão"."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import saved_offline, start_online, sync_by_hand_until_empty

pytestmark = pytest.mark.browser
INSPECTION = re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$")


def test_home_counts_what_the_phone_holds_and_says_nothing_was_sent_yet(browser, live_server,
                                                                        world):
    context, _, page = start_online(browser, live_server, world["agent"])
    # the world: one moto-taxi and its rider
    expect(page.locator("#freshness")).to_contain_text(": 1 veículo e 1 condutor no aparelho.")
    expect(page.locator("#last-send")).to_have_text("Nenhuma vistoria enviada deste aparelho ainda.")
    context.close()


def test_after_a_sync_home_shows_the_last_send_and_a_reload_keeps_it(browser, live_server,
                                                                     world, tmp_path):
    context, _, page, _ = saved_offline(browser, live_server, world, tmp_path)
    context.set_offline(False)
    sync_by_hand_until_empty(page)
    expect(page.locator("#last-send")).to_have_text(
        re.compile(r"^Último envio: \d\d/\d\d/\d{4} \d\d:\d\d \(1 vistoria\)\.$"))
    page.reload()
    expect(page.locator("#last-send")).to_contain_text("(1 vistoria).")
    context.close()


def test_an_answer_lost_while_online_is_not_reported_as_no_connection(browser, live_server,
                                                                      world, tmp_path):
    context, _, page, _ = saved_offline(browser, live_server, world, tmp_path)

    def lose(route):
        if route.request.method != "PUT":
            return route.continue_()
        route.fetch()                                   # the server stores it...
        return route.abort("internetdisconnected")      # ...the phone never hears back

    context.route(INSPECTION, lose)
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    status = page.locator("#sync-status")
    expect(status).to_contain_text("A conexão caiu antes da resposta do servidor")
    expect(status).not_to_contain_text("Sem conexão")
    context.unroute(INSPECTION)
    sync_by_hand_until_empty(page)
    context.close()
