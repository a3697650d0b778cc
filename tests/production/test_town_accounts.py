"""Accounts from the browser: the town's admin creates agents (with the
badge number Tapurah Lei 406/2001 Art. 26 asks for: "agentes credenciados e identificados"),
supervisors and admins on /municipio/contas, with a generated password shown once or one
typed twice under the CLI's rule, and deactivates them; CSRF-checked, audited, admin only,
and never across towns."""
from __future__ import annotations

import re

import pytest

from inspector import audit
from inspector.accounts import MIN_PASSWORD
from inspector.extensions import db
from inspector.models import AuditEntry, User, UserSession
from tests import factories

PAGE = "/municipio/contas"


def _admin(client, make, town="tapurah", username="admin.t"):
    make(factories.user, "admin", town, username=username)
    assert client.login(username).status_code == 302


def _post(client, data):
    return client.post_form(PAGE, data, token_from=PAGE)


def _users(app) -> int:
    with app.app_context():
        return db.session.scalar(db.select(db.func.count(User.id)))


def test_an_agent_with_a_generated_password_shown_once(app, client, make):
    _admin(client, make)
    r = _post(client, {"name": "Maria  da Silva", "username": "Maria.Silva", "role": "agent",
                       "badge_number": "0123/2026", "password_mode": "gerar"})
    assert r.status_code == 201, r.get_data(as_text=True)
    assert r.headers["Cache-Control"] == "no-store"
    html = r.get_data(as_text=True)
    password = re.search(r'<code id="senha-gerada">([^<]+)</code>', html).group(1)
    assert len(password) >= MIN_PASSWORD and "só desta vez" in html
    assert 'id="conta-' in html and "maria.silva" in html and "0123/2026" in html
    # shown once: the list opened again does not have it
    assert password not in client.get(PAGE).get_data(as_text=True)
    with app.app_context():
        user = db.session.scalar(db.select(User).filter_by(username="maria.silva"))
        assert (user.name, user.role.value, user.badge_number, user.active) == \
            ("Maria da Silva", "agent", "0123/2026", True)
        entry = db.session.scalar(db.select(AuditEntry).filter_by(action="user_created",
                                                                  entity_id=str(user.id)))
        assert entry.actor == "admin.t" and '"badge_number":"0123/2026"' in entry.after
        assert password not in (entry.after or "") and audit.verify()[1] is None
    # the badge is the one the field app and the notices print
    agent = app.test_client()
    assert agent.login("maria.silva", password).status_code == 302


def test_a_typed_password_follows_the_cli_rule_and_is_never_echoed(app, client, make):
    _admin(client, make)
    base = {"name": "João Pereira", "username": "joao.p", "role": "supervisor",
            "password_mode": "digitar"}
    short = _post(client, base | {"password": "curta", "password_confirm": "curta"})
    assert short.status_code == 422
    assert f"pelo menos {MIN_PASSWORD} caracteres" in short.get_data(as_text=True)
    typed = "uma senha comprida 42"
    other = _post(client, base | {"password": typed, "password_confirm": typed + "x"})
    assert other.status_code == 422 and "as duas senhas não são iguais" in other.get_data(
        as_text=True)
    assert typed not in other.get_data(as_text=True)      # not put back in the form
    assert _users(app) == 1
    ok = _post(client, base | {"password": typed, "password_confirm": typed})
    assert ok.status_code == 201 and typed not in ok.get_data(as_text=True)
    assert 'id="senha-gerada"' not in ok.get_data(as_text=True)
    assert app.test_client().login("joao.p", typed).status_code == 302


@pytest.mark.parametrize("change, field, words", [
    ({"badge_number": ""}, "badge_number", "agentes credenciados e identificados"),
    ({"badge_number": "=1+1"}, "badge_number", "use letras, números"),
    ({"name": "Maria"}, "name", "nome completo"),
    ({"name": "Maria <script>"}, "name", "use só letras"),
    ({"name": "x" * 500}, "name", "longo demais (máximo 120"),
    ({"username": "maría"}, "username", "letras sem acento"),
    ({"username": "admin.t"}, "username", "já existe"),
    ({"role": "holder"}, "role", "escolha o perfil"),
    ({"password_mode": "outro"}, "password_mode", "gerar uma senha ou digitá-la"),
])
def test_every_refusal_names_its_field_in_portuguese_and_writes_nothing(app, client, make, change,
                                                                       field, words):
    _admin(client, make)
    with app.app_context():
        entries = db.session.scalar(db.select(db.func.count(AuditEntry.id)))
    data = {"name": "Ana Costa", "username": "ana.costa", "role": "agent", "badge_number": "77",
            "password_mode": "gerar"} | change
    r = _post(client, data)
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert f'href="#c-{field}"' in html and words in html
    assert _users(app) == 1
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(AuditEntry.id))) == entries


def test_a_badge_is_not_given_twice_in_the_town(app, client, make):
    make(factories.user, "agent", "tapurah", username="ag.1", badge_number="15")
    make(factories.user, "agent", "sapezal", username="ag.s", badge_number="16")
    _admin(client, make)
    data = {"name": "Ana Costa", "username": "ana.costa", "role": "agent",
            "password_mode": "gerar"}
    assert "já é de outra conta ativa" in _post(client, data | {"badge_number": "15"}) \
        .get_data(as_text=True)
    assert _post(client, data | {"badge_number": "16"}).status_code == 201  # Sapezal's badge


def test_without_the_csrf_token_nothing_is_created(app, client, make):
    _admin(client, make)
    r = client.post(PAGE, data={"name": "Ana Costa", "username": "ana.costa", "role": "admin",
                                "password_mode": "gerar"})
    assert r.status_code == 400 and _users(app) == 1


def test_deactivating_ends_the_sessions_and_the_sign_in(app, client, make):
    _admin(client, make)
    agent = make(factories.user, "agent", "tapurah", username="ag.t")
    phone = app.test_client()
    assert phone.login("ag.t").status_code == 302
    assert phone.get("/inicio").status_code == 200
    page = client.get(PAGE).get_data(as_text=True)
    assert f'action="/municipio/contas/{agent.id}/desativar"' in page
    r = client.post_form(f"/municipio/contas/{agent.id}/desativar", token_from=PAGE)
    assert r.status_code == 302
    assert "desativada" in client.get(PAGE).get_data(as_text=True)
    assert phone.get("/inicio").status_code == 302          # its session ended at once
    assert app.test_client().login("ag.t").status_code != 302
    with app.app_context():
        assert db.session.get(User, agent.id).active is False
        assert db.session.scalar(db.select(db.func.count(UserSession.id)).filter_by(
            user_id=agent.id)) == 0
        entry = db.session.scalar(db.select(AuditEntry).filter_by(action="user_disabled"))
        assert entry.actor == "admin.t" and entry.entity_id == str(agent.id)
    again = client.post_form(f"/municipio/contas/{agent.id}/desativar", token_from=PAGE)
    assert again.status_code == 409 and "já está desativada" in again.get_data(as_text=True)


def test_an_admin_cannot_deactivate_their_own_account(app, client, make):
    _admin(client, make)
    with app.app_context():
        me = db.session.scalar(db.select(User).filter_by(username="admin.t"))
    r = client.post_form(f"/municipio/contas/{me.id}/desativar", token_from=PAGE)
    assert r.status_code == 422 and "própria conta" in r.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(User, me.id).active is True


def test_another_towns_admin_neither_sees_nor_touches_them(app, client, make):
    agent = make(factories.user, "agent", "tapurah", username="ag.t", name="Agente de Tapurah")
    _admin(client, make, "sapezal", "admin.s")
    page = client.get(PAGE).get_data(as_text=True)
    assert "ag.t" not in page and "Agente de Tapurah" not in page
    r = client.post_form(f"/municipio/contas/{agent.id}/desativar", token_from=PAGE)
    assert r.status_code == 404
    created = _post(client, {"name": "Ana Costa", "username": "ana.costa", "role": "agent",
                             "badge_number": "1", "password_mode": "gerar"})
    assert created.status_code == 201
    with app.app_context():
        assert db.session.get(User, agent.id).active is True
        ana = db.session.scalar(db.select(User).filter_by(username="ana.costa"))
        assert ana.municipality.slug == "sapezal"      # always the admin's own town


@pytest.mark.parametrize("role", ["agent", "supervisor"])
def test_only_the_admin_opens_or_posts(app, client, make, role):
    make(factories.user, role, "tapurah", username="u.t")
    client.login("u.t")
    assert client.get(PAGE).status_code == 403
    r = client.post_form(PAGE, {"name": "Ana Costa", "username": "ana.costa", "role": "admin",
                                "password_mode": "gerar"})
    assert r.status_code == 403 and _users(app) == 1


def test_the_setup_checklist_links_the_accounts_page(app, client, make):
    _admin(client, make)
    html = client.get("/municipio").get_data(as_text=True)
    row = html.split('id="passo-accounts"')[1].split("</tr>")[0]
    assert f'href="{PAGE}"' in row and "pendente" in row
    for role, badge in (("agent", "9"), ("supervisor", "")):
        assert _post(client, {"name": "Ana Costa", "username": f"ana.{role}", "role": role,
                              "badge_number": badge, "password_mode": "gerar"}).status_code == 201
    row = client.get("/municipio").get_data(as_text=True).split('id="passo-accounts"')[1]
    assert "badge-ok" in row.split("</tr>")[0]
