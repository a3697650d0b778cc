"""The registry import through its two doors: the CLI and the admin upload page."""
from __future__ import annotations

import html as html_lib
import io
import json
import re
from datetime import date, datetime, timedelta

import pytest

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import AuditEntry, Vehicle
from inspector.registry import vistoria_validity
from tests import factories
from tests.support.registry_csv import HEADER, counts, row, sheet, taxi_row, to_csv, upload

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
                                          "erro: 1 linha com problemas; nada foi gravado"]
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
    assert "1 linha com problemas" in html and "Nada foi gravado" in html
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
    assert r.status_code == 303
    assert r.headers["Location"].split("?")[0].endswith("/cadastro/importar")
    done = client.get(r.headers["Location"]).get_data(as_text=True)
    assert "Importação concluída (frota.csv): 30 linhas" in done
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


# -------------------------------------- shortened vistoria: vistoria_validade_reduzida
# Nova Santa Helena Lei 535/2013 Art. 32 § 3º lets the inspector shorten a vistoria; the
# sheet's vistoria is 15/01/2026, whose normal end is 15/01/2027 (Art. 13 II, yearly).
NSH = "nova-santa-helena"
SHORT = "vistoria_validade_reduzida"


def until_of(app, plate: str):
    with app.app_context():
        return db.session.scalar(db.select(Vehicle.vistoria_valid_until).filter_by(plate=plate))


def nsh_cli(runner, tmp_path, rows, header=None, *args):
    path = tmp_path / "nsh.csv"
    path.write_bytes(to_csv(rows, header=header))
    result = cli(runner, "--town", NSH, str(path), "--json", *args)
    return result, json.loads(result.stdout)


def test_cli_shortened_vistoria_is_imported_audited_and_kept_until_the_sheet_changes_it(
        app, runner, towns, tmp_path):
    with app.app_context():
        factories.town(NSH)
        db.session.commit()
    rows = [taxi_row(0), {**taxi_row(1), SHORT: "15/07/2026"}]
    result, report = nsh_cli(runner, tmp_path, rows)
    assert result.exit_code == 0, result.output
    assert report["created"]["vehicle"] == 2
    plate = rows[1]["placa"]
    assert until_of(app, plate) == date(2026, 7, 15)
    assert until_of(app, rows[0]["placa"]) is None
    with app.app_context():
        vid = db.session.scalar(db.select(Vehicle.id).filter_by(plate=plate))
        entry = db.session.scalars(db.select(AuditEntry).filter_by(
            entity="vehicle", entity_id=str(vid))).one()
        assert json.loads(entry.after)["vistoria_valid_until"] == "2026-07-15"

    before = table_counts(app)
    result, report = nsh_cli(runner, tmp_path, rows)  # the same file again: nothing changes
    assert result.exit_code == 0 and report["updated"]["vehicle"] == 0
    assert table_counts(app) == before

    # A new vistoria with a new shortened day replaces it; a blank cell ends it.
    rows[1] = {**rows[1], "ultima_vistoria": "01/03/2026", SHORT: "2026-08-31"}
    result, report = nsh_cli(runner, tmp_path, rows)
    assert result.exit_code == 0 and report["updated"]["vehicle"] == 1
    assert until_of(app, plate) == date(2026, 8, 31)
    rows[1][SHORT] = ""
    assert nsh_cli(runner, tmp_path, rows)[0].exit_code == 0
    assert until_of(app, plate) is None

    # A file without the column keeps it, unless the vistoria date changes (the shortening
    # was of the earlier vistoria).
    rows[1][SHORT] = "31/08/2026"
    assert nsh_cli(runner, tmp_path, rows)[0].exit_code == 0
    old_header = [h for h in HEADER if h != SHORT]
    assert nsh_cli(runner, tmp_path, rows, old_header)[0].exit_code == 0
    assert until_of(app, plate) == date(2026, 8, 31)
    rows[1]["ultima_vistoria"] = "02/03/2026"
    assert nsh_cli(runner, tmp_path, rows, old_header)[0].exit_code == 0
    assert until_of(app, plate) is None


def errors_shown(html: str) -> list[tuple[str, str, str]]:
    """The page's error table: (line, column, reason) as a person reads them."""
    cells = re.findall(r'<td data-label="Linha">(\d+)</td><td data-label="Campo"><code>'
                       r'([^<]+)</code></td><td data-label="Motivo">([^<]*)</td>', html)
    return [(line, col, html_lib.unescape(why)) for line, col, why in cells]


def test_page_dry_run_lists_every_bad_shortened_day_and_writes_nothing(app, client, make):
    user = make(factories.user, "admin", NSH)
    client.login(user.username)
    rows = [taxi_row(i) for i in range(6)]
    rows[1][SHORT] = "16/01/2027"                                # after the normal end
    rows[2][SHORT] = "15/01/2026"                                # the vistoria's own day
    rows[3][SHORT] = "31/02/2026"                                # no such day
    rows[4].update({"ultima_vistoria": "", SHORT: "15/07/2026"})  # no vistoria
    rows[5][SHORT] = "15/01/2027"                                # the normal end: allowed
    before = table_counts(app)
    r = upload(client, to_csv(rows))
    html = r.get_data(as_text=True)
    assert r.status_code == 422 and "Nada foi gravado" in html and 'name="token"' not in html
    shown = errors_shown(html)
    assert [(line, col) for line, col, _ in shown] == [(str(n), SHORT) for n in (3, 4, 5, 6)]
    reasons = [why for _, _, why in shown]
    assert "não pode passar de 15/01/2027" in reasons[0] and "12 meses" in reasons[0]
    assert "deve terminar depois da vistoria de 15/01/2026" in reasons[1]
    assert "data inválida: '31/02/2026'" in reasons[2]
    assert "informe a data da última vistoria" in reasons[3]
    assert table_counts(app) == before


def test_where_the_law_does_not_allow_it_the_row_is_refused_with_the_forms_message(
        app, client, admin, make):
    before = table_counts(app)
    r = upload(client, sheet(3, line_3={SHORT: "15/07/2026"}, line_4={SHORT: ""}))
    html = r.get_data(as_text=True)
    assert r.status_code == 422 and "1 linha com problemas" in html
    ((line, col, why),) = errors_shown(html)
    with app.app_context():
        town = factories.town("tapurah")
        form_says = vistoria_validity.check(town.id, "mototaxi", date(2026, 1, 15),
                                            date(2026, 7, 15))
    assert (line, col, why) == ("3", SHORT, form_says)
    assert "não prevê reduzir a validade da vistoria" in why and "deixe o campo em branco" in why
    assert table_counts(app) == before
    # The same sheet with the cell blank imports (a dry run, then nothing else to fix).
    assert upload(client, sheet(3)).status_code == 200


def test_the_example_sheet_s_documents_are_in_force_for_a_year_from_the_download(
        client, admin):
    """An admin copying the example row does not import expired documents."""
    r = client.get("/cadastro/importar/modelo.csv")
    header, example = [line.split(";") for line in
                       r.data.decode("utf-8-sig").strip().split("\r\n")]
    cells = dict(zip(header, example))
    day = lambda name: datetime.strptime(cells[name], "%d/%m/%Y").date()  # noqa: E731
    today = default_day()
    for name in ("alvara_fim", "condutor_registro_validade", "seguro_fim",
                 "condutor_cnh_validade"):
        assert day(name) >= today + timedelta(days=364), (name, cells[name])
    for name in ("alvara_inicio", "seguro_inicio", "permissao_inicio", "ultima_vistoria"):
        assert day(name) <= today + timedelta(days=1), (name, cells[name])
    page = client.get("/cadastro/importar").get_data(as_text=True)
    assert f'<td data-label="Exemplo">{cells["alvara_fim"]}</td>' in page


# ------------------------------------------------------------- singular and plural
ONE_OF_EACH = ("1 permissionário, 1 veículo, 1 permissão, 1 alvará, 1 condutor, 1 seguro")


def test_cli_counts_are_singular_for_one_and_plural_for_more(app, runner, towns, tmp_path):
    path = tmp_path / "um.csv"
    path.write_bytes(sheet(1))
    dry = cli(runner, "--town", "tapurah", str(path), "--dry-run")
    assert dry.stdout.strip() == f"simulação, nada foi gravado: 1 linha; seriam criados: {ONE_OF_EACH}"
    done = cli(runner, "--town", "tapurah", str(path))
    assert done.stdout.strip() == f"importado: 1 linha; foram criados: {ONE_OF_EACH}"
    # One changed permit (feminine) and one status change; two bad lines.
    path.write_bytes(sheet(1, line_2={"permissao_inicio": "02/02/2024",
                                      "alvara_situacao": "suspenso"}))
    changed = cli(runner, "--town", "tapurah", str(path), "--dry-run")
    assert changed.stdout.strip() == ("simulação, nada foi gravado: 1 linha; nada novo; seria "
                                      "alterada: 1 permissão; 1 mudança de situação")
    path.write_bytes(sheet(3, line_2={"alvara_fim": "01/02/2025"},
                           line_4={"alvara_fim": "01/02/2025"}))
    bad = cli(runner, "--town", "tapurah", str(path))
    assert bad.stderr.splitlines()[-1] == "erro: 2 linhas com problemas; nada foi gravado"


def test_page_counts_are_singular_for_one(app, client, admin):
    html = html_lib.unescape(upload(client, sheet(1), "um.csv").get_data(as_text=True))
    assert f"1 linha; seriam criados: {ONE_OF_EACH}." in html
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    client.post_form("/cadastro/importar/confirmar", {"token": token},
                     token_from="/cadastro/importar")
    page = html_lib.unescape(client.get("/cadastro/importar").get_data(as_text=True))
    assert f"Importação concluída (um.csv): 1 linha; foram criados: {ONE_OF_EACH}." in page
    bad = upload(client, sheet(3, line_2={"alvara_fim": "01/02/2025"},
                               line_4={"alvara_fim": "01/02/2025"})).get_data(as_text=True)
    assert "2 linhas com problemas em frota.csv" in bad


def test_a_holder_number_without_digits_is_named_on_its_line(app, client, admin):
    """A titular_documento with no digit in it is an invalid CPF/CNPJ on its line, never the
    false "o cadastro mudou durante a importação" (a person would send the file forever)."""
    report = upload(client, sheet(3, line_2={"titular_documento": "abc"}))
    text = " ".join(re.sub(r"<[^>]+>", " ", html_lib.unescape(
        report.get_data(as_text=True))).split())
    assert report.status_code == 422
    assert "2 titular_documento CNPJ inválido: confira os 14 dígitos" in text
    assert "mudou durante a importação" not in text
    assert table_counts(app)["vehicles"] == 0
