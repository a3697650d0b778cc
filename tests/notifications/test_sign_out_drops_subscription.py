"""Signing out with this browser's push endpoint (POST /sair push_endpoint, sent by the field
app's "Sair"): the signed-out user's subscription of that browser is dropped, so the phone's
next user never receives the previous one's notifications; other browsers of the user, and a
holder's subscription, are left alone."""
from __future__ import annotations

from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import Holder, Notification, PushDelivery, PushSubscription, User
from inspector.notifications import push, subscriptions
from tests import factories
from tests.support.push import Subscriber


def _save(sub: Subscriber, **owner) -> None:
    subscriptions.save_subscription(sub.as_json(), **owner)
    db.session.commit()


def _endpoints(app) -> list[tuple[str, int | None, int | None]]:
    with app.app_context():
        return sorted((r.endpoint, r.user_id, r.holder_id)
                      for r in db.session.scalars(select(PushSubscription)))


def test_sign_out_drops_this_browsers_subscription_only(papp, make, client, service):
    agent = make(factories.user, "agent", "tapurah", name="Ana Fiscal")
    phone, tablet = Subscriber(service.endpoint("phone")), Subscriber(service.endpoint("tablet"))
    with papp.app_context():
        _save(phone, user=db.session.get(User, agent.id))
        _save(tablet, user=db.session.get(User, agent.id))
        push.notify_push(db.session.get(User, agent.id), "inspection_reviewed",
                    "Sua vistoria foi revisada", "Placa QBA1D23", "/campo")
        db.session.commit()

    client.login(agent.username)
    token = client.csrf_token("/inicio")
    out = client.post("/sair", data={"csrf_token": token, "push_endpoint": phone.endpoint})
    assert out.status_code == 302
    assert _endpoints(papp) == [(tablet.endpoint, agent.id, None)]
    with papp.app_context():
        # the notification waiting for the phone is not sent there any more
        statuses = sorted(d.status.value for d in db.session.scalars(select(PushDelivery)))
        assert statuses == ["dropped", "pending"]
        later = push.notify_push(db.session.get(User, agent.id), "inspection_reviewed", "De novo",
                            "Placa QBA1D23", "/campo")
        db.session.commit()
        assert later is not None
        assert db.session.scalar(select(func.count(Notification.id))) == 2
    assert client.get("/api/field/session").status_code == 401       # signed out as ever


def test_sign_out_leaves_a_holders_subscription_and_unknown_endpoints(papp, make, client,
                                                                      service):
    agent = make(factories.user, "agent", "tapurah")
    holder = make(factories.holder, "tapurah")
    browser = Subscriber(service.endpoint("holder"))
    with papp.app_context():
        _save(browser, holder=db.session.get(Holder, holder.id))
    client.login(agent.username)
    token = client.csrf_token("/inicio")
    assert client.post("/sair", data={"csrf_token": token, "push_endpoint": browser.endpoint}
                       ).status_code == 302
    assert _endpoints(papp) == [(browser.endpoint, None, holder.id)]
    client.login(agent.username)
    token = client.csrf_token("/inicio")
    assert client.post("/sair", data={"csrf_token": token,
                                      "push_endpoint": "https://fcm.googleapis.com/x"}
                       ).status_code == 302


def test_sign_out_without_an_endpoint_keeps_the_subscriptions(papp, make, client, service):
    agent = make(factories.user, "agent", "tapurah")
    phone = Subscriber(service.endpoint("phone"))
    with papp.app_context():
        _save(phone, user=db.session.get(User, agent.id))
    client.login(agent.username)
    assert client.post("/sair", data={"csrf_token": client.csrf_token("/inicio")}
                       ).status_code == 302
    assert _endpoints(papp) == [(phone.endpoint, agent.id, None)]
