"""Passwords of new accounts (docs/operations.md, "Contas"): `users create` takes the badge
and reads the password from a prompt or standard input, never the command line; a real town
(INSPECTOR_ENV=production) refuses the demo password and weak ones; an account an admin or
the CLI made must choose its own password at the first sign-in, and is served nothing else
until then; the account form cites the town's own law for the badge (Tapurah Lei 406/2001
Art. 26 "agentes credenciados e identificados"; the other towns' laws ask for no such thing)."""
from __future__ import annotations

import re
import secrets

import pytest

from inspector import create_app
from inspector.config import DEMO_PASSWORD
from inspector.extensions import db
from inspector.models import User
from tests import factories

GOOD = "cavalo correto bateria grampo"


def _create(app, *args, password=GOOD):
    return app.test_cli_runner().invoke(args=["users", "create", "--town", "tapurah", *args],
                                        input=password + "\n")


def test_users_create_takes_the_badge_and_the_password_from_stdin(app, make):
    make(factories.town, "tapurah")
    done = _create(app, "--username", "ana.souza", "--name", "Ana Souza", "--role", "agent",
                   "--badge", "AF-0042", "--password-stdin")
    assert done.exit_code == 0, done.output
    assert "crachá AF-0042" in done.output and "trocada no primeiro acesso" in done.output
    with app.app_context():
        user = db.session.scalar(db.select(User).filter_by(username="ana.souza"))
        assert (user.badge_number, user.must_change_password) == ("AF-0042", True)


@pytest.mark.parametrize("args, message", [
    (("--role", "supervisor", "--password", GOOD), "a senha não vai na linha de comando"),
    (("--role", "agent", "--password-stdin"), "precisa do número do crachá"),
], ids=["password-in-argv", "agent-without-badge"])
def test_users_create_refuses_a_password_in_argv_and_an_agent_without_badge(app, make, args,
                                                                           message):
    make(factories.town, "tapurah")
    done = _create(app, "--username", "rui.lima", "--name", "Rui Lima", *args)
    assert done.exit_code == 2 and message in done.output
    assert GOOD not in done.output
    with app.app_context():
        assert db.session.scalar(db.select(User).filter_by(username="rui.lima")) is None


@pytest.mark.parametrize("password, refused", [
    (DEMO_PASSWORD, "senha de demonstração"),
    ("1234567890", "senha fraca"),
    ("zzzzzzzzzzzz", "senha fraca"),
    ("rui.lima.2026", "senha fraca"),          # the username inside
    ("curta", "pelo menos 10"),
    (GOOD, None),
], ids=["demo", "common", "repeated", "username", "short", "good"])
def test_a_real_town_refuses_the_demo_password_and_weak_ones(app, schema, tmp_path, make,
                                                           password, refused):
    make(factories.town, "tapurah")
    real = create_app({**app.config, "INSPECTOR_ENV": "production",
                       "SECRET_KEY": secrets.token_hex(32),
                       "PUBLIC_BASE_URL": "https://fiscaliza.tapurah.example.gov.br"})
    done = _create(real, "--username", "rui.lima", "--name", "Rui Lima", "--role", "supervisor",
                   "--password-stdin", password=password)
    if refused is None:
        assert done.exit_code == 0, done.output
    else:
        assert done.exit_code == 2 and refused in done.output, done.output


def test_the_first_sign_in_leads_to_the_password_page_and_nothing_else(app, client, make):
    make(factories.town, "tapurah")
    assert _create(app, "--username", "ana.souza", "--name", "Ana Souza", "--role", "agent",
                   "--badge", "AF-0042", "--password-stdin").exit_code == 0
    signed = client.login("ana.souza", GOOD)
    assert signed.status_code == 302 and signed.headers["Location"].endswith("/senha")
    home = client.get("/inicio")
    assert home.status_code == 302 and home.headers["Location"].endswith("/senha")
    assert client.get("/api/field/session").status_code == 403
    page = client.get("/senha").get_data(as_text=True)
    assert "nenhuma outra página abre" in page
    token = client.csrf_token("/senha")
    same = client.post("/senha", data={"current": GOOD, "new": GOOD, "confirm": GOOD,
                                       "csrf_token": token})
    assert same.status_code == 422 and "diferente da atual" in same.get_data(as_text=True)
    mine = "meu cavalo azul de sempre"
    changed = client.post("/senha", data={"current": GOOD, "new": mine, "confirm": mine,
                                          "csrf_token": client.csrf_token("/senha")})
    assert changed.status_code == 302
    assert client.get("/inicio").status_code == 200
    with app.app_context():
        assert not db.session.scalar(db.select(User).filter_by(username="ana.souza")) \
            .must_change_password


def test_an_account_made_on_the_form_must_change_its_password(app, client, make):
    make(factories.user, "admin", "tapurah", username="admin.t")
    client.login("admin.t")
    typed = "senha escolhida pela admin"
    made = client.post_form("/municipio/contas", {
        "name": "Maria da Silva", "username": "maria.silva", "role": "supervisor",
        "password_mode": "digitar", "password": typed, "password_confirm": typed},
        token_from="/municipio/contas")
    assert made.status_code == 201
    other = app.test_client()
    assert other.login("maria.silva", typed).headers["Location"].endswith("/senha")


@pytest.mark.parametrize("town, cites", [
    ("tapurah", "Tapurah, Lei 406/2001, Art. 26"), ("sapezal", None),
    ("nortelandia", None), ("nova-santa-helena", None)])
def test_the_account_form_cites_the_towns_own_law_for_the_badge(client, make, town, cites):
    make(factories.user, "admin", town, username=f"admin.{town}")
    client.login(f"admin.{town}")
    page = client.get("/municipio/contas").get_data(as_text=True)
    hint = re.search(r"Obrigatório para agentes:[^<]*", page).group(0)
    if cites:
        assert cites in hint
    else:
        assert "Lei" not in hint and "Tapurah" not in hint and "sai em cada notificação" in hint


def test_a_password_reset_by_an_operator_must_be_changed_at_the_next_sign_in(app, client, make):
    make(factories.user, "supervisor", "tapurah", username="rui.lima")   # has chosen their own
    with app.app_context():
        assert not db.session.scalar(db.select(User).filter_by(username="rui.lima")) \
            .must_change_password
    reset = app.test_cli_runner().invoke(args=["users", "password", "rui.lima",
                                               "--password-stdin"], input=GOOD + "\n")
    assert reset.exit_code == 0, reset.output
    assert "deverá ser trocada no próximo acesso" in reset.output and GOOD not in reset.output
    signed = client.login("rui.lima", GOOD)
    assert signed.status_code == 302 and signed.headers["Location"].endswith("/senha")
    assert client.get("/inicio").headers["Location"].endswith("/senha")
    mine = "meu cavalo azul de sempre"
    changed = client.post("/senha", data={"current": GOOD, "new": mine, "confirm": mine,
                                          "csrf_token": client.csrf_token("/senha")})
    assert changed.status_code == 302
    assert client.get("/inicio").status_code == 200
