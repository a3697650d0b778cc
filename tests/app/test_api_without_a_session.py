"""An API request that carries no session at all is answered as the API's document says:
401 (sign in) on a signed-in route, 403 (the access code) on a holder's route, not the
form's "expired" 400: with no session there is nothing a forged request could borrow. With
a session, a missing CSRF token is still the 400 it was."""
from __future__ import annotations

from tests import factories

INSPECTION = "/api/field/inspections/00000000-0000-4000-8000-000000000001"


def test_no_session_is_401_or_403_and_a_session_without_token_is_400(app, client, make):
    r = client.put(INSPECTION, json={})
    assert (r.status_code, r.json["status"]) == (401, 401)
    assert r.json["error"] == "Entre com seu usuário e senha para continuar."
    r = client.post("/api/push/notice-subscriptions", json={})
    assert r.status_code == 403 and "código de acesso" in r.json["error"]
    client.login(make(factories.user, "agent", "tapurah").username)
    r = client.put(INSPECTION, json={})
    assert r.status_code == 400 and "Formulário expirado" in r.json["error"]
