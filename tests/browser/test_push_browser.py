"""Web Push in Debian's Chromium: the worker shows every push as a notification (CDP
`ServiceWorker.deliverPushMessage`, since `pushManager.subscribe` cannot reach a real push
service here), and the "Ativar notificações" button sends the subscription to the server.
The message the browser is given is the one the server encrypted for the local push
service, decrypted: server -> push service -> worker -> notification."""
from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import PushSubscription, User
from inspector.notifications import push
from tests import factories
from tests.browser.field_helpers import sign_in
from tests.support.push import FakePushService, Subscriber, unb64url

pytestmark = pytest.mark.browser

NOTIFICATIONS = """async () => {
  const reg = await navigator.serviceWorker.ready;
  return (await reg.getNotifications()).map(
    (n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url}));
}"""


@pytest.fixture
def service():
    s = FakePushService()
    yield s
    s.close()


@pytest.fixture
def context(browser, live_server, app):
    app.config["PUSH_ALLOW_HTTP_LOOPBACK"] = True
    ctx = browser.new_context(base_url=live_server.url, locale="pt-BR")
    ctx.grant_permissions(["notifications"], origin=live_server.url)
    ctx.set_default_timeout(20_000)
    yield ctx
    ctx.close()


def _worker(context, page, origin: str):
    """Register /sw.js, wait until its version is activated (not merely installed: a push
    delivered while it activates can be lost); a CDP session and its registration id."""
    cdp = context.new_cdp_session(page)
    found: list[dict] = []
    versions: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"]))
    cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.extend(e["versions"]))
    cdp.send("ServiceWorker.enable")
    page.evaluate("navigator.serviceWorker.getRegistration('/').then((r) => r || "
                  "navigator.serviceWorker.register('/sw.js', {scope: '/'}))"
                  ".then(() => navigator.serviceWorker.ready).then(() => true)")
    deadline = time.time() + 20
    while time.time() < deadline:
        ids = [r["registrationId"] for r in found
               if r["scopeURL"] == origin + "/" and not r.get("isDeleted")]
        if ids and any(v["registrationId"] == ids[-1] and v["status"] == "activated"
                       for v in versions):
            return cdp, ids[-1]
        page.wait_for_timeout(100)
    raise AssertionError(f"no service worker registration for {origin}: {found}")


def _push(cdp, origin: str, registration_id: str, data: str) -> None:
    cdp.send("ServiceWorker.deliverPushMessage",
             {"origin": origin, "registrationId": registration_id, "data": data})


def _shown(page, count: int, seconds: float = 15) -> list[dict]:
    deadline = time.time() + seconds
    while time.time() < deadline:
        shown = page.evaluate(NOTIFICATIONS)
        if len(shown) >= count:
            return shown
        page.wait_for_timeout(100)
    raise AssertionError(f"{count} notification(s) expected, got {page.evaluate(NOTIFICATIONS)}")


def _push_until_shown(cdp, origin: str, registration_id: str, page, message: dict) -> dict:
    """Deliver a tagged push and return its notification. On a loaded machine Chromium can
    drop a push delivered over CDP while it starts the idle worker (CI saw none after 15 s);
    a push service delivers again what was not received, and the same tag replaces, so one
    more delivery after 8 s is what the phone would get."""
    assert message.get("tag"), "a retried push must be tagged, or it could show twice"
    _push(cdp, origin, registration_id, json.dumps(message))
    try:
        return _shown(page, 1, seconds=8)[0]
    except AssertionError:
        _push(cdp, origin, registration_id, json.dumps(message))
        [shown] = _shown(page, 1)
        return shown


def test_every_push_shows_a_notification(context, live_server):
    origin = live_server.url
    page = context.new_page()
    page.goto("/notificacoes")
    cdp, reg = _worker(context, page, origin)

    _push(cdp, origin, reg, json.dumps({"title": "Vistoria para revisar", "body": "Placa QAB1C23",
                                        "url": "/revisao/vistorias/7", "tag": "n1"}))
    [first] = _shown(page, 1)
    assert first == {"title": "Vistoria para revisar", "body": "Placa QAB1C23", "tag": "n1",
                     "url": f"{origin}/revisao/vistorias/7"}

    _push(cdp, origin, reg, "")  # an empty push still shows something
    _push(cdp, origin, reg, json.dumps({"title": "Outro site", "url": "https://evil.example/x",
                                        "tag": "n3"}))
    shown = {n["tag"] or "": n for n in _shown(page, 3)}
    empty = shown[""]
    assert empty["title"] == "Inspector"
    assert empty["body"] == "Você tem uma nova notificação da fiscalização."
    assert empty["url"] == f"{origin}/notificacoes"
    assert shown["n3"]["url"] == f"{origin}/notificacoes"  # never a link off the site
    assert shown["n3"]["body"] == "Você tem uma nova notificação da fiscalização."


def test_the_button_subscribes_and_the_servers_push_shows(context, live_server, app, make,
                                                          service):
    """The button asks the server's key and sends the subscription (the browser's own push
    service is replaced by the local one); the server's encrypted push, decrypted as the
    browser would, is shown by the worker."""
    origin = live_server.url
    sup = make(factories.user, "supervisor", "tapurah")
    phone = Subscriber(service.endpoint("phone"))
    context.add_init_script(
        "window.__fake = " + json.dumps(phone.as_json()) + ";"
        "PushManager.prototype.getSubscription = async function () { return null; };"
        "PushManager.prototype.subscribe = async function (options) {"
        "  window.__usedKey = Array.from(new Uint8Array(options.applicationServerKey));"
        "  return {options, toJSON: () => window.__fake};"
        "};")
    page = context.new_page()
    sign_in(page, sup.username, "/notificacoes")
    button = page.get_by_role("button", name="Ativar notificações")
    button.click()
    status = page.locator("[data-push-status]")
    status.filter(has_text="Notificações ativadas neste aparelho.").wait_for()

    with app.app_context():
        row = db.session.scalar(select(PushSubscription))
        assert (row.user_id, row.endpoint) == (sup.id, phone.endpoint)
        assert bytes(page.evaluate("window.__usedKey")) == unb64url(push.public_key())
        push.notify(db.session.get(User, sup.id), "inspection_to_review",
                    "Vistoria para revisar", "Placa QAB1C23 · 1 item(ns) reprovado(s)",
                    "/revisao/vistorias/1")
        db.session.commit()
        assert len(push.deliver_pending().sent) == 1
    message = phone.decrypt(service.received[0].body)

    cdp, reg = _worker(context, page, origin)
    _push(cdp, origin, reg, json.dumps(message))
    [shown] = _shown(page, 1)
    assert shown["title"] == "Vistoria para revisar"
    assert shown["body"] == "Placa QAB1C23 · 1 item(ns) reprovado(s)"
    assert shown["url"] == f"{origin}/revisao/vistorias/1"
    page.reload()  # the nav counts the unread one
    assert page.locator("[data-unread-count]").inner_text() == "1"
