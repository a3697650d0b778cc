"""Onboarding a town from nothing: `towns create`, `towns admin`, and the
admin's "Configuração do município" page listing what is still missing, each with where it
is fixed. Every write is in the audit log."""
from __future__ import annotations

from datetime import date

import pytest

from inspector import audit
from inspector.extensions import db
from inspector.models import AuditEntry, DatedValue, Municipality, User
from inspector.towns.onboarding import ibge_check_digit
from tests import factories

TAPURAH = ["towns", "create", "--ibge", "5108006", "--name", "Tapurah", "--slug", "tapurah",
           "--population-seat", "10059", "--population-interior", "4311",
           "--population-source", "IBGE, Censo Demográfico 2022 (urbana/rural)",
           "--fiscal-unit", "UFIM", "--pack", "tapurah-406-2001",
           "--timezone", "America/Cuiaba"]


def test_the_ibge_check_digit_of_the_four_towns():
    for code in ("5106000", "5106190", "5107875", "5108006"):
        assert ibge_check_digit(code[:6]) == int(code[6])


def test_create_a_town_then_its_first_admin(app, runner):
    done = runner.invoke(args=TAPURAH)
    assert done.exit_code == 0, done.output
    assert ("criado: Tapurah (tapurah, IBGE 5108006, fuso America/Cuiaba), 14370 habitantes"
            in done.output)
    admin = runner.invoke(args=["towns", "admin", "--town", "tapurah", "--username",
                                "admin.tapurah", "--name", "Vilma Ruaro", "--generate"])
    assert admin.exit_code == 0, admin.output
    password = admin.output.split("senha: ")[1].split()[0]
    again = runner.invoke(args=["towns", "admin", "--town", "tapurah", "--username",
                                "outro.admin", "--name", "Outro", "--generate"])
    assert again.exit_code == 2 and "já tem administrador" in again.output
    with app.app_context():
        town = db.session.scalar(db.select(Municipality))
        assert (town.population_seat, town.population_interior, town.fiscal_unit_name) == \
            (10059, 4311, "UFIM")
        created = db.session.scalar(db.select(AuditEntry).filter_by(action="municipality_created"))
        assert '"packs":["tapurah-406-2001"]' in created.after and "America/Cuiaba" in created.after
        assert db.session.scalar(db.select(db.func.count(User.id))) == 1
        assert audit.verify()[1] is None
    client = app.test_client()
    assert client.login("admin.tapurah", password).status_code == 302


@pytest.mark.parametrize("change, words", [
    ({"--ibge": "5108007"}, "dígito verificador não confere: o código seria 5108006"),
    ({"--ibge": "3550308"}, "não é de Mato Grosso"),
    ({"--timezone": "America/Atlantida"}, "fuso horário desconhecido: 'America/Atlantida'"),
    ({"--timezone": "Local"}, "fuso horário desconhecido: 'Local'"),
    ({"--timezone": "../../etc/passwd"}, "fuso horário desconhecido: '../../etc/passwd'"),
    ({"--pack": "sapezal-060-1998"}, "é do município 'sapezal', não de 'tapurah'"),
    ({"--pack": "lei-nenhuma"}, "pacote de regras desconhecido"),
    ({"--fiscal-unit": "UFM"}, "conta as multas em UFIM, não em UFM"),
    ({"--population-seat": "muitos"}, "número inteiro de habitantes"),
    ({"--population-source": " "}, "diga de onde vem a população"),
])
def test_every_refusal_is_one_line_exit_2_and_writes_nothing(app, runner, change, words):
    args = list(TAPURAH)
    for option, value in change.items():
        args[args.index(option) + 1] = value
    done = runner.invoke(args=args)
    assert done.exit_code == 2, done.output
    assert done.output.count("\n") == 1 and done.output.startswith("erro: município não criado")
    assert words in done.output
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(Municipality.id))) == 0
        assert db.session.scalar(db.select(db.func.count(AuditEntry.id))) == 0


def _row(html: str, key: str) -> str:
    return html.split(f'id="passo-{key}"')[1].split("</tr>")[0]


def test_the_setup_page_lists_what_is_missing_with_where_to_fix_it(app, runner, client, make):
    assert runner.invoke(args=TAPURAH).exit_code == 0
    make(factories.user, "admin", "tapurah", username="admin.t")
    client.login("admin.t")
    html = client.get("/municipio").get_data(as_text=True)
    assert "Configuração do município" in html and "pendente" in html
    wage = _row(html, "minimum_wage")
    assert "pendente" in wage and 'href="/municipio#valores"' in wage
    unit = _row(html, "fiscal_unit")                              # Tapurah fines in UFIM,
    assert "pendente" in unit and 'href="/conformidade#decretos"' in unit  # set by decree
    assert "não se aplica" in _row(html, "decree")                # no other decree value
    assert "não se aplica" in _row(html, "stands")                # moto-taxi only
    assert 'href="/cadastro/importar"' in _row(html, "registry")
    assert 'href="/credenciais"' in _row(html, "credentials")
    accounts = _row(html, "accounts")
    assert "agente: 0" in accounts and 'href="/municipio/contas"' in accounts
    calendar = _row(html, "calendar")
    assert "pendente" in calendar and 'href="/conformidade/calendario"' in calendar
    assert "Lei 406/2001" in _row(html, "laws")

    bad = client.post_form("/municipio/valores", {"kind": "minimum_wage", "value": "abc",
                                                  "valid_from": "2026-01-01", "source": ""},
                           token_from="/municipio")
    assert bad.status_code == 422
    assert "valor inválido" in bad.get_data(as_text=True)
    january = date.today().replace(month=1, day=1).isoformat()
    ok = client.post_form("/municipio/valores", {"kind": "minimum_wage", "value": "1.621,00",
                                                 "valid_from": january,
                                                 "source": "Decreto nº 12.797/2025"},
                          token_from="/municipio")
    assert ok.status_code == 302
    html = client.get("/municipio").get_data(as_text=True)
    assert "badge-ok" in _row(html, "minimum_wage") and "R$ 1.621,00" in _row(html, "minimum_wage")
    with app.app_context():
        row = db.session.scalar(db.select(DatedValue))
        assert row.value_brl == 1621 and row.source == "Decreto nº 12.797/2025"
        entry = db.session.scalar(db.select(AuditEntry).filter_by(action="dated_value_created"))
        assert entry.actor == "admin.t"


def test_a_taxi_town_needs_its_stands_and_decree_values(app, client, make):
    make(factories.user, "admin", "sapezal", username="admin.s")
    client.login("admin.s")
    html = client.get("/municipio").get_data(as_text=True)
    stands = _row(html, "stands")
    assert "pendente" in stands and 'href="/cadastro/pontos/novo"' in stands
    decree = _row(html, "decree")
    assert "pendente" in decree and 'href="/conformidade#decretos"' in decree
    assert "não se aplica" in _row(html, "fiscal_unit")          # Lei 060/1998: no UFM fine
    make(factories.stand, "sapezal")
    assert "badge-ok" in _row(client.get("/municipio").get_data(as_text=True), "stands")


def test_only_the_admin_opens_it(client, make):
    make(factories.user, "supervisor", "tapurah", username="sup.t")
    client.login("sup.t")
    assert client.get("/municipio").status_code == 403


def test_a_town_on_another_clock_counts_its_own_days(app, runner, client, make):
    """`--timezone` is stored, audited and shown; the town's day turns at its own midnight.
    Fernando de Noronha's clock (UTC-2) is two hours ahead of Mato Grosso's (UTC-4): at
    03:00 UTC on 6 March 2026 it is already the 6th there and still the 5th in Cuiabá."""
    from datetime import UTC, datetime

    from inspector.clock import town_day
    from inspector.towns.setup import setup_of

    args = list(TAPURAH)
    args[args.index("--timezone") + 1] = "America/Noronha"
    done = runner.invoke(args=args)
    assert done.exit_code == 0, done.output
    assert "fuso America/Noronha" in done.output
    moment = datetime(2026, 3, 6, 3, 0, tzinfo=UTC)
    with app.app_context():
        town = db.session.scalar(db.select(Municipality))
        assert town.timezone == "America/Noronha"
        created = db.session.scalar(db.select(AuditEntry).filter_by(action="municipality_created"))
        assert '"timezone":"America/Noronha"' in created.after
        assert town_day(town, moment) == date(2026, 3, 6)
        assert town_day(None, moment) == date(2026, 3, 5)         # Mato Grosso's clock
        assert setup_of(town).on == town_day(town)
    make(factories.user, "admin", "tapurah", username="admin.t")
    client.login("admin.t")
    html = client.get("/municipio").get_data(as_text=True)
    assert "fuso horário <span class=\"town-timezone\">America/Noronha</span>" in html
