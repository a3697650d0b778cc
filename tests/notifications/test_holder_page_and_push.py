"""Holders: the notice page opened with the printed access code (same answer time right or
wrong, rate-limited), their push subscription; who gets which notification."""
from __future__ import annotations

import re
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import Holder, Notice, Notification, PushSubscription, User
from inspector.notifications import push, subscriptions, triggers
from tests import factories
from tests.support.push import Subscriber, inspection_row, notice_row

CODE = "K7M2P-QRS9T"


@pytest.fixture
def papp(app):
    app.config.update(PUSH_ALLOW_HTTP_LOOPBACK=True, HOLDER_CODE_MIN_SECONDS=0.05,
                      HOLDER_CODE_RATE_LIMIT="1000 per minute")
    return app


@pytest.fixture
def notice(papp):
    """A Tapurah holder's moto-taxi and a notice printed with CODE."""
    with papp.app_context():
        v = factories.vehicle("tapurah", "mototaxi")
        n = notice_row(v.holder, v, code=CODE,
                       deadline_at=datetime(2026, 12, 4, 16, 0, tzinfo=UTC))
        db.session.commit()
        return {"id": n.id, "number": n.number, "holder_id": v.holder_id,
                "path": f"tapurah/{n.number}", "vehicle_id": v.id}


def _open(client, path, code):
    token = client.csrf_token(f"/notificacoes/{path}")
    return client.post(f"/notificacoes/{path}", data={"codigo": code, "csrf_token": token})


# ---------------------------------------------------------------- the page
def test_the_page_shows_nothing_before_the_code_and_the_status_after(papp, client, notice):
    page = client.get(f"/notificacoes/{notice['path']}")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    html = page.get_data(as_text=True)
    assert "Código de acesso" in html and notice["number"] in html
    assert "Trocar o pneu" not in html and "Confirmado" not in html

    wrong = _open(client, notice["path"], "AAAAA-AAAAA")
    assert wrong.status_code == 403
    assert "não confere" in wrong.get_data(as_text=True)
    assert "Trocar o pneu" not in client.get(f"/notificacoes/{notice['path']}").get_data(as_text=True)

    right = _open(client, notice["path"], " k7m2p qrs9t ")  # as typed on a phone
    assert right.status_code == 303
    assert right.headers["Location"] == f"/notificacoes/{notice['path']}"
    html = client.get(right.headers["Location"]).get_data(as_text=True)
    # the document page's own word for the act (documents.issuing.public_status)
    assert 'data-status>Em vigor<' in html and "Trocar o pneu dianteiro." in html
    assert "04/12/2026 às 12:00" in html  # the deadline in Mato Grosso time
    assert "Lei 1.234/2020, Art. 29" in html and "09/12/2026" in html
    assert 'data-push-subscribe' in html and f'data-notice="{notice["path"]}"' in html
    # another browser has not given the code
    other = papp.test_client()
    assert "Trocar o pneu" not in other.get(f"/notificacoes/{notice['path']}").get_data(as_text=True)


def test_right_wrong_and_unknown_take_the_same_time(papp, client, notice, monkeypatch):
    """Each answer costs exactly one Argon2 verification and waits for the same floor, so
    timing tells nothing (wall-clock spread is not asserted: a busy machine skews it)."""
    from argon2 import PasswordHasher

    papp.config["HOLDER_CODE_MIN_SECONDS"] = 0.3
    checks = []
    real = PasswordHasher.verify
    monkeypatch.setattr(PasswordHasher, "verify",
                        lambda self, h, p: checks.append(h) or real(self, h, p))
    for label, path, code in (("right", notice["path"], CODE),
                              ("wrong", notice["path"], "AAAAA-AAAAA"),
                              ("unknown", "tapurah/NOT-2026/999999", CODE),
                              ("no town", "NOT-2031/000001", CODE)):
        token = client.csrf_token(f"/notificacoes/{path}")
        checks.clear()
        started = time.monotonic()
        r = client.post(f"/notificacoes/{path}", data={"codigo": code, "csrf_token": token})
        took = time.monotonic() - started
        assert r.status_code == (303 if label == "right" else 403), label
        assert len(checks) == 1, (label, checks)
        assert took >= 0.3, (label, took)
        if label != "right":
            assert "não confere" in r.get_data(as_text=True)


def test_numbers_repeat_across_towns_and_the_code_tells_them_apart(papp, client):
    with papp.app_context():
        a = factories.vehicle("tapurah", "mototaxi")
        b = factories.vehicle("sapezal", "taxi")
        notice_row(a.holder, a, code="AAAAA-22222", number="NOT-2026/000777")
        notice_row(b.holder, b, code="BBBBB-33333", number="NOT-2026/000777")
        db.session.commit()
    r = _open(client, "NOT-2026/000777", "BBBBB-33333")
    assert r.status_code == 303 and r.headers["Location"] == "/notificacoes/sapezal/NOT-2026/000777"
    assert _open(client, "tapurah/NOT-2026/000777", "BBBBB-33333").status_code == 403


def test_anyone_not_signed_in_gets_the_lookup_form(papp, client, notice):
    html = client.get("/notificacoes").get_data(as_text=True)
    assert 'name="numero"' in html and 'name="codigo"' in html
    token = client.csrf_token("/notificacoes")
    r = client.post("/notificacoes/consulta", data={"numero": notice["number"].lower(),
                                                    "codigo": CODE, "csrf_token": token})
    assert r.status_code == 303 and r.headers["Location"] == f"/notificacoes/{notice['path']}"


def test_the_code_form_is_rate_limited(papp, client, notice):
    papp.config["HOLDER_CODE_RATE_LIMIT"] = "3 per minute"
    codes = [_open(client, notice["path"], "AAAAA-AAAAA").status_code for _ in range(4)]
    assert codes == [403, 403, 403, 429]
    last = _open(client, notice["path"], CODE)
    assert last.status_code == 429 and "Muitas tentativas" in last.get_data(as_text=True)


# ---------------------------------------------------------------- the holder's subscription
def test_a_holder_subscribes_after_giving_the_code(papp, client, notice, service):
    browser = Subscriber(service.endpoint("holder"))
    page = client.get(f"/notificacoes/{notice['path']}").get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    body = {"notice": notice["path"], "subscription": browser.as_json()}
    h = {"X-CSRFToken": token}
    assert client.post("/api/push/notice-subscriptions", json=body, headers=h).status_code == 403
    assert _open(client, notice["path"], CODE).status_code == 303
    r = client.post("/api/push/notice-subscriptions", json=body, headers=h)
    assert r.status_code == 201, r.json
    with papp.app_context():
        row = db.session.get(PushSubscription, r.json["id"])
        assert (row.holder_id, row.user_id, row.notice_id) == \
            (notice["holder_id"], None, notice["id"])
    assert client.delete("/api/push/notice-subscriptions", json=body, headers=h).status_code == 204
    with papp.app_context():
        assert db.session.scalar(select(func.count(PushSubscription.id))) == 0


# ---------------------------------------------------------------- who gets what
def _holder_subscribed(papp, holder_id, service, name="h"):
    browser = Subscriber(service.endpoint(name))
    with papp.app_context():
        subscriptions.save_subscription(browser.as_json(), holder=db.session.get(Holder, holder_id))
        db.session.commit()
    return browser


def test_a_subscribed_holder_hears_of_a_new_notice_and_a_near_deadline(papp, notice, service):
    with papp.app_context():
        n = db.session.get(Notice, notice["id"])
        assert triggers.notify_notice_issued(n, n.sanction) is None  # nobody listens
        assert db.session.scalar(select(func.count(Notification.id))) == 0
    browser = _holder_subscribed(papp, notice["holder_id"], service)
    with papp.app_context():
        n = db.session.get(Notice, notice["id"])
        assert triggers.notify_notice_issued(n, n.sanction) is not None
        assert triggers.notify_notice_issued(n, n.sanction) is None  # once
        assert triggers.notify_deadline_soon(n.sanction, n.deadline_at) is not None
        assert triggers.notify_deadline_soon(n.sanction, n.deadline_at) is None
        db.session.commit()
        assert len(push.deliver_pending().sent) == 2
    first, second = (browser.decrypt(r.body) for r in service.received)
    assert first["title"] == "Nova notificação da fiscalização"
    assert notice["number"] in first["body"] and "04/12/2026 12:00" in first["body"]
    assert first["url"] == f"/notificacoes/{notice['path']}"
    assert second["title"] == "Prazo vence em 2 dias"
    assert "Trocar o pneu dianteiro." in second["body"]
    for message in (first, second):  # no names or tax ids on a lock screen
        assert "Titular" not in message["body"]


def test_supervisors_of_the_town_hear_of_an_inspection_to_review(papp, make, service):
    sup1 = make(factories.user, "supervisor", "tapurah")
    sup2 = make(factories.user, "supervisor", "tapurah")
    make(factories.user, "supervisor", "sapezal")
    agent = make(factories.user, "agent", "tapurah", name="Ana Agente")
    browser = Subscriber(service.endpoint("sup1"))
    with papp.app_context():
        subscriptions.save_subscription(browser.as_json(), user=db.session.get(User, sup1.id))
        v = factories.vehicle("tapurah", "mototaxi", plate="QAB1C23")
        insp = inspection_row(db.session.get(User, agent.id), v, failed=2)
        notes = triggers.notify_inspection_to_review(insp, acts=[1, 2])
        assert sorted(n.user_id for n in notes) == sorted([sup1.id, sup2.id])
        assert triggers.notify_inspection_to_review(insp, acts=[1, 2]) == []
        db.session.commit()
        push.deliver_pending()
        insp_id = insp.id
    [got] = service.received
    message = browser.decrypt(got.body)
    assert message["title"] == "Vistoria para revisar"
    assert message["body"] == ("Placa QAB1C23 · 2 itens reprovados · 2 atos propostos · "
                               "Ana Agente")
    assert message["url"] in (f"/revisao/vistorias/{insp_id}", "/notificacoes")


def test_the_agent_hears_that_the_inspection_was_reviewed(papp, make):
    agent = make(factories.user, "agent", "tapurah")
    with papp.app_context():
        v = factories.vehicle("tapurah", "mototaxi")
        insp = inspection_row(db.session.get(User, agent.id), v)
        note = triggers.notify_inspection_reviewed(insp)
        assert (note.user_id, note.kind, note.url) == (agent.id, "inspection_reviewed", "/campo")
        assert triggers.notify_inspection_reviewed(insp) is None
        db.session.commit()


def test_the_triggers_listen_to_the_enforcement_services(papp, notice, service):
    enforcement = pytest.importorskip("inspector.enforcement")
    browser = _holder_subscribed(papp, notice["holder_id"], service)
    with papp.app_context():
        n = db.session.get(Notice, notice["id"])
        enforcement.common.notify("notice_issued", notice=n, act=n.sanction, access_code=CODE)
        db.session.commit()
        assert db.session.scalar(select(Notification.kind)) == "notice_issued"
        push.deliver_pending()
    assert browser.decrypt(service.received[0].body)["title"] == "Nova notificação da fiscalização"
