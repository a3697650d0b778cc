"""Fixtures of the import's tests."""
from __future__ import annotations

import pytest

from inspector.extensions import db


@pytest.fixture(name="town")
def tapurah(app):
    """An app context and Tapurah's id (the `town` fixture of the import tests)."""
    from tests import factories

    with app.app_context():
        t = factories.town("tapurah")
        db.session.commit()
        yield t.id
        db.session.rollback()
