"""The registry import and the law's limits: a file that breaks them is imported (they are
warnings, as in the admin forms) and the dry run, the import's page and the CLI list each
limit with its article, per row and for the whole file, with the forms' words; the one
refusal, an alvará for a holder who owes a fine (Nortelândia 127 Arts. 23 and 34), still
refuses the file. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import html as html_lib
import io
import json
import re

import pytest
from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import Licence, Vehicle
from inspector.registry import limits as registry_limits
from tests import factories
from tests.support.registry import fine_for, licensed_taxis
from tests.support.registry_csv import counts, taxi_row, to_csv

TOWN = "nortelandia"
FLEET = "7 veículos licenciados: o limite da lei é 6 (número máximo de veículos)."
MARIA = "Maria Importada (motorista autônomo) tem 2 veículos: a lei permite 1."


def maria_rows() -> list[dict[str, str]]:
    """Two taxis of one self-employed holder who drives both (Nortelândia 127 Art. 4 III
    allows one), with their alvarás: with five licensed taxis the fleet is 7 of 6 (Art. 3)."""
    first = {**taxi_row(0), "placa": "RXA1B11", "titular_nome": "Maria Importada",
             "condutor_nome": "Maria Importada", "alvara_numero": "ALV-M1", "prefixo": "0901"}
    return [first, {**first, "placa": "RXA1B12", "alvara_numero": "ALV-M2", "prefixo": "0902"}]


def text(response) -> str:
    return html_lib.unescape(response.get_data(as_text=True))


def card(page: str) -> str:
    m = re.search(r'<section class="card limits".*?</section>', page, re.S)
    return m.group(0) if m else ""


def row_limits(page: str) -> list[tuple[str, str]]:
    """The card's table: (line, text of the limit) as a person reads them."""
    cells = re.findall(r'<td data-label="Linha">(\d+)</td><td data-label="Limite da lei">'
                       r'(.*?)</td>', card(page), re.S)
    return [(line, " ".join(re.sub(r"<[^>]+>", " ", why).split())) for line, why in cells]


def upload(client, data: bytes, name: str = "frota.csv"):
    token = client.csrf_token("/cadastro/importar")
    return client.post("/cadastro/importar", content_type="multipart/form-data",
                       data={"csrf_token": token, "arquivo": (io.BytesIO(data), name)})


@pytest.fixture
def nortelandia(app, client, make):
    user = make(factories.user, "admin", TOWN)
    client.login(user.username)
    licensed_taxis(app, TOWN, 5)
    return user


def test_page_dry_run_and_import_list_the_fleet_cap_and_the_two_vehicles_with_articles(
        app, client, nortelandia):
    dry = upload(client, to_csv(maria_rows()))
    page = text(dry)
    assert dry.status_code == 200 and "Simulação sem erros" in page
    assert "A lei aponta 3 avisos: veja “Limites da lei”" in page
    limits = card(page)
    assert FLEET in limits and "Lei 127/2009, Art. 3" in limits
    assert 'href="/leis/nortelandia-lei-127-2009-taxi#art-3"' in limits
    assert row_limits(page) == [
        ("2", f"Fora do limite {MARIA} · Lei 127/2009, Art. 4, III"),
        ("3", f"Fora do limite {MARIA} · Lei 127/2009, Art. 4, III")]
    with app.app_context():                     # a dry run writes nothing
        assert db.session.scalar(select(func.count()).select_from(Vehicle)) == 5

    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    r = client.post_form("/cadastro/importar/confirmar", {"token": token},
                         token_from="/cadastro/importar")
    assert r.status_code == 303
    done = text(client.get(r.headers["Location"]))
    assert "Importação concluída (frota.csv): 2 linhas" in done
    assert "A lei aponta 3 avisos: veja “Limites da lei”" in done
    assert FLEET in card(done) and "Lei 127/2009, Art. 3" in card(done)
    assert [line for line, _ in row_limits(done)] == ["2", "3"]
    assert all(MARIA in why and "Art. 4, III" in why for _, why in row_limits(done))
    with app.app_context():                     # warnings, not refusals: both rows are in
        plates = db.session.scalars(select(Vehicle.plate).join(Licence)).all()
        assert {"RXA1B11", "RXA1B12"} <= set(plates) and len(plates) == 7
        # The same words the vehicle's page shows (registry_limits.for_record).
        vehicle = db.session.scalar(select(Vehicle).filter_by(plate="RXA1B11"))
        assert {v.message for v in registry_limits.for_record(vehicle)} == {FLEET, MARIA}


def test_another_admin_does_not_see_an_import_s_result(app, client, nortelandia, make):
    html = text(upload(client, to_csv(maria_rows())))
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    done_url = client.post_form("/cadastro/importar/confirmar", {"token": token},
                                token_from="/cadastro/importar").headers["Location"]
    assert "resultado=" in done_url and FLEET in card(text(client.get(done_url)))
    other = make(factories.user, "admin", TOWN)
    client.post_form("/sair", token_from="/inicio")
    client.login(other.username)
    page = text(client.get(done_url))
    assert "Limites da lei" not in page and FLEET not in page


def test_a_file_within_the_limits_shows_none(app, client, nortelandia):
    page = text(upload(client, to_csv(maria_rows()[:1])))
    assert "Simulação sem erros" in page
    assert "Limites da lei" not in page and "A lei aponta" not in page


def test_the_debt_bar_still_refuses_the_file(app, client, nortelandia):
    """An alvará for a holder who owes a fine is refused, as in the form; nothing written."""
    rows = maria_rows()[:1]
    with app.app_context():
        holder = factories.holder(TOWN, name="Maria Importada",
                                  tax_id=rows[0]["titular_documento"])
        db.session.commit()
        cpf = holder.tax_id
    fine_for(app, TOWN, cpf)
    with app.app_context():
        before = counts()
    r = upload(client, to_csv(rows))
    page = text(r)
    assert r.status_code == 422 and "1 linha com problemas" in page
    assert "Alvará não expedido: Maria Importada tem multa em aberto" in page
    assert "Lei 127/2009, Arts. 23 e 34" in page and 'name="token"' not in page
    with app.app_context():
        assert counts() == before


def test_cli_prints_the_limits_with_their_articles(app, runner, nortelandia, tmp_path):
    path = tmp_path / "maria.csv"
    path.write_bytes(to_csv(maria_rows()))
    dry = runner.invoke(args=["registry", "import", "--town", TOWN, str(path), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.splitlines()[1:] == [
        "A lei aponta 3 avisos (são avisos: as linhas entrariam no cadastro):",
        f"  município: Fora do limite: {FLEET} (Lei 127/2009, Art. 3)",
        f"  linha 2: Fora do limite: {MARIA} (Lei 127/2009, Art. 4, III)",
        f"  linha 3: Fora do limite: {MARIA} (Lei 127/2009, Art. 4, III)"]
    done = runner.invoke(args=["registry", "import", "--town", TOWN, str(path), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["written"] and report["created"]["vehicle"] == 2
    assert [(v["message"], v["citation"]["article"]) for v in report["limits"]["file"]] == \
        [(FLEET, "Art. 3")]
    assert [(v["line"], v["rule_id"], v["citation"]["article"])
            for v in report["limits"]["rows"]] == \
        [(2, "town.person_vehicles", "Art. 4, III"), (3, "town.person_vehicles", "Art. 4, III")]
