"""Web Push in Debian's Chromium: the worker shows every push as a notification (CDP
`ServiceWorker.deliverPushMessage`, since `pushManager.subscribe` cannot reach a real push
service here), and the "Ativar notificações" button sends the subscription to the server.
The message the browser is given is the one the server encrypted for the local push
service, decrypted: server -> push service -> worker -> notification."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import PushSubscription, User
from inspector.notifications import push
from tests import factories
from tests.browser.field_helpers import sign_in
from tests.browser.push_helpers import (
    activated_worker,
    deliver_push,
    notifications_shown,
)
from tests.support.push import Subscriber, unb64url

pytestmark = [pytest.mark.browser, pytest.mark.full_chromium]   # the Push API

def test_every_push_shows_a_notification(context, live_server):
    origin = live_server.url
    page = context.new_page()
    page.goto("/notificacoes")
    cdp, reg = activated_worker(context, page, origin)

    deliver_push(cdp, origin, reg, json.dumps({"title": "Vistoria para revisar", "body": "Placa QAB1C23",
                                        "url": "/revisao/vistorias/7", "tag": "n1"}))
    [first] = notifications_shown(page, 1)
    assert first == {"title": "Vistoria para revisar", "body": "Placa QAB1C23", "tag": "n1",
                     "url": f"{origin}/revisao/vistorias/7"}

    deliver_push(cdp, origin, reg, "")  # an empty push still shows something
    deliver_push(cdp, origin, reg, json.dumps({"title": "Outro site", "url": "https://evil.example/x",
                                        "tag": "n3"}))
    shown = {n["tag"] or "": n for n in notifications_shown(page, 3)}
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
        push.notify_push(db.session.get(User, sup.id), "inspection_to_review",
                    "Vistoria para revisar", "Placa QAB1C23 · 1 item(ns) reprovado(s)",
                    "/revisao/vistorias/1")
        db.session.commit()
        assert len(push.deliver_pending().sent) == 1
    message = phone.decrypt(service.received[0].body)

    cdp, reg = activated_worker(context, page, origin)
    deliver_push(cdp, origin, reg, json.dumps(message))
    [shown] = notifications_shown(page, 1)
    assert shown["title"] == "Vistoria para revisar"
    assert shown["body"] == "Placa QAB1C23 · 1 item(ns) reprovado(s)"
    assert shown["url"] == f"{origin}/revisao/vistorias/1"
    page.reload()  # the nav counts the unread one
    assert page.locator("[data-unread-count]").inner_text() == "1"
