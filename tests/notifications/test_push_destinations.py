"""The server posts a push only to a known push service, read as its HTTP client reads the
address, and never connects to an internal address, whatever a subscription says or a name
resolves to when the push is sent. Any signed-in user (or a holder with an access code) can
register an endpoint: one the server would post to inside the town's network would be a
server-side request forgery (the server retried such a post 8 times)."""
from __future__ import annotations

import socket
from datetime import UTC, datetime

import pytest
import requests
from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import DeliveryStatus, PushDelivery, PushSubscription, User
from inspector.notifications import outbound, push, subscriptions
from inspector.operations.production import config_problems
from tests import factories
from tests.support.push import FakePushService, Subscriber

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HOSTILE = {
    "backslash": "https://127.0.0.1\\.fcm.googleapis.com/x",
    "backslash before @": "https://fcm.googleapis.com\\@127.0.0.1/x",
    "userinfo @": "https://fcm.googleapis.com@127.0.0.1/x",
    "userinfo on the service": "https://user:pw@fcm.googleapis.com/x",
    "%5C": "https://127.0.0.1%5C.fcm.googleapis.com/x",
    "%2e": "https://fcm%2egoogleapis.com/x",
    "IPv6 literal": "https://[::1]/x",
    "IPv4-mapped IPv6": "https://[::ffff:127.0.0.1]/x",
    "metadata, IPv4-mapped": "https://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "metadata": "https://169.254.169.254/latest/meta-data/",
    "metadata IPv6": "https://[fd00:ec2::254]/latest/meta-data/",
    "decimal IP": "https://2130706433/x",
    "octal IP": "https://0177.0.0.1/x",
    "hex IP": "https://0x7f.0.0.1/x",
    "localhost": "https://localhost/x",
    "trailing dot": "https://fcm.googleapis.com./x",
    "another port": "https://fcm.googleapis.com:8443/x",
    "plain http": "http://fcm.googleapis.com/x",
    "a look-alike": "https://fcm.googleapis.com.evil.example/x",
    "unicode dot": "https://fcm\u3002googleapis.com/x",
}
REBIND = "https://rebind.fcm.googleapis.com/fcm/send/abc"


@pytest.fixture
def prod_like(app):
    """The app as it runs for a town: no loopback allowance."""
    app.config.update(PUSH_ALLOW_HTTP_LOOPBACK=False, VAPID_SUBJECT="mailto:fiscal@tapurah.example.org")
    return app


def resolving(monkeypatch, answers: dict[str, str]) -> None:
    """Make `socket.getaddrinfo` answer these names with these addresses (DNS under the
    test's control); any other name as usual."""
    real = socket.getaddrinfo

    def fake(host, port, *args, **kwargs):
        if host in answers:
            ip = answers[host]
            family = socket.AF_INET6 if ":" in ip else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (ip, port or 443))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


def _subscribe(client, endpoint: str):
    token = client.csrf_token("/inicio")
    return client.post("/api/push/subscriptions", json=Subscriber(endpoint).as_json(),
                       headers={"X-CSRFToken": token})


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_endpoint_is_refused_at_subscription(prod_like, make, client, name):
    client.login(make(factories.user, "agent", "tapurah").username)
    r = _subscribe(client, HOSTILE[name])
    assert r.status_code == 422, (name, r.status_code)
    assert r.json["fields"]["endpoint"].startswith("Serviço de notificações não reconhecido")
    with prod_like.app_context():
        assert db.session.scalar(select(func.count()).select_from(PushSubscription)) == 0


def test_a_push_service_name_that_resolves_inside_is_refused_at_subscription(
        prod_like, make, client, monkeypatch):
    resolving(monkeypatch, {"rebind.fcm.googleapis.com": "127.0.0.1"})
    client.login(make(factories.user, "agent", "tapurah").username)
    assert _subscribe(client, REBIND).status_code == 422
    resolving(monkeypatch, {"rebind.fcm.googleapis.com": "142.250.78.10"})
    assert _subscribe(client, REBIND).status_code == 201   # the same name, public: taken


def _saved_anyway(app, agent, endpoint: str) -> int:
    """A subscription row written straight to the table (as one saved before these checks
    existed would be), and a notification for it."""
    with app.app_context():
        sub = Subscriber(endpoint).as_json()
        row = PushSubscription(endpoint=endpoint,
                               endpoint_sha256=subscriptions.endpoint_hash(endpoint),
                               p256dh=sub["keys"]["p256dh"], auth=sub["keys"]["auth"],
                               user_id=agent.id, created_at=T0)
        db.session.add(row)
        db.session.flush()
        push.notify_push(db.session.get(User, agent.id), "inspection_to_review", "Vistoria", now=T0)
        db.session.commit()
        return row.id


def _outcome(app) -> tuple:
    with app.app_context():
        d = db.session.scalars(select(PushDelivery)).one()
        subs = db.session.scalar(select(func.count()).select_from(PushSubscription))
        return d.status, d.attempts, d.last_error or "", subs


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_endpoint_already_saved_is_refused_at_send_and_never_retried(
        prod_like, make, name):
    agent = make(factories.user, "agent", "tapurah")
    _saved_anyway(prod_like, agent, HOSTILE[name])
    with prod_like.app_context():
        report = push.deliver_pending(T0)
    status, attempts, error, subs = _outcome(prod_like)
    assert report.failed and not report.retry and not report.sent
    assert (status, attempts, subs) == (DeliveryStatus.FAILED, 1, 0)
    assert error.startswith("refused: endpoint")


def test_a_name_that_rebinds_to_loopback_after_subscribing_is_refused_on_connection(
        prod_like, make, client, monkeypatch):
    """Public when the subscription is saved, 127.0.0.1 when the push is sent: the connection
    itself checks the address it connects to, and nothing is sent."""
    service = FakePushService()
    try:
        agent = make(factories.user, "agent", "tapurah")
        client.login(agent.username)
        resolving(monkeypatch, {"rebind.fcm.googleapis.com": "142.250.78.10"})
        assert _subscribe(client, REBIND).status_code == 201
        with prod_like.app_context():
            push.notify_push(db.session.get(User, agent.id), "inspection_to_review", "Vistoria", now=T0)
            db.session.commit()
        resolving(monkeypatch, {"rebind.fcm.googleapis.com": "127.0.0.1"})
        with prod_like.app_context():
            push.deliver_pending(T0)
        status, attempts, error, subs = _outcome(prod_like)
        assert (status, attempts, subs) == (DeliveryStatus.FAILED, 1, 0)
        assert "resolves to an address not allowed: ['127.0.0.1']" in error
        assert service.received == []
    finally:
        service.close()


@pytest.mark.parametrize("address", ["127.0.0.1", "10.0.0.5", "192.168.1.1", "172.16.0.1",
                                     "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1",
                                     "240.0.0.1", "::1", "fd00:ec2::254", "fe80::1",
                                     "::ffff:127.0.0.1", "2002:7f00:1::1", "64:ff9b::a9fe:a9fe",
                                     "ff02::1"])
def test_every_internal_address_is_refused_and_a_public_one_is_not(address):
    assert not outbound.allowed_address(address, loopback_too=False)
    assert outbound.allowed_address("142.250.78.10", loopback_too=False)
    assert outbound.allowed_address("2800:3f0:4001:80d::200a", loopback_too=False)


def test_the_guarded_session_refuses_loopback_unless_the_tests_allowance_is_on(prod_like):
    """The same session the sender uses: a plain GET to the local fake service is refused
    before connecting; with the tests' allowance, loopback (and only loopback) is let
    through."""
    service = FakePushService()
    try:
        with prod_like.test_request_context():
            with pytest.raises(outbound.RefusedDestination):
                outbound.session().post(service.endpoint("x"), data=b"x", timeout=5)
            prod_like.config["PUSH_ALLOW_HTTP_LOOPBACK"] = True
            assert outbound.session().post(service.endpoint("x"), data=b"x", timeout=5).status_code == 201
            with pytest.raises(outbound.RefusedDestination):
                outbound.session().get("http://10.255.255.1/", timeout=1)
            prod_like.config["INSPECTOR_ENV"] = "production"   # never for a real town
            with pytest.raises(outbound.RefusedDestination):
                outbound.session().post(service.endpoint("x"), data=b"x", timeout=5)
        assert len(service.received) == 1
    finally:
        service.close()
        prod_like.config["INSPECTOR_ENV"] = "demo"


def test_the_production_start_refuses_the_tests_loopback_allowance():
    problems = config_problems({"PUSH_ALLOW_HTTP_LOOPBACK": True})
    assert any(p.startswith("PUSH_ALLOW_HTTP_LOOPBACK ligado: é só para testes") for p in problems)
    assert not any("PUSH_ALLOW" in p for p in config_problems({}))


def test_no_proxy_from_the_environment_is_used(prod_like, monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    with prod_like.test_request_context():
        s = outbound.session()
        assert s.trust_env is False and s.max_redirects == 0
        with pytest.raises((requests.ConnectionError, outbound.RefusedDestination)):
            s.get("https://192.0.2.1/", timeout=0.5)   # TEST-NET: refused, never proxied
