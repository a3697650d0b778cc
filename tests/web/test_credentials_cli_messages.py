"""`flask credentials sheet` says in Portuguese why it could not write the PDF."""
from __future__ import annotations

from inspector.extensions import db

from .. import factories


def test_a_missing_folder_is_said_in_portuguese(app, runner, tmp_path):
    with app.app_context():
        factories.town("tapurah")
        db.session.commit()
    out = tmp_path / "nao-existe" / "adesivos.pdf"
    result = runner.invoke(args=["credentials", "sheet", "--town", "tapurah", "--kind",
                                 "vehicle", "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"erro: não foi possível gravar {out}: a pasta não existe"
