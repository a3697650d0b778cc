"""An upgrade from each release, as an operator makes it (docs/operations.md, docs/backups.md):
the backup a released version's own code made through the documented steps
(tests/production/released_backups/<version>/<dialect>/, written by
tests/support/release_backup.py from the release's tag) is restored with this tree into a
new, empty database, evidence folder, law folder and instance; then `db upgrade`,
`production check`, `audit verify`, `evidence verify`, and gunicorn serves the town's
passenger page from the QR code the release issued, signed with the key the backup carried.

No tag and no old checkout are needed (a clean clone has the files); each release in
tests/app/released_migrations.json must have its backups here."""
from __future__ import annotations

import json
import shutil

import pytest
from sqlalchemy.engine import make_url

from inspector.config import version
from tests.support.processes import stop_gunicorn
from tests.support.release_backup import BACKUPS
from tests.support.released_migrations import released
from tests.support.sixth_town import TOWN
from tests.support.town_server import BASE, Server, get

RELEASES = list(released())


def test_every_release_has_its_backups_for_both_databases():
    missing = [f"{v}/{d}" for v in RELEASES for d in ("sqlite", "postgresql")
               if not any((BACKUPS / v / d).glob("*/manifest.json"))]
    assert not missing, ("faltam os backups da versão lançada (docs/releases.md: "
                         f"python -m tests.support.release_backup X.Y.Z ...): {missing}")


@pytest.mark.parametrize("release", RELEASES)
def test_a_towns_backup_from_a_release_restores_and_upgrades_to_this_program(
        release, databases, tmp_path):
    dialect = make_url(databases[1]).get_backend_name()
    kept = BACKUPS / release / ("postgresql" if dialect.startswith("postgres") else "sqlite")
    shutil.copytree(kept, tmp_path / "backups")    # as the town's backup disk holds it
    [backup] = [m.parent for m in (tmp_path / "backups").glob("*/manifest.json")]
    manifest = json.loads((backup / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == release

    laws = tmp_path / "leis"
    laws.mkdir()
    server = Server(tmp_path / "new", databases[1], laws)
    del server.env["SECRET_KEY"]       # the release's key comes back with the backup
    server.flask("backup", "verify", str(backup))
    server.flask("backup", "restore", str(backup))
    assert (laws / "packs" / "santa-aurora-101-2020.yaml").is_file()
    server.flask("db", "upgrade")
    server.flask("production", "check")
    assert json.loads(server.flask("audit", "verify", "--json").stdout)["ok"]
    server.flask("evidence", "verify")
    listed = json.loads(server.flask("credentials", "list", "--town", TOWN, "--json").stdout)
    qr = listed["credentials"][0]["url"].removeprefix(BASE)

    proc, url = server.serve()
    try:
        code, health = get(f"{url}/healthz")
        assert code == 200 and json.loads(health)["version"] == version()
        code, page = get(url + qr)
        # the fleet's dates were those of the release day: the verdict may have changed
        # since, but the page is the town's, read from its law, never "indisponível"
        assert code == 200 and "QBA1D23" in page, page[:500]
        assert "indisponível" not in page
    finally:
        stop_gunicorn(proc)
