"""An expired sticker's page: the headline says VENCIDA, as the text under it does ("Este
código venceu"), not CANCELADA (which is what the town did to a revoked one); still red, with
no ride details and the report link."""
from __future__ import annotations

from datetime import date

from inspector.credentials import issuing as credentials
from inspector.extensions import db
from tests.support.credentials import banner, regular_mototaxi


def test_an_expired_credential_is_called_vencida_not_cancelada(app, client):
    with app.app_context():
        cred = credentials.issue(regular_mototaxi(), actor="test", today=date(2022, 1, 10))
        db.session.commit()
        token = cred.token
    resp = client.get(f"/v/{token}")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert banner(html) == "CREDENCIAL VENCIDA"
    assert "Este código venceu e não vale mais." in html
    assert "CANCELADA" not in html and "cancelad" not in html
    assert 'class="banner b-expired"' in html                      # the red page (its own state)
    assert "QBA1D23" not in html and "João" not in html
    assert "Denunciar" in html
