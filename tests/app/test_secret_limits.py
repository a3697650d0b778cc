"""Every place that checks a secret is rate-limited: the login, the password
form (it checks the current password), the holder's access code (by QR link and typed). A new
secret check elsewhere fails the last test until it is limited and listed here. And the
client's address behind a reverse proxy comes from TRUSTED_PROXIES, never from a header the
client writes.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from inspector import security
from inspector.extensions import db
from inspector.models import User
from tests import factories

ROOT = Path(__file__).resolve().parents[2]
LIGHT = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)


@pytest.fixture
def quick(app, monkeypatch):
    """Secrets hashed lightly (dozens of wrong tries take a second; an unknown username is
    checked at the suite's own cost), the holder's 0.5 s floor off."""
    from inspector.blueprints.notifications import holder

    monkeypatch.setattr(holder, "DUMMY_HASH", LIGHT.hash("x"))
    app.config["HOLDER_CODE_MIN_SECONDS"] = 0


def _agent(app, make):
    made = make(factories.user, "agent", "tapurah")
    with app.app_context():
        db.session.get(User, made.id).password_hash = LIGHT.hash(factories.PASSWORD)
        db.session.commit()
    return made


def test_the_password_form_is_limited_per_account(app, make, quick):
    """Ten wrong current passwords are checked (422); the eleventh is refused (429), also from
    a second session of the same account, which counts with the first."""
    user = _agent(app, make)
    first, second = app.test_client(), app.test_client()
    assert first.login(user.username).status_code == 302
    assert second.login(user.username).status_code == 302
    wrong = {"current": "errada-0000", "new": "nova-senha-12345", "confirm": "nova-senha-12345"}
    got = [first.post_form("/senha", wrong, token_from="/senha").status_code for _ in range(6)]
    got += [second.post_form("/senha", wrong, token_from="/senha").status_code for _ in range(5)]
    assert got == [422] * 10 + [429], got
    r = second.post_form("/senha", dict(wrong, current=factories.PASSWORD), token_from="/senha")
    assert r.status_code == 429 and "Muitas tentativas" in r.get_data(as_text=True)
    with app.app_context():  # the refused right password changed nothing
        assert security.verify_password(db.session.get(User, user.id).password_hash,
                                        factories.PASSWORD)


@pytest.mark.parametrize("path, field", [("/notificacoes/tapurah/NOT-2026/000001", None),
                                         ("/notificacoes/consulta", "NOT-2026/000001")])
def test_the_holders_access_code_is_limited(client, quick, path, field):
    """HOLDER_CODE_RATE_LIMIT (10 a minute): the eleventh code is not even checked."""
    token = client.csrf_token("/notificacoes")
    data = {"codigo": "ERRADO1234", "csrf_token": token} | ({"numero": field} if field else {})
    got = [client.post(path, data=data).status_code for _ in range(11)]
    assert got == [403] * 10 + [429], got


def test_a_client_cannot_dodge_the_login_limit_with_x_forwarded_for(app, client, make, quick):
    """TRUSTED_PROXIES=0 (the default): X-Forwarded-For is never read."""
    user = _agent(app, make)
    token = client.csrf_token()
    got = [client.post("/entrar", data={"username": user.username, "password": "errada-0000",
                                        "csrf_token": token},
                       headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
           for i in range(11)]
    assert got == [401] * 10 + [429], got


def test_behind_one_trusted_proxy_the_client_is_the_address_the_proxy_added(app, make, quick):
    """TRUSTED_PROXIES=1: the proxy appends the address it saw; whatever the client wrote
    before it is ignored, so a forged first entry changes nothing, while two real clients
    behind the proxy are counted apart."""
    app.config["TRUSTED_PROXIES"] = 1
    security.trust_proxies(app)
    user = _agent(app, make)
    client = app.test_client()
    token = client.csrf_token()

    def login(forwarded: str) -> int:
        return client.post("/entrar", data={"username": user.username,
                                            "password": "errada-0000", "csrf_token": token},
                           headers={"X-Forwarded-For": forwarded}).status_code
    got = [login(f"10.0.0.{i}, 203.0.113.7") for i in range(11)]
    assert got == [401] * 10 + [429], got
    assert login("203.0.113.8") == 401  # another client behind the same proxy


def test_trusted_proxies_is_read_from_the_environment(monkeypatch, tmp_path):
    from inspector import config

    monkeypatch.setenv("TRUSTED_PROXIES", "2")
    assert config.defaults(tmp_path)["TRUSTED_PROXIES"] == 2
    monkeypatch.delenv("TRUSTED_PROXIES")
    assert config.defaults(tmp_path)["TRUSTED_PROXIES"] == 0
    monkeypatch.setenv("TRUSTED_PROXIES", "um")
    with pytest.raises(SystemExit, match="TRUSTED_PROXIES"):
        config.defaults(tmp_path)


# Where the code checks a secret, and the views that lead there with their limits.
SECRET_CHECKS = re.compile(r"verify_password\(|check_access_code\(|PasswordHasher\(\)\.verify|"
                           r"compare_digest\(|\.verify\(")
KNOWN = {
    "inspector/security.py",                          # verify_password itself
    "inspector/blueprints/auth/routes.py",            # login, password form: limited above
    "inspector/blueprints/notifications/holder.py",   # holder's code: limited above
    "inspector/enforcement/acts.py",                  # check_access_code itself
    "inspector/enforcement/queries.py",               # notice_for_holder: no view calls it
    "inspector/credentials/issuing.py",               # /v/<token>: VERIFY_RATE_LIMIT
    "inspector/credentials/tokens.py",                # the QR's signature: the same pages
    "inspector/operations/production.py",             # the demo password check at start
}


def test_every_secret_check_is_one_we_know_is_limited():
    found = set()
    for path in (ROOT / "inspector").rglob("*.py"):
        if SECRET_CHECKS.search(path.read_text(encoding="utf-8")):
            found.add(str(path.relative_to(ROOT)))
    assert found <= KNOWN, f"a new secret check: limit its views, then list it: {found - KNOWN}"
