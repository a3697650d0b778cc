"""Accounts, sessions, CSRF, security headers, health and error pages."""
from __future__ import annotations

from inspector.accounts import set_active
from inspector.extensions import db
from inspector.models import UserSession
from tests import factories


def test_healthz_answers_json_once_database_answers(client):
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json["status"] == "ok"


def test_login_page_is_portuguese_and_has_security_headers(client):
    r = client.get("/entrar")
    assert r.status_code == 200
    assert "Entrar" in r.get_data(as_text=True)
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "same-origin"


def test_security_headers_on_errors_and_static_files(client):
    for path in ("/nao-existe", "/static/css/app.css"):
        r = client.get(path)
        assert "Content-Security-Policy" in r.headers, path
        assert r.headers["X-Content-Type-Options"] == "nosniff", path


def test_a_static_file_reads_no_session_and_keeps_the_idle_clock(client, app, make):
    """A phone installing the field app fetches some forty static files: none looks the
    session up, and none counts as activity for the idle timeout."""
    from datetime import timedelta

    from sqlalchemy import event

    agent = make(factories.user, "agent", "tapurah")
    client.login(agent.username)
    with app.app_context():
        row = db.session.scalar(db.select(UserSession))
        row.last_seen_at = row.last_seen_at - timedelta(minutes=10)
        db.session.commit()
        seen = row.last_seen_at
        engine = db.engine
    sent = []
    listener = lambda *args: sent.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        for path in ("/static/css/field.css", "/static/vendor/htmx.min.js"):
            assert client.get(path).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    assert sent == []
    with app.app_context():
        assert db.session.scalar(db.select(UserSession)).last_seen_at == seen
    assert client.get("/api/field/session").status_code == 200  # a page or API call does count
    with app.app_context():
        assert db.session.scalar(db.select(UserSession)).last_seen_at > seen


def test_errors_answer_json_or_html_by_accept_header(client):
    html = client.get("/nao-existe", headers={"Accept": "text/html"})
    assert html.status_code == 404 and html.mimetype == "text/html"
    assert "Página não encontrada" in html.get_data(as_text=True)
    js = client.get("/nao-existe", headers={"Accept": "application/json"})
    assert js.status_code == 404 and js.json["error"] == "Página não encontrada."


def test_login_sets_a_secure_httponly_samesite_cookie(client, make):
    u = make(factories.user, "agent")
    r = client.login(u.username)
    assert r.status_code == 302
    cookie = r.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert client.get("/inicio").status_code == 200


def test_wrong_password_and_unknown_user_get_the_same_answer(client, make):
    u = make(factories.user, "agent")
    a = client.login(u.username, "senha-errada-000")
    b = client.login("ninguem", "senha-errada-000")
    assert a.status_code == b.status_code == 401
    assert "Usuário ou senha incorretos" in a.get_data(as_text=True)
    assert "Usuário ou senha incorretos" in b.get_data(as_text=True)


def test_post_without_csrf_token_is_refused(client, make):
    u = make(factories.user, "agent")
    r = client.post("/entrar", data={"username": u.username, "password": factories.PASSWORD})
    assert r.status_code == 400
    assert "Formulário expirado" in r.get_data(as_text=True)


def test_logout_really_ends_the_session_even_for_a_copied_cookie(client, app, make):
    u = make(factories.user, "supervisor")
    client.login(u.username)
    stolen = client.get_cookie("inspector_session").value
    client.post_form("/sair")
    assert client.get("/inicio").status_code == 302
    other = app.test_client()
    other.set_cookie("inspector_session", stolen)
    assert other.get("/inicio").status_code == 302
    with app.app_context():
        assert db.session.query(UserSession).count() == 0


def test_disabling_an_account_ends_its_sessions_at_once(client, app, make):
    u = make(factories.user, "agent")
    client.login(u.username)
    assert client.get("/inicio").status_code == 200
    with app.app_context():
        set_active(u.username, False)
        db.session.commit()
    assert client.get("/inicio").status_code == 302
    r = client.login(u.username)
    assert r.status_code == 401 and "desativada" in r.get_data(as_text=True)


def test_password_change_checks_current_and_length_then_works(client, make):
    u = make(factories.user, "agent")
    client.login(u.username)
    r = client.post_form("/senha", {"current": "errada", "new": "curta", "confirm": "curta"})
    assert r.status_code == 422
    body = r.get_data(as_text=True)
    assert "Senha atual incorreta" in body and "pelo menos 10" in body
    r = client.post_form("/senha", {"current": factories.PASSWORD, "new": "nova-senha-longa",
                                    "confirm": "nova-senha-longa"})
    assert r.status_code == 302
    client.post_form("/sair")
    assert client.login(u.username).status_code == 401
    assert client.login(u.username, "nova-senha-longa").status_code == 302


def test_login_is_rate_limited(client, make):
    u = make(factories.user, "agent")
    codes = [client.login(u.username, "senha-errada-000").status_code for _ in range(12)]
    assert codes[:10] == [401] * 10
    assert codes[-1] == 429


def test_login_does_not_redirect_off_site(client, make):
    u = make(factories.user, "agent")
    token = client.csrf_token()
    r = client.post("/entrar?next=//evil.example/x",
                    data={"username": u.username, "password": factories.PASSWORD,
                          "csrf_token": token})
    assert r.headers["Location"].endswith("/inicio")
