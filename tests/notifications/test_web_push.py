"""Web Push against a local push service (tests/support/push.py): encryption, VAPID, TTL,
410 drops the subscription, 5xx is retried after the backoff, nothing is sent twice; the
subscription API, the in-app list and the triggers."""
from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import (
    DeliveryStatus,
    Holder,
    Notification,
    PushDelivery,
    PushSubscription,
    User,
    VapidKey,
)
from inspector.notifications import push, subscriptions
from tests import factories
from tests.support.push import FakePushService, Subscriber, b64url, unb64url, vapid_claims

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def subscribe(app, owner, sub: Subscriber) -> int:
    with app.app_context():
        kw = {"user": db.session.get(User, owner.id)} if isinstance(owner, User) else \
            {"holder": db.session.get(Holder, owner.id)}
        row, _ = subscriptions.save_subscription(sub.as_json(), **kw)
        db.session.commit()
        return row.id


def send(app, owner, title="Vistoria para revisar", body="Placa QAB1C23", url="/revisao/1",
         payload=None, **kw):
    with app.app_context():
        model = User if isinstance(owner, User) else Holder
        note = push.notify_push(db.session.get(model, owner.id), "inspection_to_review", title, body,
                           url, payload, **kw)
        db.session.commit()
        return note.id if note else None


def deliver(app, now=None):
    with app.app_context():
        return push.deliver_pending(now)


def deliveries(app):
    with app.app_context():
        return [(d.status, d.attempts, d.subscription_id, d.last_status_code)
                for d in db.session.scalars(select(PushDelivery).order_by(PushDelivery.id))]


def count(app, model):
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model))


# ---------------------------------------------------------------- VAPID key
def test_public_key_is_made_once_and_served_to_anyone(papp, client):
    first = client.get("/api/push/public-key")
    assert first.status_code == 200
    raw = unb64url(first.json["publicKey"])
    assert len(raw) == 65 and raw[0] == 4  # uncompressed P-256 point
    assert client.get("/api/push/public-key").json == first.json
    assert count(papp, VapidKey) == 1


def test_a_vapid_subject_that_is_no_contact_is_refused(papp):
    papp.config["VAPID_SUBJECT"] = "fiscalizacao"
    with papp.app_context(), pytest.raises(ValueError, match="mailto"):
        push.deliver_pending(T0)


# ---------------------------------------------------------------- the message itself
def test_push_reaches_the_service_encrypted_with_vapid_and_ttl(papp, make, service):
    sup = make(factories.user, "supervisor", "tapurah")
    browser = Subscriber(service.endpoint("x"))
    sub_id = subscribe(papp, sup, browser)
    note_id = send(papp, sup, payload={"inspection_id": 7})

    report = deliver(papp)
    assert len(report.sent) == 1
    [got] = service.received
    assert got.path == "/push/x"
    assert got.headers["Content-Encoding"] == "aes128gcm"
    assert got.headers["TTL"] == str(24 * 3600)
    with papp.app_context():
        public = push.public_key()
    claims = vapid_claims(got.headers, public)
    assert claims["aud"] == service.origin  # the endpoint's origin
    assert claims["sub"] == "mailto:fiscal@tapurah.example.org"
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    message = browser.decrypt(got.body)
    assert message["title"] == "Vistoria para revisar"
    assert message["body"] == "Placa QAB1C23"
    assert message["url"] == "/revisao/1"
    assert message["id"] == note_id and message["data"] == {"inspection_id": 7}
    with papp.app_context():
        assert db.session.get(PushSubscription, sub_id).last_success_at is not None
    assert deliveries(papp) == [(DeliveryStatus.SENT, 1, sub_id, 201)]


def test_each_call_gets_its_own_claims_so_each_origin_gets_its_own_audience(papp, make):
    one, two = FakePushService(), FakePushService()
    try:
        agent = make(factories.user, "agent", "tapurah")
        a, b = Subscriber(one.endpoint("a")), Subscriber(two.endpoint("b"))
        subscribe(papp, agent, a)
        subscribe(papp, agent, b)
        send(papp, agent)
        send(papp, agent)
        assert len(deliver(papp).sent) == 4
        with papp.app_context():
            public = push.public_key()
        for service in (one, two):
            assert len(service.received) == 2
            for got in service.received:
                assert vapid_claims(got.headers, public)["aud"] == service.origin
    finally:
        one.close()
        two.close()


# ---------------------------------------------------------------- failures
def test_a_service_answering_410_removes_the_subscription(papp, make, service):
    agent = make(factories.user, "agent", "tapurah")
    sub_id = subscribe(papp, agent, Subscriber(service.endpoint("gone")))
    service.answer("gone", 410)
    send(papp, agent)
    send(papp, agent)  # a second one waiting for the same browser
    report = deliver(papp, T0)
    assert len(service.received) == 1  # the second is not even tried
    assert len(report.dropped) == 2
    assert count(papp, PushSubscription) == 0
    assert [d[0] for d in deliveries(papp)] == [DeliveryStatus.DROPPED] * 2
    assert all(d[2] is None for d in deliveries(papp))
    assert sub_id is not None
    send(papp, agent)  # later notifications stay in the in-app list only
    assert count(papp, PushDelivery) == 2
    assert count(papp, Notification) == 3


def test_404_also_drops(papp, make, service):
    agent = make(factories.user, "agent", "tapurah")
    subscribe(papp, agent, Subscriber(service.endpoint("nf")))
    service.answer("nf", 404)
    send(papp, agent)
    deliver(papp, T0)
    assert count(papp, PushSubscription) == 0


def test_a_500_is_retried_after_the_backoff_and_then_succeeds(papp, make, service):
    agent = make(factories.user, "agent", "tapurah")
    browser = Subscriber(service.endpoint("flaky"))
    subscribe(papp, agent, browser)
    service.answer("flaky", 500)
    send(papp, agent, title="Sua vistoria foi revisada")

    first = deliver(papp, T0)
    assert len(first.retry) == 1 and len(service.received) == 1
    with papp.app_context():
        d = db.session.scalar(select(PushDelivery))
        assert d.status == DeliveryStatus.PENDING and d.last_status_code == 500
        wait = (d.next_attempt_at.replace(tzinfo=UTC) - T0).total_seconds()
    assert 60 <= wait <= 66  # the first backoff (60 s, up to 10 % jitter)

    assert deliver(papp, T0 + timedelta(seconds=30)).attempted == 0  # too early
    assert len(service.received) == 1
    later = deliver(papp, T0 + timedelta(seconds=wait + 1))
    assert len(later.sent) == 1 and len(service.received) == 2
    assert browser.decrypt(service.received[1].body)["title"] == "Sua vistoria foi revisada"
    assert deliveries(papp)[0][:2] == (DeliveryStatus.SENT, 2)
    assert deliver(papp, T0 + timedelta(hours=5)).attempted == 0  # and never again


def test_backoff_doubles_and_honours_retry_after_then_gives_up(papp, make, service):
    papp.config["PUSH_MAX_ATTEMPTS"] = 3
    agent = make(factories.user, "agent", "tapurah")
    subscribe(papp, agent, Subscriber(service.endpoint("busy")))
    service.answer("busy", 503, 429, 502)
    send(papp, agent)
    now = T0
    waits = []
    for _ in range(2):
        deliver(papp, now)
        with papp.app_context():
            d = db.session.scalar(select(PushDelivery))
            waits.append((d.next_attempt_at.replace(tzinfo=UTC) - now).total_seconds())
            now = d.next_attempt_at.replace(tzinfo=UTC)
    assert 60 <= waits[0] <= 66
    assert 120 <= waits[1] <= 132  # doubled; Retry-After: 120 asked for no more
    deliver(papp, now)
    assert deliveries(papp)[0][:2] == (DeliveryStatus.FAILED, 3)
    assert len(service.received) == 3
    assert deliver(papp, now + timedelta(days=1)).attempted == 0
    with papp.app_context():
        assert push.backoff(1) == 60 and push.backoff(3) == 240 and push.backoff(30) == 3600


def test_an_unreachable_service_is_a_network_error_retried_later(papp, make):
    agent = make(factories.user, "agent", "tapurah")
    dead = FakePushService()
    endpoint = dead.endpoint("down")
    dead.close()  # nothing listens there any more
    subscribe(papp, agent, Subscriber(endpoint))
    send(papp, agent)
    report = deliver(papp, T0)
    assert len(report.retry) == 1
    with papp.app_context():
        d = db.session.scalar(select(PushDelivery))
        assert d.status == DeliveryStatus.PENDING and d.last_status_code is None
        assert "Connection" in d.last_error


# ---------------------------------------------------------------- never twice
def test_running_deliver_twice_sends_once(papp, make, service):
    agent = make(factories.user, "agent", "tapurah")
    subscribe(papp, agent, Subscriber(service.endpoint("x")))
    send(papp, agent)
    assert len(deliver(papp, T0).sent) == 1
    assert deliver(papp, T0).attempted == 0
    assert len(service.received) == 1


def test_concurrent_senders_never_send_the_same_delivery_twice(papp, make):
    slow = FakePushService(delay=0.02)
    try:
        agent = make(factories.user, "agent", "tapurah")
        browsers = {name: Subscriber(slow.endpoint(name)) for name in ("p", "q", "r")}
        for b in browsers.values():
            subscribe(papp, agent, b)
        ids = [send(papp, agent, title=f"n{i}") for i in range(15)]
        papp.config["PUSH_BATCH"] = 4  # several claims per run, interleaved between senders
        errors = []

        def run():
            try:
                deliver(papp, T0)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors
        assert len(slow.received) == 45  # 15 notifications x 3 browsers, each once
        seen = set()
        for got in slow.received:
            name = got.path.rsplit("/", 1)[1]
            message = browsers[name].decrypt(got.body)
            key = (name, message["id"])
            assert key not in seen, f"sent twice: {key}"
            seen.add(key)
        assert {m for _, m in seen} == set(ids)
        assert {d[0] for d in deliveries(papp)} == {DeliveryStatus.SENT}
    finally:
        slow.close()


def test_a_claim_left_by_a_crashed_sender_is_taken_back_after_the_lease(papp, make, service):
    agent = make(factories.user, "agent", "tapurah")
    subscribe(papp, agent, Subscriber(service.endpoint("x")))
    send(papp, agent)
    with papp.app_context():
        d = db.session.scalar(select(PushDelivery))
        d.status, d.claim_token, d.claimed_at, d.attempts = DeliveryStatus.SENDING, "dead", T0, 1
        db.session.commit()
    assert deliver(papp, T0 + timedelta(minutes=5)).attempted == 0  # still someone's
    assert len(deliver(papp, T0 + timedelta(hours=1)).sent) == 1
    assert deliveries(papp)[0][:2] == (DeliveryStatus.SENT, 2)


def test_the_same_trigger_notifies_once(papp, make, service):
    agent = make(factories.user, "agent", "tapurah")
    subscribe(papp, agent, Subscriber(service.endpoint("x")))
    assert send(papp, agent, dedupe_key="reviewed:1") is not None
    assert send(papp, agent, dedupe_key="reviewed:1") is None
    deliver(papp, T0)
    assert len(service.received) == 1 and count(papp, Notification) == 1


def test_an_oversized_body_is_cut_to_fit_a_push_message(papp, make, service):
    agent = make(factories.user, "agent", "tapurah")
    browser = Subscriber(service.endpoint("x"))
    subscribe(papp, agent, browser)
    send(papp, agent, body="á" * 3000, payload={"big": "x" * 3000})
    assert len(deliver(papp, T0).sent) == 1
    message = browser.decrypt(service.received[0].body)
    assert message["body"] == "á" * 500 and "data" not in message


# ---------------------------------------------------------------- CLI
def test_cli_deliver_json(papp, make, service, runner):
    agent = make(factories.user, "agent", "tapurah")
    subscribe(papp, agent, Subscriber(service.endpoint("x")))
    send(papp, agent)
    result = runner.invoke(args=["notifications", "deliver", "--json"])
    assert result.exit_code == 0, result.output
    import json
    out = json.loads(result.output)
    assert out["attempted"] == 1 and len(out["sent"]) == 1
    bad = runner.invoke(args=["notifications", "deliver", "--now", "ontem"])
    assert bad.exit_code == 2 and "inválida" in bad.output


# ---------------------------------------------------------------- subscription API
def _token(client) -> str:
    return client.csrf_token("/inicio")


def test_users_subscribe_with_csrf_and_unsubscribe(papp, make, client, service):
    agent = make(factories.user, "agent", "tapurah")
    browser = Subscriber(service.endpoint("me"))
    assert client.post("/api/push/subscriptions", json=browser.as_json()).status_code in (400, 401)
    client.login(agent.username)
    assert client.post("/api/push/subscriptions", json=browser.as_json()).status_code == 400  # no CSRF
    headers = {"X-CSRFToken": _token(client)}
    r = client.post("/api/push/subscriptions", json={"subscription": browser.as_json()},
                    headers=headers)
    assert r.status_code == 201 and r.json["created"] is True
    again = client.post("/api/push/subscriptions", json=browser.as_json(), headers=headers)
    assert again.status_code == 200 and again.json["id"] == r.json["id"]
    with papp.app_context():
        row = db.session.get(PushSubscription, r.json["id"])
        assert row.user_id == agent.id and row.holder_id is None
    gone = client.delete("/api/push/subscriptions", json={"subscription": {
        "endpoint": browser.endpoint}}, headers=headers)
    assert gone.status_code == 204
    assert count(papp, PushSubscription) == 0
    assert client.delete("/api/push/subscriptions", json={"endpoint": browser.endpoint},
                         headers=headers).status_code == 404


@pytest.mark.parametrize("endpoint, keys, field", [
    ("https://evil.example.org/push/1", None, "endpoint"),       # not a push service
    ("http://10.0.0.5/push/1", None, "endpoint"),                 # plain http off loopback
    ("https://fcm.googleapis.com/fcm/send/abc", {"p256dh": "AAAA", "auth": None}, "p256dh"),
    ("https://fcm.googleapis.com/fcm/send/abc", {"auth": b64url(b"short")}, "auth"),
    ("https://updates.push.services.mozilla.com.evil.org/x", None, "endpoint"),
])
def test_subscriptions_that_the_server_must_not_post_to_are_refused(papp, make, client, endpoint,
                                                                     keys, field):
    agent = make(factories.user, "agent", "tapurah")
    client.login(agent.username)
    sub = Subscriber(endpoint).as_json()
    if keys:
        for k, v in keys.items():
            if v is not None:
                sub["keys"][k] = v
    r = client.post("/api/push/subscriptions", json=sub, headers={"X-CSRFToken": _token(client)})
    assert r.status_code == 422
    assert field in r.json["fields"]
    assert r.json["error"].startswith("Inscrição recusada")
    assert count(papp, PushSubscription) == 0


def test_a_real_push_service_endpoint_is_accepted(papp, make, client):
    papp.config["PUSH_ALLOW_HTTP_LOOPBACK"] = False
    agent = make(factories.user, "agent", "tapurah")
    client.login(agent.username)
    sub = Subscriber("https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b").as_json()
    r = client.post("/api/push/subscriptions", json=sub, headers={"X-CSRFToken": _token(client)})
    assert r.status_code == 201


def test_a_browser_moves_to_whoever_subscribed_last(papp, make, service):
    a = make(factories.user, "agent", "tapurah")
    b = make(factories.user, "agent", "tapurah")
    browser = Subscriber(service.endpoint("shared"))
    first = subscribe(papp, a, browser)
    assert subscribe(papp, b, browser) == first
    send(papp, a)
    send(papp, b)
    deliver(papp, T0)
    assert len(service.received) == 1  # only b's reaches the shared phone


# ---------------------------------------------------------------- in-app list
def test_in_app_list_badge_and_mark_read(papp, make, client):
    agent = make(factories.user, "agent", "tapurah")
    other = make(factories.user, "agent", "tapurah")
    send(papp, agent, title="Sua vistoria foi revisada", url="/campo")
    send(papp, agent, title="Segunda")
    mine = send(papp, other, title="De outra pessoa")
    client.login(agent.username)
    page = client.get("/notificacoes").get_data(as_text=True)
    assert "Sua vistoria foi revisada" in page and "Segunda" in page
    assert "De outra pessoa" not in page
    assert 'data-unread-count aria-label="2 não lidas">2<' in page
    assert "Ativar notificações" in page

    token = _token(client)
    with papp.app_context():
        first = db.session.scalar(select(Notification.id).where(
            Notification.title == "Sua vistoria foi revisada"))
    r = client.post("/notificacoes/ler", data={"id": first, "abrir": "1", "csrf_token": token})
    assert r.status_code == 303 and r.headers["Location"] == "/campo"
    assert ">1<" in client.get("/inicio").get_data(as_text=True).split("data-unread-count")[1][:40]
    # someone else's notification cannot be marked
    client.post("/notificacoes/ler", data={"id": mine, "csrf_token": token})
    with papp.app_context():
        assert db.session.get(Notification, mine).read_at is None
    client.post("/notificacoes/ler", data={"todas": "1", "csrf_token": token})
    assert "data-unread-count" not in client.get("/inicio").get_data(as_text=True)
