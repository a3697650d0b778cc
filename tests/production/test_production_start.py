"""INSPECTOR_ENV=production: the web server refuses to serve a real town
with the demo password, a weak or missing secret key or a PUBLIC_BASE_URL that is not
https, one pt-BR line per reason and exit status 2; never creates demo data."""
from __future__ import annotations

import base64
import hashlib
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from inspector import create_app
from inspector.config import DEMO_PASSWORD
from inspector.extensions import db
from inspector.models import User
from inspector.operations.production import config_problems, key_entropy_bits
from inspector.security import hash_password
from tests import factories

ROOT = Path(__file__).resolve().parents[2]
GOOD = {"SECRET_KEY": secrets.token_hex(32), "PUBLIC_BASE_URL": "https://fiscaliza.example.mt.gov.br"}


def production(schema, tmp_path, **config):
    """create_app as gunicorn calls it, for a real town, on the test database."""
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": schema, "LOG_LEVEL": "ERROR",
                       "EVIDENCE_DIR": str(tmp_path / "evidence"), "INSPECTOR_ENV": "production",
                       **GOOD, **config})


_RANDOM = hashlib.sha256(b"a key made as secrets.token_bytes(32) would").digest()


@pytest.mark.parametrize("key, weak", [
    (_RANDOM.hex(), False),                                      # 64 hex digits: 256 bits
    (base64.urlsafe_b64encode(_RANDOM).decode().rstrip("="), False),  # 43 base64url: 258 bits
    (_RANDOM.hex()[:32], True),                                  # 128 bits
    ("test-secret", True),                                       # the tests' own key
    ("ab" * 64, True),                                           # long, but two characters
    ("correct horse battery staple", True),
], ids=["hex-256", "base64url-256", "hex-128", "known", "repeated", "words"])
def test_a_key_is_weak_below_256_bits_or_when_known(key, weak):
    problems = config_problems({"SECRET_KEY": key, "PUBLIC_BASE_URL": "https://x.mt.gov.br"})
    assert bool(problems) is weak, (key, key_entropy_bits(key), problems)
    assert all(p.startswith("SECRET_KEY fraca") for p in problems)


def test_each_reason_is_one_portuguese_line_and_the_start_stops_with_status_2(app, schema,
                                                                              tmp_path, capsys):
    with app.app_context():
        agent = factories.user("agent", username="agente.demo")
        agent.password_hash = hash_password(DEMO_PASSWORD)
        factories.user("admin", username="admin.real")  # its own password: not listed
        db.session.commit()
    with pytest.raises(SystemExit) as stop:
        production(schema, tmp_path, SECRET_KEY="test-secret",
                   PUBLIC_BASE_URL="http://fiscaliza.example.mt.gov.br")
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3, lines
    assert "SECRET_KEY fraca" in lines[0] and "teste ou de demonstração" in lines[0]
    assert "não é https" in lines[1]
    assert "1 conta(s) ativa(s) com a senha de demonstração (agente.demo)" in lines[2]
    assert "admin.real" not in lines[2]


def test_missing_key_and_address_are_named(app, schema, tmp_path, capsys):
    with pytest.raises(SystemExit):
        production(schema, tmp_path, SECRET_KEY=None, PUBLIC_BASE_URL=None)
    err = capsys.readouterr().err
    assert "SECRET_KEY ausente" in err and "PUBLIC_BASE_URL ausente" in err


def test_a_disabled_demo_account_does_not_stop_it_and_a_safe_town_is_served(app, schema,
                                                                              tmp_path):
    with app.app_context():
        old = factories.user("agent", username="agente.antigo")
        old.password_hash, old.active = hash_password(DEMO_PASSWORD), False
        factories.user("admin", username="admin.real")
        db.session.commit()
    served = production(schema, tmp_path)
    assert served.test_client().get("/healthz").status_code == 200
    assert served.config["SESSION_COOKIE_SECURE"] is True


def test_changing_the_demo_password_from_the_command_line_lets_it_start(app, schema, tmp_path):
    with app.app_context():
        u = factories.user("admin", username="admin.tapurah")
        u.password_hash = hash_password(DEMO_PASSWORD)
        db.session.commit()
    with pytest.raises(SystemExit):
        production(schema, tmp_path)
    done = app.test_cli_runner().invoke(args=["users", "password", "admin.tapurah",
                                              "--generate"])
    assert done.exit_code == 0, done.output
    new = done.output.split(": ")[1].split()[0]
    with app.app_context():
        from inspector.security import verify_password
        assert verify_password(db.session.scalar(db.select(User.password_hash)), new)
    production(schema, tmp_path)  # starts


def test_demo_seed_refuses_in_production(app, schema, tmp_path):
    prod = production(schema, tmp_path)
    done = prod.test_cli_runner().invoke(args=["demo", "seed"])
    assert done.exit_code == 2
    assert "nunca são criados em produção" in done.output
    with prod.app_context():
        assert db.session.scalar(db.select(db.func.count(User.id))) == 0


def test_gunicorn_prints_the_reasons_and_exits_2(app, schema, tmp_path):
    """The command `make serve` and deploy/inspector-web.service run, for real."""
    with app.app_context():
        u = factories.user("admin", username="admin.demo")
        u.password_hash = hash_password(DEMO_PASSWORD)
        db.session.commit()
    env = dict(os.environ, INSPECTOR_ENV="production", DATABASE_URL=schema,
               SECRET_KEY=GOOD["SECRET_KEY"], PUBLIC_BASE_URL="http://127.0.0.1:9",
               EVIDENCE_DIR=str(tmp_path / "evidence"), LOG_LEVEL="ERROR")
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    done = subprocess.run([gunicorn, "--preload", "--workers", "1", "--bind", "127.0.0.1:0",
                           "inspector:create_app()"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    reasons = [x for x in done.stderr.splitlines() if x.startswith("inspector: produção recusada")]
    assert len(reasons) == 2, done.stderr
    assert "não é https" in reasons[0] and "admin.demo" in reasons[1]
