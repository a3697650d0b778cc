"""A service's refusal (ValidationFailed, Conflict) is answered by the app's one handler
(inspector/errors.py): the session rolled back first, then the page each writing view
declares (`on_refusal`) with the reasons beside the fields and the error's status, or, for a
JSON view, "<what was refused>: <reasons>" with every field."""
from __future__ import annotations

from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import AuditEntry, User
from tests import factories

# Writing views whose refusal shows a page of their own, each behind its access decorator
# (roles, public, the rate limiter): the mark must survive every wrapper.
DECLARED = ("review.confirm", "review.amend", "review.reject", "review.mayor", "review.appeal",
            "review.deliver", "review.decide_appeal", "review.comment", "review.reviewed",
            "review.choose", "review.payment", "review.reverse_payment",
            "review.grant_deadline", "review.remove_grant", "laws.add_closure",
            "laws.set_year", "laws.set_decree_value", "towns.set_value",
            "towns.set_photo_size", "towns.create_account", "towns.deactivate_account",
            "credentials.issue", "credentials.revoke", "credentials.reissue",
            "credentials.close_report", "notifications.subscribe",
            "notifications.unsubscribe", "notifications.holder_subscribe",
            "registry.driver_unlink")


def test_every_declared_refusal_page_is_reached_through_the_views_decorators(app):
    for endpoint in DECLARED:
        view = app.view_functions[endpoint]
        assert getattr(view, "refusal", None) is not None, endpoint
        assert getattr(view, "access", None) is not None, endpoint   # and its access too


def test_a_refused_form_comes_back_with_its_reasons_and_nothing_written(app, client, make):
    make(factories.user, "admin", "tapurah", username="admin.t")
    make(factories.user, "agent", "tapurah", username="maria.silva", name="Maria Silva")
    assert client.login("admin.t").status_code == 302
    with app.app_context():
        users = db.session.scalar(select(func.count(User.id)))
        entries = db.session.scalar(select(func.count(AuditEntry.seq)))
    r = client.post_form("/municipio/contas", {
        "name": "Maria Souza", "username": "maria.silva", "role": "supervisor",
        "password_mode": "gerar"}, token_from="/municipio/contas")
    assert r.status_code == 422
    page = r.get_data(as_text=True)
    assert "já existe: escolha outro" in page   # beside the username, on the accounts page
    assert 'value="Maria Souza"' in page        # what was typed is kept
    with app.app_context():
        assert db.session.scalar(select(func.count(User.id))) == users
        assert db.session.scalar(select(func.count(AuditEntry.seq))) == entries


def test_a_refused_json_request_says_what_was_refused_with_each_field(app, client, make):
    make(factories.user, "agent", "tapurah", username="ag.t")
    assert client.login("ag.t").status_code == 302
    token = client.get("/api/field/session").json["csrf_token"]
    r = client.post("/api/push/subscriptions", headers={"X-CSRFToken": token},
                    json={"subscription": {"endpoint": "https://evil.example.org/push/1",
                                           "keys": {"p256dh": "x", "auth": "y"}}})
    assert r.status_code == 422
    assert r.json["status"] == 422 and r.json["fields"]
    assert r.json["error"].startswith("Inscrição recusada: ")
    assert all(reason in r.json["error"] for reason in r.json["fields"].values())
