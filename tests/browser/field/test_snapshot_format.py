"""A phone whose rows were stored before the snapshot's shape grew (Debian Chromium, real
server): rows saved before `suspended_until` existed lack it, and a delta would never bring
them again (nothing changed on the server). The snapshot carries its format; a phone holding
an older one gets a full snapshot at the next start, its outbox untouched, and deltas after."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from inspector.field.snapshot import FORMAT
from tests.browser.field_helpers import open_card, start_online, suspend_licence_and_rider, wait_controlled

pytestmark = pytest.mark.browser

# What a phone of an older app version holds: rows without `suspended_until` and a format
# marker older than the app's (absent on phones older still). Plus another agent's inspection
# in the outbox, which a snapshot must never touch.
OLD_PHONE = """async ([vehicleId, format]) => {
    const store = window.fieldApp.store;
    const db = await store.openDatabase();
    const tx = db.transaction(['licences', 'drivers', 'standing', 'meta', 'outbox'], 'readwrite');
    for (const name of ['licences', 'drivers', 'standing']) {
        let cursor = await tx.objectStore(name).openCursor();
        while (cursor) {
            const { suspended_until, ...old } = cursor.value;
            await cursor.update(old);
            cursor = await cursor.continue();
        }
    }
    if (format === null) await tx.objectStore('meta').delete('snapshotFormat');
    else await tx.objectStore('meta').put(format, 'snapshotFormat');
    await tx.objectStore('outbox').put({id: crypto.randomUUID(), body: {vehicle_id: vehicleId},
        label: 'QBA1D23', createdAt: new Date().toISOString(), state: 'pending', message: '',
        attempts: 0, agentId: 999999, agentName: 'Outro Agente', agentUsername: 'outro'});
    await tx.done;
    return (await store.getMeta('snapshotVersion'));
}"""

ROWS = """async () => {
    const store = window.fieldApp.store;
    return {licences: await store.allRows('licences'), drivers: await store.allRows('drivers'),
            outbox: await store.outboxEntries(), format: await store.getMeta('snapshotFormat')};
}"""


@pytest.mark.parametrize("older", [1, None], ids=["format-1", "no-marker"])
def test_a_phone_holding_an_older_format_refreshes_its_rows_with_a_full_snapshot(
        browser, live_server, app, world, older):
    end = date.today() + timedelta(days=20)
    suspend_licence_and_rider(app, world, end, end + timedelta(days=10))
    context, guard, page = start_online(browser, live_server, world["agent"])
    assert page.evaluate(ROWS)["format"] == FORMAT
    version = page.evaluate(OLD_PHONE, [world["vehicle_id"], older])
    before = page.evaluate(ROWS)
    assert all("suspended_until" not in r for r in before["licences"] + before["drivers"])
    card = open_card(page, world["plate"])         # what the agent saw on the old phone
    expect(card.locator(".expiries li.suspended-until")).to_contain_text("Suspenso")
    expect(card.locator(".expiries li.suspended-until")).not_to_contain_text("até")

    # Nothing changed on the server since `version`: a delta would bring nothing.
    snapshots: list[str] = []
    context.on("request", lambda r: snapshots.append(r.url.split("/api/field/", 1)[1])
               if "/api/field/snapshot" in r.url else None)
    # (bodies are checked through what the phone stored: Chromium may drop a response's
    # body once the page navigates again, and the app's start can do so)
    with page.expect_response(lambda r: "/api/field/snapshot" in r.url):
        page.reload()
    wait_controlled(page)
    assert snapshots == ["snapshot"]                # straight to the full one, no ?since=
    after = page.evaluate(ROWS)
    assert after["format"] == FORMAT
    assert {r["suspended_until"] for r in after["licences"]} == {end.isoformat()}
    assert all("suspended_until" in r for r in after["drivers"])
    assert after["outbox"] == before["outbox"]      # the outbox untouched (and not sent)

    context.set_offline(True)
    card = open_card(page, world["plate"])
    expect(card.locator(".expiries li.suspended-until")).to_contain_text(
        f"Suspenso até {end.strftime('%d/%m/%Y')}")

    # The next start holds the app's format: a delta again.
    context.set_offline(False)
    snapshots.clear()
    with page.expect_response(lambda r: "/api/field/snapshot" in r.url):
        page.reload()
    wait_controlled(page)
    # deltas only, from the version the full one brought (going online may sync once more)
    assert snapshots and set(snapshots) == {f"snapshot?since={version}"}
    assert page.evaluate(ROWS)["format"] == FORMAT
    assert guard.foreign() == []
    context.close()


def test_a_delta_of_another_format_is_not_applied_the_full_snapshot_is(browser, live_server,
                                                                        app, world):
    """The server's shape moved on while the phone's app still holds its format: the delta
    it answers carries the new format, and the phone fetches the full snapshot instead."""
    context, guard, page = start_online(browser, live_server, world["agent"])

    answered = []

    def newer_format(route):
        response = route.fetch()
        body = response.json()
        body["format"] = FORMAT + 1
        answered.append((route.request.url.split("/api/field/", 1)[1], body["full"]))
        route.fulfill(response=response, json=body)

    context.route("**/api/field/snapshot*", newer_format)
    with page.expect_response(lambda r: r.url.endswith("/api/field/snapshot")):
        page.reload()
    wait_controlled(page)
    assert answered[0][0].startswith("snapshot?since=") and answered[0][1] is False
    assert answered[-1] == ("snapshot", True)
    assert page.evaluate("() => window.fieldApp.store.getMeta('snapshotFormat')") == FORMAT + 1
    context.close()
