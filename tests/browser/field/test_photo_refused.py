"""A photo the server refuses for good (docs/sync.md §3), in the field app
(Debian Chromium, real server): an inspection saved offline with one damaged photo and one
good one. After the sync the server holds the inspection and the good photo, and no longer
waits for the damaged one (refused for good: the inspection is complete, awaiting review);
the damaged one is never sent again (not by "Sincronizar", not by a timer), the counters
count nothing waiting but one inspection needing attention, and the queue screen shows the
refused photo with the server's words and "Dispensar" (nothing left to try again) until the
agent dismisses it.
Server state is read from the database, never through the browser under test.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    inspect_by_plate,
    jpeg_file,
    server_inspections,
    start_online,
)

pytestmark = pytest.mark.browser
PHOTO_PUT = re.compile(r"/api/field/inspections/[0-9a-f-]{36}/photos/([0-9a-f-]{36})$")


def test_a_damaged_photo_is_refused_once_the_rest_is_sent_and_the_queue_shows_it(
        browser, live_server, app, world, tmp_path):
    good_path, broken_path = tmp_path / "good.jpg", tmp_path / "broken.jpg"
    good = jpeg_file(good_path, 11)
    broken = jpeg_file(broken_path, 12)
    broken = broken[: len(broken) * 2 // 3]  # cut short, as a storage fault leaves a file
    broken_path.write_bytes(broken)

    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    inspect_by_plate(page, world["plate"], [broken_path, good_path])
    broken_id, good_id = page.evaluate("""async () => {
        const [entry] = await window.fieldApp.store.outboxEntries();
        return entry.body.items.flatMap(i => i.photos.map(p => p.id));
    }""")

    photo_puts: list[str] = []
    inspection_puts: list[str] = []

    def count(request):
        if request.method != "PUT" or "/api/field/inspections/" not in request.url:
            return
        found = PHOTO_PUT.search(request.url)
        (photo_puts.append(found.group(1)) if found else inspection_puts.append(request.url))

    context.on("request", count)
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-attention")).to_contain_text("1 vistoria precisa de atenção")
    # the inspection is on the server and the refused photo waits for nothing: none counted
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio")
    assert photo_puts.count(broken_id) == 1 and photo_puts.count(good_id) == 1

    [held] = server_inspections(app)
    assert held["status"] == "awaiting_review"  # no longer "Aguardando fotos"
    by_uuid = {p["uuid"]: p["data"] for p in held["photos"]}
    assert by_uuid == {good_id: good, broken_id: None}

    # the agent presses "Sincronizar" again: nothing is sent, the queue screen tells why
    sent_before = len(inspection_puts)
    page.get_by_role("button", name="Sincronizar").click()
    page.wait_for_timeout(1_000)
    assert len(inspection_puts) == sent_before and photo_puts.count(broken_id) == 1
    page.get_by_role("button", name="Fila de envio").click()
    entry = page.locator(".outbox-entry")
    expect(entry).to_have_attribute("data-state", "attention")
    expect(entry).to_contain_text("Precisa de atenção: Foto recusada: A foto está danificada "
                                  "ou incompleta. Tire a foto de novo. A vistoria chegou ao "
                                  "servidor sem ela: faça uma nova vistoria com a foto.")
    refused = entry.locator(f'.outbox-refused li[data-photo="{broken_id}"]')
    expect(refused).to_contain_text("Foto recusada pelo servidor")
    expect(refused).to_contain_text("A foto está danificada ou incompleta. Tire a foto de novo.")
    expect(refused).to_contain_text("faça uma nova vistoria com a foto")
    expect(entry.get_by_role("button", name="Tentar de novo")).to_have_count(0)
    # the damaged photo is still on the phone until the agent dismisses it, the good one gone
    kept = page.evaluate("""async (ids) => Promise.all(ids.map(async (id) => {
        const photo = await window.fieldApp.store.getPhoto(id);
        return photo ? photo.bytes.byteLength : null;
    }))""", [broken_id, good_id])
    assert kept == [len(broken), None]

    entry.get_by_role("button", name="Dispensar").click()
    expect(page.locator(".outbox-entry")).to_have_count(0)
    expect(page.locator("#pending-attention")).to_be_hidden()
    assert page.evaluate("""async (id) => (await window.fieldApp.store.getPhoto(id)) === undefined
        || (await window.fieldApp.store.getPhoto(id)) === null""", broken_id)
    assert photo_puts.count(broken_id) == 1 and photo_puts.count(good_id) == 1
    [held] = server_inspections(app)
    assert {p["uuid"]: p["data"] for p in held["photos"]} == {good_id: good, broken_id: None}
    # "Minhas vistorias" keeps saying it after the queue entry is gone (GET /api/field/reviews)
    page.locator(".bar-home").click()
    with page.expect_response(lambda r: "/api/field/reviews" in r.url):
        page.get_by_role("button", name="Sincronizar").click()
    page.get_by_role("button", name=re.compile("Minhas vistorias")).click()
    told = page.locator(f'.review-refused li[data-photo="{broken_id}"]')
    expect(told).to_contain_text("Foto recusada pelo servidor")
    expect(told).to_contain_text("faça uma nova vistoria com outra foto")
    assert guard.foreign() == []
    context.close()
