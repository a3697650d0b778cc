"""The registry import and the law's limits. A file that passes a cap on the number of
vehicles (the fleet, a stand's cars) is refused with the article and nothing written, or,
where the law lets the town pass it by decree (Sapezal 060 Art. 18), imported only with the
decree and a reason, kept in the audit log. A file that breaks another limit is imported
(a warning, as in the admin forms) and the dry run, the import's page and the CLI list each
with its article, per row and for the whole file, with the forms' words; an alvará for a
holder who owes a fine (Nortelândia 127 Arts. 23 and 34) still refuses the file. Runs on
SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import html as html_lib
import io
import json
import re

import pytest
from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import AuditEntry, Licence, Vehicle
from inspector.registry import limits
from tests import factories
from tests.support.registry import fine_for, licensed_taxis
from tests.support.registry_csv import counts, taxi_row, to_csv

TOWN = "nortelandia"
FLEET = "7 veículos licenciados: o limite da lei é 6 (número máximo de veículos)."
MARIA = "Maria Importada (motorista autônomo) tem 2 veículos: a lei permite 1."


def maria_rows() -> list[dict[str, str]]:
    """Two taxis of one self-employed holder who drives both (Nortelândia 127 Art. 4 III
    allows one), with their alvarás: with four licensed taxis the fleet is 6 of 6 (Art. 3)."""
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
    licensed_taxis(app, TOWN, 4)
    return user


def test_page_dry_run_and_import_list_the_two_vehicles_of_one_driver_with_articles(
        app, client, nortelandia):
    dry = upload(client, to_csv(maria_rows()))
    page = text(dry)
    assert dry.status_code == 200 and "Simulação sem erros" in page
    assert "A lei aponta 2 avisos: veja “Limites da lei”" in page
    assert row_limits(page) == [
        ("2", f"Fora do limite {MARIA} · Lei 127/2009, Art. 4, III"),
        ("3", f"Fora do limite {MARIA} · Lei 127/2009, Art. 4, III")]
    assert 'href="/leis/nortelandia-lei-127-2009-taxi#art-4-iii"' in card(page)
    with app.app_context():                     # a dry run writes nothing
        assert db.session.scalar(select(func.count()).select_from(Vehicle)) == 4

    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    r = client.post_form("/cadastro/importar/confirmar", {"token": token},
                         token_from="/cadastro/importar")
    assert r.status_code == 303
    done = text(client.get(r.headers["Location"]))
    assert "Importação concluída (frota.csv): 2 linhas" in done
    assert "A lei aponta 2 avisos: veja “Limites da lei”" in done
    assert [line for line, _ in row_limits(done)] == ["2", "3"]
    assert all(MARIA in why and "Art. 4, III" in why for _, why in row_limits(done))
    with app.app_context():                     # warnings, not refusals: both rows are in
        plates = db.session.scalars(select(Vehicle.plate).join(Licence)).all()
        assert {"RXA1B11", "RXA1B12"} <= set(plates) and len(plates) == 6
        # The same words the vehicle's page shows (registry_limits.for_record).
        vehicle = db.session.scalar(select(Vehicle).filter_by(plate="RXA1B11"))
        assert {v.message for v in limits.limits_for(vehicle)} == {MARIA}


def test_the_fleet_cap_refuses_the_file_and_nothing_is_written(app, client, nortelandia):
    """Nortelândia 127 Art. 3 fixes 6 taxis and lets no decree pass it: a fifth licensed
    taxi plus two rows is 7 of 6, refused on "Importar" when the registry filled up after
    the dry run, and on the dry run after that."""
    dry = upload(client, to_csv(maria_rows()))
    token = re.search(r'name="token" value="([^"]+)"', text(dry)).group(1)
    licensed_taxis(app, TOWN, 1)                # meanwhile a clerk licenses a fifth taxi
    with app.app_context():
        before = counts()
    r = client.post_form("/cadastro/importar/confirmar", {"token": token},
                         token_from="/cadastro/importar")
    page = text(r)
    assert r.status_code == 422 and "A lei não deixa importar esta planilha" in page
    assert FLEET in page and 'href="/leis/nortelandia-lei-127-2009-taxi#art-3"' in page
    assert "A lei não admite exceção" in page and 'name="token"' not in page
    with app.app_context():
        assert counts() == before               # not half-written: no row, no audit entry
    again = upload(client, to_csv(maria_rows()))
    assert again.status_code == 422 and FLEET in text(again)
    assert 'name="token"' not in text(again)


def test_sapezal_imports_past_its_fleet_only_with_a_decree_kept_in_the_audit_log(
        app, client, make):
    """Sapezal 060 Art. 14: 15 taxis; Art. 18: a decree may enlarge the fleet."""
    user = make(factories.user, "admin", "sapezal")
    client.login(user.username)
    licensed_taxis(app, "sapezal", 15)
    rows = [{**taxi_row(0), "placa": "RXS1A16", "alvara_numero": "ALV-S16", "prefixo": "0916"}]
    dry = upload(client, to_csv(rows))
    page = text(dry)
    assert dry.status_code == 200 and "Acima do limite da lei" in page
    assert "16 veículos licenciados: o limite da lei é 15" in page
    assert 'href="/leis/sapezal-lei-060-1998-taxi#art-18"' in page
    assert 'name="acima_do_limite_motivo"' in page
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    with app.app_context():
        before = counts()
    bare = client.post_form("/cadastro/importar/confirmar", {"token": token},
                            token_from="/cadastro/importar")
    assert bare.status_code == 422 and "Informe o decreto e o motivo" in text(bare)
    assert f'value="{token}"' in text(bare)     # the same file, awaiting the reason
    with app.app_context():
        assert counts() == before
    reason = "Decreto nº 12/2026 amplia a frota para 16 táxis"
    r = client.post_form("/cadastro/importar/confirmar",
                         {"token": token, "acima_do_limite_motivo": reason},
                         token_from="/cadastro/importar")
    assert r.status_code == 303
    with app.app_context():
        assert db.session.scalar(select(Vehicle).filter_by(plate="RXS1A16")) is not None
        entry = db.session.scalar(select(AuditEntry).filter_by(action="registry.cap_override"))
        recorded = json.loads(entry.after)
        assert entry.actor_id == user.id
    assert recorded["reason"] == reason and (recorded["before"], recorded["after"]) == (15, 16)
    assert recorded["override"]["citation"]["article"] == "Art. 18"
    assert recorded["record"] == "importação (planilha frota.csv)"


def test_a_stand_s_number_of_cars_refuses_the_file(app, client, make):
    """Sapezal 060 Art. 14: stand 01 takes 4 cars; a file putting a fifth there is refused."""
    user = make(factories.user, "admin", "sapezal")
    client.login(user.username)
    with app.app_context():
        stand = factories.stand("sapezal", code="01", place="Av. Surubim Jaú - Ponto de Ônibus",
                                capacity=4, service="taxi",
                                legal_basis="Lei 060/1998 (Sapezal), Art. 14")
        for _ in range(4):
            factories.vehicle("sapezal", "taxi", stand=stand)
        db.session.commit()
        before = counts()
    rows = [{**taxi_row(0), "placa": "RXS2A05", "alvara_numero": "ALV-P05", "ponto": "01"}]
    r = upload(client, to_csv(rows))
    page = text(r)
    assert r.status_code == 422 and "A lei não deixa importar esta planilha" in page
    assert "Ponto 01 (Av. Surubim Jaú - Ponto de Ônibus) tem 5 veículos: a capacidade do " \
           "ponto é 4" in page
    assert 'href="/leis/sapezal-lei-060-1998-taxi#art-14"' in page
    with app.app_context():
        assert counts() == before


def test_another_admin_does_not_see_an_import_s_result(app, client, nortelandia, make):
    html = text(upload(client, to_csv(maria_rows())))
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    done_url = client.post_form("/cadastro/importar/confirmar", {"token": token},
                                token_from="/cadastro/importar").headers["Location"]
    assert "resultado=" in done_url and MARIA in card(text(client.get(done_url)))
    other = make(factories.user, "admin", TOWN)
    client.post_form("/sair", token_from="/inicio")
    client.login(other.username)
    page = text(client.get(done_url))
    assert "Limites da lei" not in page and MARIA not in page


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
        "A lei aponta 2 avisos (são avisos: as linhas entrariam no cadastro):",
        f"  linha 2: Fora do limite: {MARIA} (Lei 127/2009, Art. 4, III)",
        f"  linha 3: Fora do limite: {MARIA} (Lei 127/2009, Art. 4, III)"]
    done = runner.invoke(args=["registry", "import", "--town", TOWN, str(path), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["written"] and report["created"]["vehicle"] == 2
    assert report["limits"]["file"] == [] and report["caps"] == []
    assert [(v["line"], v["rule_id"], v["citation"]["article"])
            for v in report["limits"]["rows"]] == \
        [(2, "town.person_vehicles", "Art. 4, III"), (3, "town.person_vehicles", "Art. 4, III")]


def test_cli_refuses_a_file_past_the_fleet_cap(app, runner, nortelandia, tmp_path):
    """Nortelândia 127 Art. 3: no decree passes it, whatever reason is given."""
    licensed_taxis(app, TOWN, 1)
    path = tmp_path / "maria.csv"
    path.write_bytes(to_csv(maria_rows()))
    with app.app_context():
        before = counts()
    r = runner.invoke(args=["registry", "import", "--town", TOWN, str(path),
                            "--acima-do-limite", "Decreto nº 1/2026 amplia a frota"])
    assert r.exit_code == 2
    assert "limite da lei: 7 veículos licenciados: o limite da lei é 6 (número máximo de " \
           "veículos) (Lei 127/2009, Art. 3). A lei não admite exceção" in r.stderr
    assert r.stderr.splitlines()[-1] == \
        "erro: a planilha passa um limite da lei; nada foi gravado"
    with app.app_context():
        assert counts() == before
