""""Ativar notificações" in the field app (/campo), in Debian's Chromium: the button shows
only where Push works and this browser is not subscribed; the state is always said; a click
sends the subscription for the signed-in agent, and the server's push about a reviewed
inspection, decrypted as the browser would, shows a notification that opens /campo.
Recipe as in test_push_browser.py (a local push service; CDP delivers the message)."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import PushSubscription, User
from inspector.services import push

from .. import factories
from ..push_helpers import Subscriber
from .field_helpers import open_app, sign_in
from .test_push_browser import _push, _shown, _worker, context, service  # noqa: F401

pytestmark = pytest.mark.browser

# The browser's push service is out of reach here: subscribe() hands back the local one's
# subscription, and getSubscription() remembers it (as a real browser does) across reloads.
FAKE_PUSH = """
window.__fake = %s;
const __sub = () => ({options: {}, endpoint: window.__fake.endpoint, toJSON: () => window.__fake});
PushManager.prototype.getSubscription = async function () {
  return localStorage.getItem('fake-push') ? __sub() : null;
};
PushManager.prototype.subscribe = async function (options) {
  localStorage.setItem('fake-push', '1');
  return __sub();
};
"""


def test_the_agent_turns_notifications_on_and_a_review_push_shows(context, live_server, app,
                                                                   make, service):
    agent = make(factories.user, "agent", "tapurah", name="Ana Fiscal")
    phone = Subscriber(service.endpoint("agent-phone"))
    context.add_init_script(FAKE_PUSH % json.dumps(phone.as_json()))
    page = context.new_page()
    sign_in(page, agent.username)
    open_app(page)
    button = page.get_by_role("button", name="Ativar notificações")
    state = page.locator("#push-state")
    expect(button).to_be_visible()
    expect(state).to_have_text("Ative para saber quando a supervisão responder às suas vistorias.")
    box = button.bounding_box()
    assert box["height"] >= 44                                  # a thumb, not a fingertip

    button.click()
    expect(state).to_have_text("Notificações ativadas neste aparelho.")
    expect(button).to_be_hidden()
    with app.app_context():
        row = db.session.scalar(select(PushSubscription))
        assert (row.user_id, row.endpoint) == (agent.id, phone.endpoint)
        push.notify(db.session.get(User, agent.id), "inspection_reviewed",
                    "Sua vistoria foi revisada",
                    "Placa QBA1D23: 1 ato(s) confirmado(s), 1 rejeitado(s) — veja o motivo no "
                    "aplicativo.", "/campo")
        db.session.commit()
        assert len(push.deliver_pending().sent) == 1
    message = phone.decrypt(service.received[0].body)

    origin = live_server.url
    cdp, reg = _worker(context, page, origin)
    _push(cdp, origin, reg, json.dumps(message))
    [shown] = _shown(page, 1)
    assert shown["title"] == "Sua vistoria foi revisada"
    assert "veja o motivo no aplicativo" in shown["body"]
    assert shown["url"] == f"{origin}/campo"

    page.reload()                                               # subscribed: no button
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    expect(state).to_have_text("Notificações ativadas neste aparelho.")
    expect(button).to_be_hidden()


def test_no_button_where_the_browser_cannot_receive_push(context, live_server, make):
    agent = make(factories.user, "agent", "tapurah")
    context.add_init_script("delete window.PushManager;")
    page = context.new_page()
    sign_in(page, agent.username)
    open_app(page)
    expect(page.locator("#push-state")).to_have_text("Este aparelho não recebe notificações.")
    expect(page.get_by_role("button", name="Ativar notificações")).to_be_hidden()
