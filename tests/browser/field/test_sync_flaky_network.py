"""The field app's outbox against a flaky network (Debian Chromium, real server):
lost acknowledgements, a server error on one photo, 200 inspections at once, a refused
inspection parked for the agent, and a later start that fetches only what changed.
Server state is read from the database, never through the browser under test.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    saved_offline,
    server_inspections,
    start_online,
    sync_by_hand_until_empty,
    table_counts,
)

pytestmark = pytest.mark.browser

# ---------- 3. lost acknowledgements ----------

def test_lost_acknowledgements_on_the_inspection_and_a_photo_leave_exactly_one_of_each(
        browser, live_server, app, world, tmp_path):
    context, guard, page, originals = saved_offline(browser, live_server, world, tmp_path,
                                                    (3, 4))

    calls = {"inspection": 0, "photo": 0, "lost_inspection": 0, "lost_photo": 0}

    def lose_first(kind):
        def handler(route):
            if route.request.method != "PUT":
                return route.continue_()
            calls[kind] += 1
            if calls[f"lost_{kind}"] == 0:
                calls[f"lost_{kind}"] += 1
                route.fetch()  # the server commits...
                return route.abort("internetdisconnected")  # ...the phone never hears back
            return route.continue_()
        return handler

    context.route(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$"), lose_first("inspection"))
    context.route(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}/photos/[0-9a-f-]{36}$"),
                  lose_first("photo"))
    context.set_offline(False)
    sync_by_hand_until_empty(page)

    assert calls["lost_inspection"] == 1 and calls["lost_photo"] == 1
    assert calls["inspection"] >= 2 and calls["photo"] >= 2  # both were sent again
    assert table_counts(app) == (1, 2)
    [held] = server_inspections(app)
    assert held["status"] == "awaiting_review"
    assert sorted(p["data"] for p in held["photos"]) == sorted(originals)
    assert guard.foreign() == []
    context.close()


# ---------- 4. a 500 on one photo ----------

def test_a_server_error_on_one_photo_keeps_it_queued_and_only_it_is_sent_again(
        browser, live_server, app, world, tmp_path):
    context, guard, page, _ = saved_offline(browser, live_server, world, tmp_path)
    first, second = page.evaluate("""async () => {
        const [entry] = await window.fieldApp.store.outboxEntries();
        return entry.body.items.flatMap(i => i.photos.map(p => p.id));
    }""")

    puts: list[str] = []
    context.on("request", lambda r: puts.append(r.url.rsplit("/", 1)[1])
               if r.method == "PUT" and "/api/field/" in r.url else None)
    broken = {"on": True}

    def server_error(route):
        if broken["on"]:
            return route.fulfill(status=500, json={"error": "Erro interno.", "status": 500})
        return route.continue_()

    context.route(f"**/photos/{second}", server_error)
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 1 foto aguardando envio")
    expect(page.locator("#sync-status")).to_contain_text("Nova tentativa")
    [held] = server_inspections(app)
    assert held["status"] == "incomplete"
    assert [p["data"] is not None for p in held["photos"]] == [True, False]

    broken["on"] = False
    sync_by_hand_until_empty(page)
    assert puts.count(first) == 1  # the photo that arrived was never sent again
    assert puts.count(second) >= 2
    assert table_counts(app) == (1, 2)
    [held] = server_inspections(app)
    assert held["status"] == "awaiting_review"
    assert guard.foreign() == []
    context.close()


# ---------- 5. two hundred inspections in one go ----------

def test_two_hundred_inspections_saved_offline_all_arrive_once(browser, live_server, app,
                                                              world):
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    ids = page.evaluate("""async (vehicleId) => {
        const { saveInspection } = await import('/static/js/field/inspection.js');
        const store = window.fieldApp.store;
        const vehicle = await store.getRow('vehicles', vehicleId);
        const checklist = await store.getRow('checklists', vehicle.service);
        const version = await store.getMeta('snapshotVersion');
        const ids = [];
        const start = Date.now() - 200 * 600000;
        for (let i = 0; i < 200; i++) {
            ids.push(await saveInspection({
                vehicle, snapshotVersion: version,
                startedAt: new Date(start + i * 600000).toISOString(),
                finishedAt: new Date(start + i * 600000 + 300000).toISOString(),
                answers: checklist.items.map(item => ({ itemId: item.id, result: 'ok' })),
            }));
        }
        return ids;
    }""", world["vehicle_id"])
    assert len(set(ids)) == 200
    page.reload()
    expect(page.locator("#pending-text")).to_have_text("200 vistorias e 0 fotos aguardando envio")

    puts: list[str] = []
    context.on("request", lambda r: puts.append(r.url.rsplit("/", 1)[1])
               if r.method == "PUT" and "/api/field/inspections/" in r.url else None)
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio",
                                                       timeout=90_000)
    expect(page.locator("#sync-status")).to_contain_text("200 vistorias enviadas")
    held = server_inspections(app)
    assert sorted(h["uuid"] for h in held) == sorted(ids)
    assert sorted(puts) == sorted(ids)  # each sent exactly once: nothing failed, nothing resent
    assert guard.foreign() == []
    context.close()


def test_a_refused_inspection_is_shown_and_parked_not_retried_and_never_dropped(
        browser, live_server, app, world):
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    # a failed item whose rule requires a photo, saved without one (the form would stop
    # this; an older app version or a bug might not): the server answers 422
    page.evaluate("""async (vehicleId) => {
        const { saveInspection } = await import('/static/js/field/inspection.js');
        const store = window.fieldApp.store;
        const vehicle = await store.getRow('vehicles', vehicleId);
        const checklist = await store.getRow('checklists', vehicle.service);
        const needsPhoto = checklist.items.find(i => i.photo_required_on_failure);
        await saveInspection({ vehicle, startedAt: new Date().toISOString(),
            answers: checklist.items.map(i => ({ itemId: i.id,
                result: i === needsPhoto ? 'fail' : 'ok' })) });
    }""", world["vehicle_id"])
    puts: list[str] = []
    context.on("request", lambda r: puts.append(r.url) if r.method == "PUT" else None)
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-attention")).to_contain_text("1 vistoria precisa de atenção")
    page.get_by_role("button", name="Sincronizar").click()  # the agent presses again
    page.wait_for_timeout(1_000)
    assert len(puts) == 1  # parked: neither the button nor a timer sends it again
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 0 fotos aguardando envio")
    page.get_by_role("button", name="Fila de envio").click()
    entry = page.locator(".outbox-entry")
    expect(entry).to_have_attribute("data-state", "attention")
    expect(entry).to_contain_text("Precisa de atenção: Vistoria recusada: A vistoria não pode "
                                  "ser aceita")
    assert table_counts(app) == (0, 0)
    context.close()


def test_a_later_start_fetches_only_what_changed_and_old_data_is_flagged(browser, live_server,
                                                                         app, world):
    from inspector.credentials import issuing
    from inspector.extensions import db
    from inspector.models import Credential

    context, guard, page = start_online(browser, live_server, world["agent"])
    version = page.evaluate("() => window.fieldApp.store.getMeta('snapshotVersion')")
    with app.app_context():
        issuing.revoke(db.session.get(Credential, world["credential_id"]), "Adesivo furtado")
        db.session.commit()
        db.session.remove()
    with page.expect_response(lambda r: "/api/field/snapshot" in r.url) as answer:
        page.reload()
    assert answer.value.url.endswith(f"/api/field/snapshot?since={version}")
    assert answer.value.json()["full"] is False
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    status = page.evaluate("""async (id) =>
        (await window.fieldApp.store.getRow('credentials', id)).status""", world["credential_id"])
    assert status == "revoked"
    assert page.evaluate("() => window.fieldApp.store.countRows('vehicles')") == 1

    # two days without signal: the home screen says the data is old
    page.evaluate("""() => window.fieldApp.store.setMeta('refreshedAt',
        new Date(Date.now() - 49 * 3600 * 1000).toISOString())""")
    context.set_offline(True)
    page.reload()
    freshness = page.locator("#freshness")
    expect(freshness).to_contain_text("mais de 24 h")
    expect(freshness).to_have_class(re.compile(r"\bstale\b"))
    context.close()


# ---------- the sending line ----------

def test_while_sending_the_phone_says_how_many_inspections_in_words_that_agree(
        browser, live_server, app, world, tmp_path):
    context, guard, page, _ = saved_offline(browser, live_server, world, tmp_path)
    held = []
    context.route(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$"),
                  lambda route: held.append(route))      # the first PUT waits on the network
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#sync-status")).to_have_text("Enviando 1 vistoria…")
    for route in held:
        route.continue_()
    context.unroute(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$"))
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio",
                                                       timeout=30_000)
    assert table_counts(app) == (1, 2)
    context.close()
