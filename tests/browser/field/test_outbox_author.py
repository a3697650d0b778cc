"""One phone, two agents (Debian Chromium, real server): what agent A saved offline is A's.
When B signs in on the same phone, the sync sends only B's inspections: A's stay in the
outbox untouched, the counter says they wait for A, and the server records nothing of A's
under B. When A signs in again, A's inspection goes, under A, exactly once."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import inspect_by_plate, jpeg_file, sign_in, start_online, wait_controlled

pytestmark = pytest.mark.browser

OUTBOX = """async () => {
    const store = window.fieldApp.store;
    const entries = await store.outboxEntries();
    const photos = [];
    for (const e of entries) for (const p of await store.photosOf(e.id)) photos.push(p.id);
    return {entries, photos};
}"""


def _held(app) -> list[tuple[str, str]]:
    """(inspection uuid, username of the agent the server recorded it under), oldest first."""
    from inspector.extensions import db
    from inspector.models import Inspection

    with app.app_context():
        rows = [(i.uuid, i.agent.username)
                for i in db.session.scalars(db.select(Inspection).order_by(Inspection.id))]
        db.session.remove()
        return rows


def _sign_out(page) -> None:
    """Leave the app and press "Sair" on the web pages, as an agent ending a shift does."""
    page.goto("/inicio")
    page.get_by_role("button", name="Sair").click()
    expect(page).to_have_url(re.compile(r"/entrar"))


def _idle(page) -> None:
    """Until the run the button started has ended."""
    page.wait_for_function("() => !document.querySelector('#sync-status[data-state=sending]')")
    page.wait_for_timeout(500)


def test_a_queue_saved_by_one_agent_is_never_sent_under_another(browser, live_server, app,
                                                                  world, tmp_path):
    with app.app_context():
        from inspector.extensions import db
        bruno = factories.user("agent", "tapurah", name="Bruno Fiscal")
        db.session.commit()
        bruno_id, bruno_login = bruno.id, bruno.username
        db.session.remove()
    files = [tmp_path / f"{n}.jpg" for n in range(4)]
    for n, f in enumerate(files):
        jpeg_file(f, 40 + n)

    # Ana saves an inspection with no signal, closes the app and signs out.
    context, guard, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    inspect_by_plate(page, world["plate"], files[:2])
    saved = page.evaluate(OUTBOX)
    [entry] = saved["entries"]
    ana_id = entry["agentId"]
    assert ana_id is not None and entry["agentName"] == "Ana Fiscal"
    assert entry["body"]["agent_id"] == ana_id  # the server checks it too (403 otherwise)
    # Her phone may try to send it, under her name, in the moment between the signal's return
    # and "Sair" (CI saw it once): the server is out of reach for writes until she is out.
    context.route("**/api/field/inspections/**", lambda route: route.abort())
    page.goto("about:blank")
    context.set_offline(False)
    _sign_out(page)

    # Bruno signs in on the same phone, online: Ana's inspection is not his to send.
    puts: list[str] = []
    context.on("request", lambda r: puts.append(r.url) if r.method == "PUT" else None)
    sign_in(page, bruno_login)
    wait_controlled(page)
    context.unroute("**/api/field/inspections/**")
    found = page.evaluate(OUTBOX)  # what Bruno's session must leave exactly as it found it
    assert [e["id"] for e in found["entries"]] == [entry["id"]]
    expect(page.locator("#who")).to_contain_text("Bruno Fiscal")
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio")
    others = page.locator("#pending-others")
    expect(others).to_have_text("1 vistoria de Ana Fiscal aguarda envio: entre como Ana Fiscal "
                                "para enviá-la.")
    expect(page.locator("#pending")).to_have_attribute("data-others", "1")
    page.get_by_role("button", name="Sincronizar").click()
    _idle(page)
    # his own inspection goes; hers stays
    context.set_offline(True)
    inspect_by_plate(page, world["plate"], files[2:])
    expect(others).to_contain_text("1 vistoria de Ana Fiscal aguarda envio")
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio",
                                                       timeout=30_000)
    _idle(page)
    held = _held(app)
    assert [who for _, who in held] == [bruno_login]          # nothing of Ana's under Bruno
    assert not any(entry["id"] in url for url in puts)        # never even sent
    after = page.evaluate(OUTBOX)
    assert after["entries"] == found["entries"]               # untouched: no attempt, no message
    assert sorted(after["photos"]) == sorted(found["photos"])
    page.get_by_role("button", name="Fila de envio").click()
    row = page.locator(f".outbox-entry[data-id='{entry['id']}']")
    expect(row).to_contain_text("Feita por Ana Fiscal: entre como Ana Fiscal para enviá-la.")
    expect(row.get_by_role("button")).to_have_count(0)
    assert bruno_id != ana_id

    # Ana signs in again: her inspection goes at start, under her name, once.
    _sign_out(page)
    sign_in(page, world["agent"])
    wait_controlled(page)
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio",
                                                       timeout=30_000)
    expect(others).to_be_hidden()
    held = _held(app)
    assert sorted(held) == sorted([(held[0][0], bruno_login), (entry["id"], world["agent"])])
    assert [uuid for uuid, _ in held].count(entry["id"]) == 1
    assert page.evaluate(OUTBOX) == {"entries": [], "photos": []}
    assert guard.foreign() == []
    context.close()
