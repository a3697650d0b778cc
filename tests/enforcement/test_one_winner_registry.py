"""Of eight simultaneous changes to one credential, account or registry row, exactly one is
taken; the others answer 409 and write nothing. Eight admins against a real threaded WSGI
server; runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from sqlalchemy import func, select

from inspector import credentials
from inspector.extensions import db
from inspector.models import AuditEntry, Credential, Licence, Status, StatusChange, User
from tests import factories
from tests.support.concurrent import at_once, one_winner, people
from tests.support.enforcement import fleet


def _entries(action: str) -> int:
    return db.session.scalar(select(func.count(AuditEntry.id)).where(AuditEntry.action == action))


def _world(app) -> dict:
    with app.app_context():
        f = fleet("nortelandia", "taxi")
        town = f["vehicle"].municipality_id
        db.session.commit()
        [cred] = credentials.issue_missing(town, "vehicle")
        clerk = factories.user("supervisor", "nortelandia")
        db.session.commit()
        return {"credential": cred.id, "licence": f["licence"].id, "user": clerk.id}


def test_eight_cancellations_and_reissues_of_one_credential_take_one(app, live_server):
    w = _world(app)
    admins = people(live_server, app, "admin", "nortelandia")
    base = f"/credenciais/{w['credential']}"
    answers = at_once([(p, f"{base}/{'cancelar' if i % 2 else 'reemitir'}",
                        {"motivo": "Colete perdido na corrida.", "confirmo": "1"})
                       for i, p in enumerate(admins)])
    one_winner(answers, won=(302, 303))
    with app.app_context():
        assert _entries("credential_revoked") == 1
        # a reissue that won made one new credential; a cancellation, none
        assert db.session.scalar(select(func.count(Credential.id))) <= 2


def test_eight_deactivations_of_one_account_take_one(app, live_server):
    w = _world(app)
    admins = people(live_server, app, "admin", "nortelandia")
    answers = at_once([(p, f"/municipio/contas/{w['user']}/desativar", {}) for p in admins])
    assert "já está desativada" in one_winner(answers, won=(302, 303))
    with app.app_context():
        assert _entries("user_disabled") == 1
        assert db.session.get(User, w["user"]).active is False


def test_eight_status_changes_of_one_licence_take_one(app, live_server):
    w = _world(app)
    admins = people(live_server, app, "admin", "nortelandia")
    answers = at_once([(p, f"/cadastro/alvaras/{w['licence']}/situacao",
                        {"to_status": "suspended", "reason": f"Vistoria vencida ({i})."})
                       for i, p in enumerate(admins)])
    one_winner(answers, won=(302, 303))
    with app.app_context():
        assert db.session.get(Licence, w["licence"]).status == Status.SUSPENDED
        assert db.session.scalar(select(func.count(StatusChange.id))) == 1
        assert _entries("status_changed") == 1
