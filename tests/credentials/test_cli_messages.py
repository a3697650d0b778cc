"""`flask credentials sheet` says in Portuguese why it could not write the PDF."""
from __future__ import annotations

from inspector.extensions import db
from tests import factories


def test_a_missing_folder_is_said_in_portuguese(app, runner, tmp_path):
    with app.app_context():
        factories.town("tapurah")
        db.session.commit()
    out = tmp_path / "nao-existe" / "adesivos.pdf"
    result = runner.invoke(args=["credentials", "sheet", "--town", "tapurah", "--kind",
                                 "vehicle", "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"erro: não foi possível gravar {out}: a pasta não existe"


def _credentials(app) -> int:
    from inspector.models import Credential

    with app.app_context():
        return db.session.scalar(db.select(db.func.count()).select_from(Credential))


def test_issue_missing_into_a_missing_folder_issues_nothing(app, runner, tmp_path):
    """The stickers would be issued (QR codes in force) with no sheet to print them on."""
    with app.app_context():
        factories.vehicle("tapurah")
        db.session.commit()
    out = tmp_path / "nao-existe" / "adesivos.pdf"
    result = runner.invoke(args=["credentials", "sheet", "--town", "tapurah", "--kind",
                                 "vehicle", "--issue-missing", "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"erro: não foi possível gravar {out}: a pasta não existe; "
                                     "nenhuma credencial foi emitida")
    assert _credentials(app) == 0


def test_a_pdf_write_that_fails_midway_issues_nothing_and_leaves_no_file(app, runner, tmp_path,
                                                                         monkeypatch):
    """The folder is there and writable, but the disk fills up while the PDF is written."""
    import errno
    from pathlib import Path

    with app.app_context():
        factories.vehicle("tapurah")
        db.session.commit()
    out = tmp_path / "adesivos.pdf"

    def disk_full(self, data):
        with open(self, "wb") as f:
            f.write(data[:100])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    result = runner.invoke(args=["credentials", "sheet", "--town", "tapurah", "--kind",
                                 "vehicle", "--issue-missing", "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"erro: não foi possível gravar {out}: o disco está cheio; "
                                     "nenhuma credencial foi emitida")
    assert _credentials(app) == 0 and not out.exists()
    monkeypatch.undo()
    result = runner.invoke(args=["credentials", "sheet", "--town", "tapurah", "--kind",
                                 "vehicle", "--issue-missing", "--out", str(out)])
    assert result.exit_code == 0 and result.output.strip() == f"{out}: 1 credenciais"
    assert _credentials(app) == 1 and out.read_bytes().startswith(b"%PDF")
