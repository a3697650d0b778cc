"""Reading pages and signing in with the test client."""
from __future__ import annotations

import re

from tests import factories


def text(response) -> str:
    return response.get_data(as_text=True)


def field_error(html: str, name: str) -> str | None:
    """The error shown next to a field, or None (and the field must say it is invalid)."""
    m = re.search(rf'<p class="field-error" id="f-{name}-error">([^<]+)</p>', html)
    if m:
        assert re.search(rf'id="f-{name}"[^>]*aria-invalid="true"', html), name
    return m.group(1) if m else None


def signed_in(app, make, role: str, town: str):
    user = make(factories.user, role, town)
    c = app.test_client()
    assert c.login(user.username).status_code == 302
    return c, user


def login(app, username):
    c = app.test_client()
    assert c.login(username).status_code == 302
    return c


HX = {"HX-Request": "true"}
