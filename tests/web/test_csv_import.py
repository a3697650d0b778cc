"""The registry import through its two doors: the CLI and the admin upload page."""
from __future__ import annotations

import io
import json
import re

import pytest

from inspector.extensions import db
from inspector.models import Vehicle

from .. import factories
from ..registry_csv import HEADER, counts, row, sheet, to_csv

BAD_500 = {"line_251": {"alvara_fim": "01/02/2025"}}  # the licence ends before it starts
BAD_MESSAGE = "linha 251, campo alvara_fim: deve ser depois do início da validade"


@pytest.fixture
def towns(app):
    with app.app_context():
        factories.town("tapurah")
        factories.town("sapezal")
        db.session.commit()


def table_counts(app) -> dict[str, int]:
    with app.app_context():
        return counts()


# ----------------------------------------------------------------------- CLI
def cli(runner, *args):
    return runner.invoke(args=["registry", "import", *args])


def test_cli_one_bad_row_among_500_writes_nothing(app, runner, towns, tmp_path):
    path = tmp_path / "tapurah.csv"
    path.write_bytes(sheet(501, **BAD_500))
    before = table_counts(app)
    result = cli(runner, "--town", "tapurah", str(path))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [BAD_MESSAGE,
                                          "erro: 1 linha(s) com problemas; nada foi gravado"]
    assert table_counts(app) == before


def test_cli_imports_a_good_file_once(app, runner, towns, tmp_path):
    path = tmp_path / "tapurah.csv"
    path.write_bytes(sheet(25))
    dry = cli(runner, "--town", "tapurah", str(path), "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["created"]["vehicle"] == 25
    assert table_counts(app)["vehicles"] == 0

    first = cli(runner, "--town", "tapurah", str(path))
    assert first.exit_code == 0, first.output
    assert first.stdout.startswith("importado: 25 linhas; foram criados: 3 permissionários, "
                                   "25 veículos")
    after = table_counts(app)
    assert after["vehicles"] == 25 and after["audit"] == 3 + 25 * 4 + 3

    again = cli(runner, "--town", "tapurah", str(path), "--json")
    assert again.exit_code == 0
    assert json.loads(again.stdout)["created"]["vehicle"] == 0
    assert table_counts(app) == after


@pytest.mark.parametrize("args, message", [
    (["--town", "cuiaba"], "erro: município desconhecido: 'cuiaba'"),
    (["--town", "tapurah", "/nao/existe.csv"], "erro: não consegui ler '/nao/existe.csv'"),
])
def test_cli_bad_arguments_are_one_line_and_exit_2(runner, towns, tmp_path, args, message):
    path = tmp_path / "ok.csv"
    path.write_bytes(sheet(1))
    result = cli(runner, *args, *([] if len(args) == 3 else [str(path)]))
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(message)


def test_cli_wrong_header_is_refused_naming_the_columns(app, runner, towns, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(to_csv([row(0)], header=[h for h in HEADER if h != "cor"] + ["chassi"]))
    result = cli(runner, "--town", "tapurah", str(path))
    assert result.exit_code == 2
    assert result.stderr.strip() == ("erro: cabeçalho inválido: faltam as colunas cor; colunas "
                                     "desconhecidas: chassi (veja a planilha modelo)")


# ------------------------------------------------------------------ web page
def upload(client, data: bytes, name: str = "frota.csv"):
    token = client.csrf_token("/cadastro/importar")
    return client.post("/cadastro/importar", content_type="multipart/form-data",
                       data={"csrf_token": token, "arquivo": (io.BytesIO(data), name)})


@pytest.fixture
def admin(client, make, towns):
    user = make(factories.user, "admin", "tapurah")
    client.login(user.username)
    return user


def test_page_one_bad_row_among_500_writes_nothing_and_shows_it(app, client, admin):
    before = table_counts(app)
    r = upload(client, sheet(501, **BAD_500))
    html = r.get_data(as_text=True)
    assert r.status_code == 422
    assert "1 linha(s) com problemas" in html and "Nada foi gravado" in html
    cells = re.findall(r'<td data-label="[^"]+">(.*?)</td>', html)
    assert cells[:3] == ["251", "<code>alvara_fim</code>",
                         "deve ser depois do início da validade"]
    assert 'name="token"' not in html  # nothing to confirm
    assert table_counts(app) == before


def test_page_dry_run_then_import(app, client, admin):
    r = upload(client, sheet(30))
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "Simulação sem erros" in html
    assert "seriam criados: 3 permissionários, 30 veículos" in html
    assert table_counts(app)["vehicles"] == 0
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)

    r = client.post_form("/cadastro/importar/confirmar", {"token": token},
                         token_from="/cadastro/importar")
    assert r.status_code == 303 and r.headers["Location"].endswith("/cadastro/importar")
    assert "Importação concluída (frota.csv): 30 linhas" in \
        client.get("/cadastro/importar").get_data(as_text=True)
    with app.app_context():
        vehicles = db.session.scalars(db.select(Vehicle)).all()
        assert len(vehicles) == 30 and {v.municipality_id for v in vehicles} == {admin.municipality_id}
    # The same token cannot be used twice.
    again = client.post_form("/cadastro/importar/confirmar", {"token": token},
                             token_from="/cadastro/importar")
    assert again.status_code == 422 and "expirou" in again.get_data(as_text=True)


def test_page_refuses_a_wrong_header_and_a_missing_file(client, admin):
    r = upload(client, to_csv([row(0)], header=HEADER[1:]))
    assert r.status_code == 422
    assert "Arquivo recusado: cabeçalho inválido: faltam as colunas placa" in \
        r.get_data(as_text=True)
    token = client.csrf_token("/cadastro/importar")
    r = client.post("/cadastro/importar", data={"csrf_token": token})
    assert r.status_code == 422 and "Escolha o arquivo CSV" in r.get_data(as_text=True)


def test_another_admins_token_is_refused(app, client, admin, make):
    html = upload(client, sheet(3)).get_data(as_text=True)
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    other = make(factories.user, "admin", "sapezal")
    client.post_form("/sair", token_from="/inicio")
    client.login(other.username)
    r = client.post_form("/cadastro/importar/confirmar", {"token": token},
                         token_from="/cadastro/importar")
    assert r.status_code == 422 and table_counts(app)["vehicles"] == 0


@pytest.mark.parametrize("role", ["supervisor", "agent"])
def test_non_admins_get_403(client, make, towns, role):
    user = make(factories.user, role, "tapurah")
    client.login(user.username)
    assert client.get("/cadastro/importar").status_code == 403
    token = client.csrf_token("/inicio")
    r = client.post("/cadastro/importar", content_type="multipart/form-data",
                    data={"csrf_token": token, "arquivo": (io.BytesIO(sheet(1)), "x.csv")})
    assert r.status_code == 403
    assert client.get("/cadastro/importar/modelo.csv").status_code == 403


def test_upload_without_csrf_token_is_refused(app, client, admin):
    r = client.post("/cadastro/importar", content_type="multipart/form-data",
                    data={"arquivo": (io.BytesIO(sheet(1)), "x.csv")})
    assert r.status_code == 400 and table_counts(app)["vehicles"] == 0


def test_the_example_sheet_imports_cleanly(app, client, admin):
    r = client.get("/cadastro/importar/modelo.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    report = upload(client, r.data)
    assert report.status_code == 200, report.get_data(as_text=True)[-3000:]
