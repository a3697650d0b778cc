"""A phone that ran a previous app version holds an IndexedDB of version 1, perhaps with
inspections waiting to be sent: the new app (version 2: the supervisor's answers, notices
indexed by driver and holder; version 3: each outbox inspection keeps its author; version 4:
the day's booked vistorias) upgrades
it in place, the outbox intact, and sends it under the agent the phone knew as signed in.
An inspection saved when the phone knew nobody has no known author: it waits until the
agent who made it claims it."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import (
    new_context,
    server_inspections,
    sign_in,
    table_counts,
    wait_controlled,
)

pytestmark = pytest.mark.browser

# The schema of version 1 exactly as db.js created it, with one inspection in the outbox.
VERSION_1 = """async ([vehicleId, itemId, user]) => {
  const tables = {vehicles: ["plate", "prefix"], drivers: [], holders: [], licences: ["vehicle_id"],
    permits: ["holder_id"], insurance: ["vehicle_id"], stands: [], credentials: ["token_hash", "vehicle_id"],
    standing: [], notices: ["vehicle_id"], last_inspections: [], checklists: [], keys: []};
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open("inspector-campo", 1);
    req.onupgradeneeded = () => {
      const d = req.result;
      d.createObjectStore("meta");
      for (const [name, indexes] of Object.entries(tables)) {
        const s = d.createObjectStore(name);
        for (const f of indexes) s.createIndex(f, f);
        if (name === "drivers") s.createIndex("vehicle_ids", "vehicle_ids", {multiEntry: true});
      }
      d.createObjectStore("outbox", {keyPath: "id"}).createIndex("createdAt", "createdAt");
      d.createObjectStore("photos", {keyPath: "id"}).createIndex("inspectionId", "inspectionId");
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  if (user) {   // the agent the old app saw signed in
    await new Promise((resolve, reject) => {
      const tx = db.transaction("meta", "readwrite");
      tx.objectStore("meta").put(user, "user");
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
  }
  const id = crypto.randomUUID();
  const now = new Date();
  const body = {vehicle_id: vehicleId, credential_token: null, snapshot_version: null, location: null,
    started_at: new Date(now - 600000).toISOString(), finished_at: now.toISOString(),
    items: [{item_id: itemId, result: "ok", note: "", photos: []}], acknowledgement: null};
  await new Promise((resolve, reject) => {
    const tx = db.transaction("outbox", "readwrite");
    tx.objectStore("outbox").put({id, body, label: "QBA1D23", createdAt: now.toISOString(),
                                  state: "pending", message: "", attempts: 0});
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  db.close();
  return id;
}"""


def _agent(app, username: str) -> dict:
    """The agent as the app keeps it in meta.user (GET /api/field/session's `user`)."""
    from inspector.extensions import db
    from inspector.models import User

    with app.app_context():
        u = db.session.scalar(db.select(User).filter_by(username=username))
        out = {"id": u.id, "username": u.username, "name": u.name, "role": u.role.value}
        db.session.remove()
        return out


def _held_by(app) -> list[tuple[str, str]]:
    from inspector.extensions import db
    from inspector.models import Inspection

    with app.app_context():
        rows = [(i.uuid, i.agent.username) for i in db.session.scalars(db.select(Inspection))]
        db.session.remove()
        return rows


def test_a_version_1_phone_keeps_its_outbox_through_the_upgrade(browser, live_server, app,
                                                                world):
    context, guard = new_context(browser, live_server)
    page = context.new_page()
    sign_in(page, world["agent"], "/inicio")
    waiting = page.evaluate(VERSION_1, [world["vehicle_id"], "general-condition",
                                        _agent(app, world["agent"])])
    page.goto("/campo")
    wait_controlled(page)
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio",
                                                       timeout=20_000)   # sent at start
    [held] = server_inspections(app)
    assert held["uuid"] == waiting
    assert _held_by(app) == [(waiting, world["agent"])]
    schema = page.evaluate("""async () => {
        const db = await window.fieldApp.store.openDatabase();
        return {version: db.version, stores: Array.from(db.objectStoreNames),
                notices: Array.from(db.transaction('notices').store.indexNames)};
    }""")
    assert schema["version"] == 4 and {"reviews", "appointments"} <= set(schema["stores"])
    assert sorted(schema["notices"]) == ["driver_id", "holder_id", "vehicle_id"]
    page.get_by_role("button", name="Minhas vistorias").click()   # its answer list came too
    expect(page.locator(f"#reviews-list [data-id='{waiting}']")).to_contain_text("Aguardando")
    context.close()


def test_an_old_inspection_of_unknown_author_waits_until_its_agent_claims_it(
        browser, live_server, app, world):
    context, guard = new_context(browser, live_server)
    page = context.new_page()
    sign_in(page, world["agent"], "/inicio")
    waiting = page.evaluate(VERSION_1, [world["vehicle_id"], "general-condition", None])
    page.goto("/campo")
    wait_controlled(page)
    expect(page.locator("#pending-others")).to_have_text(
        "1 vistoria sem autor registrado (salva por uma versão anterior do aplicativo) aguarda "
        "envio: veja a fila de envio.")
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio")
    page.get_by_role("button", name="Sincronizar").click()
    page.wait_for_timeout(1_000)
    assert table_counts(app) == (0, 0)          # never sent by itself
    [entry] = page.evaluate("() => window.fieldApp.store.outboxEntries()")
    assert entry["id"] == waiting and entry["agentId"] is None and entry["attempts"] == 0

    page.get_by_role("button", name="Fila de envio").click()
    row = page.locator(f".outbox-entry[data-id='{waiting}']")
    expect(row).to_contain_text("Autor não registrado")
    sent = []
    page.on("request", lambda r: sent.append(json.loads(r.post_data)) if r.method == "PUT"
            and r.url.endswith(f"/api/field/inspections/{waiting}") else None)
    page.once("dialog", lambda d: d.accept())
    row.get_by_role("button", name="Fui eu: enviar em meu nome").click()
    expect(page.locator("#pending-others")).to_be_hidden(timeout=20_000)
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio")
    assert _held_by(app) == [(waiting, world["agent"])]
    # sent saying who claimed it, as any inspection of a known author (the server checks it)
    me = page.evaluate("async () => (await window.fieldApp.store.getMeta('user')).id")
    assert sent and all(body["agent_id"] == me for body in sent)
    context.close()
