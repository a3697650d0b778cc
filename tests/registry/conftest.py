"""Fixtures of the registry's tests."""
from __future__ import annotations

import pytest

from inspector.extensions import db
from tests import factories


@pytest.fixture
def towns(app):
    """An app context with two towns; yields (nortelandia_id, tapurah_id). Nortelândia's laws
    cover taxi and moto-taxi (Leis 127/2009 and 030/1998), Tapurah's moto-taxi only."""
    with app.app_context():
        a, b = factories.town("nortelandia"), factories.town("tapurah")
        db.session.commit()
        yield a.id, b.id
        db.session.rollback()
