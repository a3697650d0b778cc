"""The town's law travels with its backups (docs/operations.md): a town whose pack comes from
RULES_EXTRA_DIR is backed up with its pack and law text (SHA-256 in the manifest, with the
program's version); a restore without a folder for them is refused, one with one puts them
back; a start and `production check` refuse a town whose pack is missing or changed
(`rules accept` takes a changed law into use); and the passenger's page of a town whose law
cannot be read says "Verificação indisponível" (503, Retry-After), never IRREGULAR nor the
program's internal text, while the operator is told in the log and on /municipio."""
from __future__ import annotations

import hashlib
import json
import secrets
import shutil
from pathlib import Path

import pytest

from inspector import create_app
from inspector.config import version
from inspector.extensions import db
from tests import factories
from tests.support.sixth_town import BASE, TOWN, fleet_csv, law_folder

PACK = "santa-aurora-101-2020"
LAW = "santa-aurora-lei-101-2020-mototaxi.txt"  # its law text, in the folder and the backup
STRONG = {"SECRET_KEY": secrets.token_hex(32), "PUBLIC_BASE_URL": BASE}


def town_from_a_folder(app, tmp_path) -> tuple:
    """Santa Aurora created from its own law folder, its fleet imported, credentials issued:
    (the app, the law folder, a passenger URL path)."""
    from inspector.clock import default_day

    folder = law_folder(tmp_path)
    root = tmp_path / "origin"
    origin = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": app.config[
        "SQLALCHEMY_DATABASE_URI"], "SECRET_KEY": "test-secret", "LOG_LEVEL": "ERROR",
        "EVIDENCE_DIR": str(root / "evidence"), "BACKUP_INSTANCE_DIR": str(root / "instance"),
        "RULES_EXTRA_DIR": str(folder), "PUBLIC_BASE_URL": BASE})
    origin.test_client_class = app.test_client_class
    cli = origin.test_cli_runner()
    made = cli.invoke(args=["towns", "create", "--ibge", "5109996", "--name",
                            "Santa Aurora do Norte", "--slug", TOWN, "--population-seat", "8000",
                            "--population-interior", "2500", "--population-source", "teste",
                            "--pack", PACK])
    assert made.exit_code == 0, made.output
    csv = tmp_path / "frota.csv"
    csv.write_bytes(fleet_csv(default_day()))
    assert cli.invoke(args=["registry", "import", "--town", TOWN, str(csv)]).exit_code == 0
    assert cli.invoke(args=["credentials", "issue", "--town", TOWN]).exit_code == 0
    listed = json.loads(cli.invoke(args=["credentials", "list", "--town", TOWN, "--json"]).output)
    return origin, folder, listed["credentials"][0]["url"].removeprefix(BASE)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_backup_carries_the_towns_law_and_the_restore_puts_it_back(app, empty_instance,
                                                                      tmp_path):
    origin, folder, _ = town_from_a_folder(app, tmp_path)
    made = origin.test_cli_runner().invoke(args=["backup", "create", str(tmp_path / "b"), "--json"])
    assert made.exit_code == 0, made.output
    backup = Path(json.loads(made.output)["folder"])
    manifest = json.loads((backup / "manifest.json").read_text())
    assert manifest["version"] == version()
    pack_file = folder / "packs" / f"{PACK}.yaml"
    assert manifest["rule_packs"][PACK] == {"town": TOWN, "origin": "extra",
                                            "sha256": sha(pack_file),
                                            "path": f"rules/packs/{PACK}.yaml"}
    restored = {p["restore"] for p in manifest["parts"]}
    assert {f"rules/packs/{PACK}.yaml", f"rules/laws/{LAW}"} <= restored

    # the new server has no folder for the town's law: refused, nothing written
    refused = empty_instance.test_cli_runner().invoke(args=["backup", "restore", str(backup)])
    assert refused.exit_code == 2
    assert "defina RULES_EXTRA_DIR" in refused.output and "nada foi escrito" in refused.output

    # with a new, empty folder named in RULES_EXTRA_DIR: the law is put back, byte for byte
    target = tmp_path / "leis-restauradas"
    target.mkdir()
    new = create_app({**empty_instance.config, "RULES_EXTRA_DIR": str(target)})
    done = new.test_cli_runner().invoke(args=["backup", "restore", str(backup)])
    assert done.exit_code == 0, done.output
    assert sha(target / "packs" / f"{PACK}.yaml") == sha(pack_file)
    assert sha(target / "laws" / LAW) == \
        sha(folder / "laws" / LAW)
    check = create_app({**new.config, **STRONG}).test_cli_runner().invoke(
        args=["production", "check"])
    assert check.exit_code == 0, check.output


def test_a_start_and_production_check_refuse_a_missing_or_changed_pack(app, schema, tmp_path,
                                                                       capsys):
    origin, folder, _ = town_from_a_folder(app, tmp_path)
    settings = {**origin.config, **STRONG, "INSPECTOR_ENV": "production"}
    with origin.app_context():   # the town's accounts: no demo password, so only the law speaks
        factories.user("admin", TOWN, username="admin.aurora")
        db.session.commit()
    create_app(settings)   # starts: every pack is there, as recorded

    # the pack's file changed (someone edited it in place): start and check refuse
    pack_file = folder / "packs" / f"{PACK}.yaml"
    original = pack_file.read_bytes()
    pack_file.write_bytes(original + b"\n# editado\n")
    with pytest.raises(SystemExit) as stop:
        create_app(settings)
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and f"o pacote {PACK}" in lines[0] and "difere do registrado" in lines[0]
    check = create_app({**settings, "INSPECTOR_ENV": "development"}).test_cli_runner().invoke(
        args=["production", "check"])
    assert check.exit_code == 2 and f"rules accept {PACK}" in check.output
    # the law did change: the operator takes the new version into use, and it starts
    accepted = origin.test_cli_runner().invoke(args=["rules", "accept", PACK])
    assert accepted.exit_code == 0, accepted.output
    create_app(settings)

    # the folder is gone (a restore without it): refused, naming the town
    shutil.rmtree(folder / "packs")
    with pytest.raises(SystemExit) as stop:
        create_app(settings)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"o município '{TOWN}' não tem pacote de regras carregado" in err


def test_a_passenger_page_of_a_town_whose_law_is_missing_is_unavailable(app, tmp_path, caplog):
    origin, folder, url = town_from_a_folder(app, tmp_path)
    client = origin.test_client()
    assert "REGULAR" in client.get(url).get_data(as_text=True)

    # the same database served without the town's folder of law
    bare = create_app({**origin.config, "RULES_EXTRA_DIR": ""})
    bare.test_client_class = app.test_client_class
    bare.logger.addHandler(caplog.handler)
    page = bare.test_client().get(url)
    text = page.get_data(as_text=True)
    assert page.status_code == 503 and int(page.headers["Retry-After"]) > 0
    assert "Verificação indisponível" in text
    for internal in ("IRREGULAR", "desconhecida", "conhecidas", "Não embarque", "santa-aurora"):
        assert internal not in text
    assert any("rule pack missing" in r.getMessage() for r in caplog.records)

    # the town's admin sees it on the setup page
    with bare.app_context():
        factories.user("admin", TOWN, username="admin.aurora")
        db.session.commit()
    admin = bare.test_client()
    admin.login("admin.aurora")
    setup = admin.get("/municipio").get_data(as_text=True)
    assert "Verificação indisponível" in setup
