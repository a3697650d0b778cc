"""A decree value too large for the ledger is refused as too large, not as 'not above zero'."""
from __future__ import annotations

import re
from html import unescape

from inspector.extensions import db
from inspector.models import DecreeValue
from tests.support.laws import decree_form
from tests.support.web import signed_in, text


def test_an_amount_with_too_many_digits_is_called_too_large(app, make):
    client, _ = signed_in(app, make, "admin", "nova-santa-helena")
    r = client.post_form("/conformidade/decretos", decree_form(amount="1250500000000"),
                         token_from="/conformidade")
    assert r.status_code == 422
    error = re.search(r'<p class="field-error" id="d-amount-error">([^<]+)</p>', text(r))
    assert error and "alto demais" in unescape(error.group(1))
    assert "maior que zero" not in unescape(error.group(1))
    with app.app_context():
        assert db.session.scalar(db.select(DecreeValue)) is None
