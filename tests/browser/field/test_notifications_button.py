""""Ativar notificações" in the field app (/campo), in Debian's Chromium: the button shows
only where Push works and this browser is not subscribed; the state is always said; a click
sends the subscription for the signed-in agent, and the server's push about a reviewed
inspection, decrypted as the browser would, shows a notification that opens /campo.
Recipe as in tests/browser/test_push_notifications.py (a local push service; CDP delivers the message)."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import PushSubscription, User
from inspector.notifications import push
from tests import factories
from tests.browser.field_helpers import open_app, sign_in
from tests.browser.push_helpers import NOTIFICATIONS, activated_worker, push_until_shown
from tests.support.push import Subscriber

pytestmark = [pytest.mark.browser, pytest.mark.full_chromium]   # the Push API

# The browser's push service is out of reach here: subscribe() hands back the local one's
# subscription, and getSubscription() remembers it (as a real browser does) across reloads.
FAKE_PUSH = """
window.__fake = %s;
const __sub = () => ({options: {}, endpoint: window.__fake.endpoint, toJSON: () => window.__fake,
                      unsubscribe: async () => { localStorage.removeItem('fake-push'); return true; }});
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
        push.notify_push(db.session.get(User, agent.id), "inspection_reviewed",
                    "Sua vistoria foi revisada",
                    "Placa QBA1D23: 1 ato(s) confirmado(s), 1 rejeitado(s) — veja o motivo no "
                    "aplicativo.", "/campo")
        db.session.commit()
        assert len(push.deliver_pending().sent) == 1
    message = phone.decrypt(service.received[0].body)

    origin = live_server.url
    cdp, reg = activated_worker(context, page, origin)
    shown = push_until_shown(cdp, origin, reg, page, message)
    assert len(page.evaluate(NOTIFICATIONS)) == 1
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


def test_sair_takes_the_phone_off_the_agents_notifications(context, live_server, app, make,
                                                          service):
    """A shared phone: after Ana's "Sair" the server sends her notifications there no more,
    the browser is unsubscribed, and Bruno, signing in next, is offered "Ativar notificações"
    instead of being told they are on."""
    ana = make(factories.user, "agent", "tapurah", name="Ana Fiscal")
    bruno = make(factories.user, "agent", "tapurah", name="Bruno Fiscal")
    phone = Subscriber(service.endpoint("shared-phone"))
    context.add_init_script(FAKE_PUSH % json.dumps(phone.as_json()))
    page = context.new_page()
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page, ana.username)
    open_app(page)
    page.get_by_role("button", name="Ativar notificações").click()
    state = page.locator("#push-state")
    expect(state).to_have_text("Notificações ativadas neste aparelho.")
    with app.app_context():
        assert db.session.scalar(select(PushSubscription.user_id)) == ana.id

    menu = page.locator("#menu")
    menu.locator("summary").click()
    menu.get_by_role("button", name="Sair").click()
    expect(page.locator("#signed-out-note")).to_be_visible()
    with app.app_context():
        assert db.session.scalars(select(PushSubscription)).all() == []
        push.notify_push(db.session.get(User, ana.id), "inspection_reviewed",
                    "Sua vistoria foi revisada", "Placa QBA1D23", "/campo")
        db.session.commit()
        assert push.deliver_pending().sent == []
    assert service.received == []                               # nothing of Ana's reached it
    assert page.evaluate("localStorage.getItem('fake-push')") is None

    sign_in(page, bruno.username)
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    expect(state).to_have_text("Ative para saber quando a supervisão responder às suas vistorias.")
    expect(page.get_by_role("button", name="Ativar notificações")).to_be_visible()


def test_the_sites_sair_also_takes_the_browser_off_the_users_notifications(context, live_server,
                                                                          app, make, service):
    """"Sair" in the site's top bar (a plain form) sends this browser's endpoint too."""
    sup = make(factories.user, "supervisor", "tapurah")
    phone = Subscriber(service.endpoint("desk"))
    context.add_init_script(FAKE_PUSH % json.dumps(phone.as_json()))
    page = context.new_page()
    sign_in(page, sup.username, "/notificacoes")
    page.get_by_role("button", name="Ativar notificações").click()
    page.locator("[data-push-status]").filter(
        has_text="Notificações ativadas neste aparelho.").wait_for()
    with app.app_context():
        assert db.session.scalar(select(PushSubscription.user_id)) == sup.id
    page.locator(".who").get_by_role("button", name="Sair").click()
    expect(page.get_by_text("Você saiu.")).to_be_visible()
    with app.app_context():
        assert db.session.scalars(select(PushSubscription)).all() == []
    assert page.evaluate("localStorage.getItem('fake-push')") is None


def test_another_agent_on_the_phone_does_not_inherit_the_subscription(context, live_server, app,
                                                                     make, service):
    """Ana's session ended without "Sair" (it expired); Bruno signs in on her phone: the browser
    is unsubscribed (nothing sent to Ana's endpoint reaches it any more) and Bruno is offered
    "Ativar notificações" instead of being told they are on."""
    from inspector.models import UserSession

    ana = make(factories.user, "agent", "tapurah", name="Ana Fiscal")
    bruno = make(factories.user, "agent", "tapurah", name="Bruno Fiscal")
    phone = Subscriber(service.endpoint("shared-phone"))
    context.add_init_script(FAKE_PUSH % json.dumps(phone.as_json()))
    page = context.new_page()
    sign_in(page, ana.username)
    open_app(page)
    page.get_by_role("button", name="Ativar notificações").click()
    expect(page.locator("#push-state")).to_have_text("Notificações ativadas neste aparelho.")
    with app.app_context():
        db.session.query(UserSession).filter_by(user_id=ana.id).delete()   # expired
        db.session.commit()

    sign_in(page, bruno.username)
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    expect(page.locator("#who")).to_contain_text("Bruno Fiscal")
    expect(page.locator("#push-state")).to_have_text(
        "Ative para saber quando a supervisão responder às suas vistorias.")
    expect(page.get_by_role("button", name="Ativar notificações")).to_be_visible()
    assert page.evaluate("localStorage.getItem('fake-push')") is None
