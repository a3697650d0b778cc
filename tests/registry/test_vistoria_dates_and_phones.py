"""Registry forms and the spreadsheet import: a vistoria cannot have been done in the future,
and a holder's telephone is a Brazilian number (10 or 11 digits with the DDD), kept as
digits and shown as (66) 99999-1234. Refused with the reason next to the field (422) or on
the sheet's line, and nothing written. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from inspector.clock import default_day
from inspector.extensions import db
from inspector.identifiers import format_phone, make_cpf, normalise_phone
from inspector.models import Holder, Vehicle
from inspector.registry import records
from tests import factories
from tests.support.registry import moto_form
from tests.support.registry_csv import counts, row, to_csv, upload
from tests.support.web import field_error, text

HX = {"HX-Request": "true"}


@pytest.fixture
def admin(app, client, make):
    """A signed-in Tapurah admin (Sapezal exists too, for the import tests)."""
    make(factories.town, "sapezal")
    user = make(factories.user, "admin", "tapurah")
    assert client.login(user.username).status_code == 302
    return user


def errors_shown(html: str) -> list[str]:
    """The fields the form marks invalid."""
    return re.findall(r'<p class="field-error" id="f-([a-z_]+)-error">', html)


def table_counts(app) -> dict[str, int]:
    with app.app_context():
        return counts()


# ---------------------------------------------------------------------- the vistoria's day
def test_a_vistoria_dated_in_the_future_is_refused_and_nothing_is_saved(app, client, make,
                                                                         admin):
    h = make(factories.holder, "tapurah")
    before = table_counts(app)
    tomorrow = default_day() + timedelta(days=1)
    for day in (tomorrow.strftime("%d/%m/%Y"), "01/01/2031"):
        bad = client.post_form("/cadastro/veiculos/novo",
                               moto_form(h.tax_id, last_vistoria_on=day),
                               token_from="/cadastro/veiculos/novo")
        assert bad.status_code == 422
        error = field_error(text(bad), "last_vistoria_on")
        assert error == (f"A data não pode ser futura: informe o dia em que a vistoria foi "
                         f"feita (hoje é {default_day().strftime('%d/%m/%Y')}).")
        assert table_counts(app) == before
    ok = client.post_form("/cadastro/veiculos/novo",
                          moto_form(h.tax_id, last_vistoria_on=default_day().strftime("%d/%m/%Y"),
                                    vistoria_correction_reason="Vistoria em papel, feita hoje"),
                          token_from="/cadastro/veiculos/novo")
    assert ok.status_code == 303
    with app.app_context():
        assert db.session.scalar(db.select(Vehicle.last_vistoria_on)) == default_day()


def test_editing_a_vehicle_to_a_future_vistoria_is_refused(app, client, make, admin):
    v = make(factories.vehicle, "tapurah", plate="QAA1A11")
    with app.app_context():
        vehicle = db.session.get(Vehicle, v.id)
        was, form = vehicle.last_vistoria_on, records.as_data(vehicle)
    before = table_counts(app)
    form["last_vistoria_on"] = (default_day() + timedelta(days=30)).isoformat()
    bad = client.post_form(f"/cadastro/veiculos/{v.id}/editar", form, headers=HX,
                           token_from=f"/cadastro/veiculos/{v.id}/editar")
    assert bad.status_code == 422
    assert set(errors_shown(text(bad))) == {"last_vistoria_on"}
    assert "não pode ser futura" in field_error(text(bad), "last_vistoria_on")
    assert table_counts(app) == before
    with app.app_context():
        assert db.session.get(Vehicle, v.id).last_vistoria_on == was


def test_the_import_refuses_a_future_vistoria_and_writes_nothing(app, client, admin):
    rows = [row(i) for i in range(3)]
    rows[1]["ultima_vistoria"] = "01/01/2031"
    before = table_counts(app)
    r = upload(client, to_csv(rows))
    html = text(r)
    assert r.status_code == 422, html
    assert "Nada foi gravado" in html
    assert ('<td data-label="Linha">3</td>' in html and "<code>ultima_vistoria</code>" in html
            and "a data não pode ser futura: informe o dia em que a vistoria foi feita" in html)
    assert table_counts(app) == before


def test_the_import_cli_refuses_a_future_vistoria_and_writes_nothing(app, runner, admin,
                                                                     tmp_path):
    rows = [row(i) for i in range(3)]
    rows[1]["ultima_vistoria"] = "01/01/2031"
    path = tmp_path / "tapurah.csv"
    path.write_bytes(to_csv(rows))
    before = table_counts(app)
    result = runner.invoke(args=["registry", "import", "--town", "tapurah", str(path)])
    assert result.exit_code == 2
    today = default_day().strftime("%d/%m/%Y")
    assert result.stderr.splitlines()[0] == (
        f"linha 3, campo ultima_vistoria: a data não pode ser futura: informe o dia em que a "
        f"vistoria foi feita (hoje é {today})")
    assert table_counts(app) == before
    rows[1]["ultima_vistoria"] = today
    path.write_bytes(to_csv(rows))
    assert runner.invoke(args=["registry", "import", "--town", "tapurah", str(path)]
                         ).exit_code == 0
    assert table_counts(app)["vehicles"] == before["vehicles"] + 3


# ------------------------------------------------------------------------------ telephones
@pytest.mark.parametrize("typed, reason", [
    ("abc", "telefone inválido: use só algarismos, com o DDD"),
    ("(66) 99999-123²", "telefone inválido: use só algarismos, com o DDD"),
    ("123", "telefone inválido: são 10 ou 11 algarismos com o DDD (foram 3)"),
    ("(66) 8999-91234", "telefone inválido: um celular de 11 algarismos começa com 9"),
])
def test_a_holder_with_a_phone_that_is_not_one_is_refused(app, client, admin, typed, reason):
    before = table_counts(app)
    bad = client.post_form("/cadastro/permissionarios/novo",
                           {"name": "Maria Souza", "tax_id": make_cpf("123456789"),
                            "phone": typed},
                           token_from="/cadastro/permissionarios/novo")
    assert bad.status_code == 422
    error = field_error(text(bad), "phone")
    assert error and error.startswith(reason[0].upper() + reason[1:]), error
    assert f'value="{typed}"' in text(bad)  # what was typed stays, to be corrected
    assert table_counts(app) == before


@pytest.mark.parametrize("typed, stored, shown", [
    ("(66) 99999-1234", "66999991234", "(66) 99999-1234"),
    ("+55 66 3566.1234", "6635661234", "(66) 3566-1234"),
    ("66999991234", "66999991234", "(66) 99999-1234"),
])
def test_a_phone_is_kept_as_digits_and_shown_as_brazilians_write_it(app, client, admin, typed,
                                                                     stored, shown):
    ok = client.post_form("/cadastro/permissionarios/novo",
                          {"name": "Maria Souza", "tax_id": make_cpf("123456789"),
                           "phone": typed},
                          token_from="/cadastro/permissionarios/novo")
    assert ok.status_code == 303, text(ok)
    with app.app_context():
        h = db.session.scalar(db.select(Holder))
        assert h.phone == stored
    page = text(client.get(ok.headers["Location"]))
    assert f"<dt>Telefone</dt><dd>{shown}</dd>" in page
    assert f'<td data-label="Telefone">{shown}</td>' in text(client.get(
        "/cadastro/permissionarios?q=Maria", headers=HX))
    # the edit form shows it formatted, and sending it back unchanged changes nothing
    before = table_counts(app)
    edit_page = text(client.get(f"/cadastro/permissionarios/{h.id}/editar"))
    assert f'value="{shown}"' in edit_page
    edit = client.post_form(f"/cadastro/permissionarios/{h.id}/editar",
                            {"name": "Maria Souza", "tax_id": make_cpf("123456789"),
                             "phone": shown},
                            token_from=f"/cadastro/permissionarios/{h.id}/editar")
    assert edit.status_code == 303
    assert table_counts(app) == before


def test_the_import_refuses_a_bad_phone_and_normalises_a_good_one(app, client, admin):
    rows = [row(i) for i in range(12)]        # two companies: lines 2-11 and 12-13
    for r in rows[10:]:
        r["titular_telefone"] = "telefone"
    before = table_counts(app)
    r = upload(client, to_csv(rows))
    html = text(r)
    assert r.status_code == 422, html
    assert "<code>titular_telefone</code>" in html and "telefone inválido" in html
    assert table_counts(app) == before
    for r in rows[10:]:
        r["titular_telefone"] = "+55 (66) 99999-1234"
    ok = upload(client, to_csv(rows))
    assert ok.status_code == 200 and "Simulação sem erros" in text(ok), text(ok)


def test_phone_helpers():
    assert normalise_phone("(66) 99999-1234") == "66999991234"
    assert normalise_phone("+55 (65) 3322-1100") == "6533221100"
    for bad in ("", "abc", "123", "(66) 89999-1234", "(06) 3566-1234", "+1 650 253 0000",
                "0 66 99999-1234", "66 99999-1234 ramal 2"):
        assert normalise_phone(bad) is None, bad
    assert format_phone("6533221100") == "(65) 3322-1100"
    assert format_phone("65999990000") == "(65) 99999-0000"
    assert format_phone("(65) 99999-0000") == "(65) 99999-0000"  # stored before the rule
    assert format_phone("abc") == "abc"
