"""A session that expires while inspections wait on the phone (Debian Chromium, real server):
the sync stops, the outbox stays exactly as it was, the app says "Sessão expirada — entre
novamente" with a way to the login that comes back to /campo, and after the login the queue
goes. Both ways a server says it: a 401 from the API, and a redirect to the login page (a
proxy in front of the API) answering an inspection PUT."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import saved_offline, server_inspections, table_counts

pytestmark = pytest.mark.browser

OUTBOX = """async () => {
    const store = window.fieldApp.store;
    const entries = await store.outboxEntries();
    const photos = [];
    for (const e of entries) {
        for (const p of await store.photosOf(e.id)) photos.push([p.id, p.sha256, p.bytes.byteLength]);
    }
    return {entries, photos};
}"""


def _expire_sessions(app, username: str) -> None:
    """The server forgets the agent's session (idle timeout, password changed elsewhere)."""
    from inspector.extensions import db
    from inspector.models import User, UserSession

    with app.app_context():
        user = db.session.scalar(db.select(User).filter_by(username=username))
        db.session.execute(db.delete(UserSession).where(UserSession.user_id == user.id))
        db.session.commit()
        db.session.remove()


def test_an_expired_session_stops_the_sync_keeps_the_outbox_and_leads_to_the_login(
        browser, live_server, app, world, tmp_path):
    context, guard, page, _ = saved_offline(browser, live_server, world, tmp_path, (21, 22))
    before = page.evaluate(OUTBOX)
    assert len(before["entries"]) == 1 and len(before["photos"]) == 2
    banner = page.locator("#session-expired")
    expect(banner).to_be_hidden()

    # 1. the API answers 401: the server no longer knows the session
    _expire_sessions(app, world["agent"])
    context.set_offline(False)
    page.get_by_role("button", name="Sincronizar").click()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Sessão expirada — entre novamente")
    expect(page.locator("#sync-status")).to_contain_text("A fila continua no aparelho")
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 2 fotos aguardando envio")
    assert page.evaluate(OUTBOX) == before                       # untouched, not even counted
    assert table_counts(app) == (0, 0)

    # 2. a proxy answers the inspection PUT with a redirect to the login page
    redirected = []

    def to_login(route):
        if route.request.method != "PUT":
            return route.continue_()
        redirected.append(route.request.url)
        return route.fulfill(status=302, headers={"Location": "/entrar?next=/campo"})

    context.route(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$"), to_login)
    link = page.get_by_role("link", name="Entrar novamente")
    assert link.get_attribute("href") in ("/entrar?next=/campo", "/entrar?next=%2Fcampo")
    link.click()
    page.fill("#username", world["agent"])
    page.fill("#password", factories.PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(r"/campo$"))               # back in the app
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    expect(banner).to_be_visible()                                # the sync at start met it
    assert redirected                                             # (the PUT was redirected)
    expect(page.locator("#pending-text")).to_have_text("1 vistoria e 2 fotos aguardando envio")
    assert page.evaluate(OUTBOX) == before
    assert table_counts(app) == (0, 0)

    # 3. signed in and nothing in the way: the queue goes, exactly once
    context.unroute(re.compile(r".*/api/field/inspections/[0-9a-f-]{36}$"))
    page.get_by_role("button", name="Sincronizar").click()
    expect(page.locator("#pending-text")).to_have_text("0 vistorias e 0 fotos aguardando envio")
    expect(banner).to_be_hidden()
    [held] = server_inspections(app)
    assert held["uuid"] == before["entries"][0]["id"]
    assert sorted(p["sha256"] for p in held["photos"]) == sorted(p[1] for p in before["photos"])
    assert guard.foreign() == []
    context.close()
