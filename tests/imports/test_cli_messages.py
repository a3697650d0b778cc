"""The import command's complaints about the file itself are in Portuguese, like the rest."""
from __future__ import annotations

import pytest

from inspector.extensions import db
from tests import factories


@pytest.fixture
def towns(app):
    with app.app_context():
        factories.town("tapurah")
        db.session.commit()


def test_a_missing_file_is_said_in_portuguese(runner, towns, tmp_path):
    missing = tmp_path / "frota.csv"
    result = runner.invoke(args=["registry", "import", "--town", "tapurah", str(missing)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"erro: não consegui ler {str(missing)!r}: o arquivo não existe"

