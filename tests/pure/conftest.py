"""tests/pure: tests that need no database and no app (rules, legal calendar, law texts,
credential tokens, evidence files, the package's layout). They run in seconds:
`pytest tests/pure`. A test here that asks for the database fails (put it in its area's
folder instead); tests/pure/test_tests_layout.py checks their imports."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_database(request):
    """Fail a test of tests/pure that asks for the database, even through another fixture."""
    asked = {"database_url", "schema"} & set(request.fixturenames)
    if asked:
        pytest.fail(f"{request.node.nodeid} needs the database ({', '.join(sorted(asked))}): "
                    "tests/pure is for tests without one; move it to its area's folder")
