"""Importing a town's registry spreadsheet: all rows or nothing, every bad row named,
idempotent on natural keys, strict about the header, lenient about spreadsheet habits."""
from __future__ import annotations

import time

import pytest

from inspector.audit import verify
from inspector.extensions import db
from inspector.imports.csv_format import MAX_ROWS, FileRefused
from inspector.imports.csv_import import import_registry
from inspector.models import Driver, Licence, Status, StatusChange, Vehicle
from tests import factories
from tests.support.registry_csv import HEADER, counts, row, sheet, to_csv


@pytest.fixture
def town(app):
    """An app context and Tapurah's id (Nortelândia and Sapezal exist too)."""
    with app.app_context():
        t = factories.town("tapurah")
        factories.town("nortelandia")
        factories.town("sapezal")
        db.session.commit()
        yield t.id
        db.session.rollback()


def run(town_id: int, data: bytes, **kw):
    report = import_registry(town_id, data, actor="teste", **kw)
    if report.written:
        db.session.commit()
    return report


def test_one_bad_row_among_500_writes_nothing_and_names_line_field_and_reason(town):
    before = counts()
    data = sheet(501, line_251={"alvara_fim": "01/02/2025"})  # ends before it starts
    report = run(town, data)
    assert not report.ok and not report.written
    assert [str(e) for e in report.errors] == [
        "linha 251, campo alvara_fim: deve ser depois do início da validade"]
    assert counts() == before


def test_every_bad_row_and_field_is_reported(town):
    report = run(town, sheet(30, line_3={"placa": "QB-12", "condutor_cnh_categoria": "B"},
                             line_10={"titular_documento": "11.111.111/1111-11"},
                             line_31={"seguro_fim": "ontem"}))
    assert [(e.line, e.column) for e in report.errors] == [
        (3, "placa"), (3, "condutor_cnh_categoria"), (10, "titular_documento"),
        (31, "seguro_fim")]
    # Line 10's holder is bad: its vehicle, permit and driver are not blamed for it too.
    assert report.bad_lines == [3, 10, 31]
    assert counts()["vehicles"] == 0


def test_a_good_file_imports_every_row_with_one_audit_entry_per_record(town):
    before = counts()
    started = time.process_time()  # CPU, not wall: the test machines are shared
    report = run(town, sheet(500))
    elapsed = time.process_time() - started
    assert report.ok and report.written, report.errors[:3]
    after = counts()
    assert {k: after[k] - before[k] for k in after} == {
        "holders": 50, "vehicles": 500, "drivers": 500, "permits": 50, "licences": 500,
        "insurance": 500, "status": 0, "links": 500, "audit": 2100}
    assert report.created == {"holder": 50, "vehicle": 500, "permit": 50, "licence": 500,
                              "driver": 500, "insurance": 500}
    v = db.session.scalar(db.select(Vehicle).filter_by(municipality_id=town, plate="QBA7A07"))
    assert v.holder.name == "Moto Empresa 0 Ltda" and [d.name for d in v.drivers] == ["Condutor 7"]
    assert v.current_licence.permit.number == "AUT-000"
    assert verify()[1] is None
    assert elapsed < 15, f"500 rows took {elapsed:.1f}s of CPU: a query per row crept in?"


def test_reimporting_the_same_file_changes_nothing(town):
    data = sheet(40)
    run(town, data)
    before = counts()
    report = run(town, data)
    assert report.ok and counts() == before
    assert report.summary() == "40 linhas; nada novo"


def test_reimport_updates_what_changed_only(town):
    run(town, sheet(20))
    before = counts()
    report = run(town, sheet(20, line_5={"cor": "Azul", "alvara_situacao": "suspenso"}))
    assert report.ok
    assert report.updated["vehicle"] == 1 and report.status_changes == 1
    assert counts()["audit"] == before["audit"] + 2  # the colour, the status change
    lic = db.session.scalar(db.select(Licence).filter_by(municipality_id=town, number="ALV-0003"))
    assert lic.status == Status.SUSPENDED
    change = db.session.scalar(db.select(StatusChange).filter_by(subject_id=lic.id))
    assert change.reason == "Importação de planilha, linha 5"


def test_a_dry_run_writes_nothing_but_reports_what_it_would_do(town):
    before = counts()
    report = run(town, sheet(12), dry_run=True)
    assert report.ok and not report.written and counts() == before
    assert report.created["vehicle"] == 12
    assert report.summary().startswith("12 linhas; seriam criados: 2 permissionários")


def test_the_same_holder_must_carry_the_same_data_on_every_row(town):
    report = run(town, sheet(12, line_4={"titular_nome": "Outro Nome"}))
    assert [str(e) for e in report.errors] == [
        "linha 4, campo titular_nome: diferente da linha 2, que traz o mesmo titular"]


def test_a_vehicle_appears_once(town):
    rows = [row(0), row(1), {**row(2), "placa": row(0)["placa"]}]
    report = run(town, to_csv(rows))
    assert [str(e) for e in report.errors] == [
        "linha 4, campo placa: placa repetida: o veículo já está na linha 2 (uma linha por "
        "veículo)"]


def test_rows_reference_only_their_own_town(town):
    with pytest.raises(FileRefused):
        run(town, b"")
    other = db.session.scalar(db.select(factories.Municipality).filter_by(slug="nortelandia")).id
    run(other, sheet(3))  # Nortelândia has moto-taxis too (Lei 030/1998)
    report = run(town, sheet(3, line_2={"ponto": "P1"}))
    # Same plates and keys in another town are another registry: no clash.
    assert [str(e) for e in report.errors] == [
        "linha 2, campo ponto: ponto 'P1' não encontrado neste município"]
    assert run(town, sheet(3)).ok
    assert db.session.scalar(db.select(db.func.count()).select_from(Vehicle)) == 6


@pytest.mark.parametrize("header, message", [
    ([h for h in HEADER if h != "placa"], "faltam as colunas placa"),
    (HEADER + ["chassi"], "colunas desconhecidas: chassi"),
    (HEADER + ["placa"], "colunas repetidas: placa"),
    ([h for h in HEADER if h != "seguro_fim"], "faltam as colunas seguro_fim"),
])
def test_a_wrong_header_is_refused_naming_the_columns(town, header, message):
    with pytest.raises(FileRefused, match=message):
        run(town, to_csv([row(0)], header=header))


def test_spreadsheet_habits_are_accepted(town):
    """Comma or semicolon, BOM or not, headers with accents and capitals, optional columns
    left out, blank lines, a taxi row with its moto-taxi columns blank (in Sapezal: Tapurah's
    law has no taxi service)."""
    town = db.session.scalar(db.select(factories.Municipality).filter_by(slug="sapezal")).id
    header = ["Placa", "Serviço", "Marca Modelo", "Ano Fabricação", "Cor", "Portas",
              "Titular Documento", "Titular Nome", "Permissão Número", "Permissão Início",
              "Alvará Número", "Alvará Início", "Alvará Fim", "Condutor Nome", "Condutor CPF",
              "Condutor CNH", "Condutor CNH Categoria", "Condutor CNH Validade",
              "Condutor Registro", "Condutor Registro Validade"]
    taxi = {"Placa": "abc-1234", "Serviço": "Táxi", "Marca Modelo": "Chevrolet Onix",
            "Ano Fabricação": "2022", "Cor": "Branca", "Portas": "4",
            "Titular Documento": factories.make_cpf("123123123"), "Titular Nome": "Ana Lima",
            "Permissão Número": "TP-1", "Permissão Início": "2020-01-01",
            # Sapezal Lei 060/1998 Art. 10: the Alvará lasts the exercício (until 31/12)
            "Alvará Número": "AE-1", "Alvará Início": "2025-01-01", "Alvará Fim": "2025-12-31",
            "Condutor Nome": "Ana Lima", "Condutor CPF": factories.make_cpf("123123123"),
            "Condutor CNH": "12345678901", "Condutor CNH Categoria": "B",
            "Condutor CNH Validade": "2030-01-01", "Condutor Registro": "TX-1",
            "Condutor Registro Validade": "2027-01-01"}
    data = to_csv([taxi], header=header, delimiter=",", bom=False) + b",,,,\r\n"
    report = run(town, data)
    assert report.ok, report.errors
    d = db.session.scalar(db.select(Driver).filter_by(municipality_id=town))
    assert d.category.value == "autonomo" and d.vehicles[0].plate == "ABC1234"


def test_files_that_are_not_utf8_or_too_long_are_refused(town):
    with pytest.raises(FileRefused, match="UTF-8"):
        run(town, "placa;cor\nÁ;é\n".encode("cp1252"))
    with pytest.raises(FileRefused, match=f"o limite é {MAX_ROWS}"):
        run(town, to_csv([row(0)] * (MAX_ROWS + 1)))


def test_a_clash_with_a_concurrent_writer_refuses_the_file_and_writes_nothing(town,
                                                                            monkeypatch):
    from sqlalchemy.exc import IntegrityError

    from inspector import registry  # the import settles through the registry's face

    def clash(lookup):
        raise IntegrityError("INSERT", {}, Exception("unique constraint"))

    before = counts()
    monkeypatch.setattr(registry, "settle", clash)
    with pytest.raises(FileRefused, match="o cadastro mudou durante a importação"):
        run(town, sheet(3))
    assert counts() == before


def test_blank_cells_that_follow_the_service_keep_what_is_registered(town):
    rows = [row(0)]
    rows[0].update(alvara_tipo="", condutor_categoria="")
    run(town, to_csv([{**rows[0], "alvara_tipo": "licença"}]))
    lic = db.session.scalar(db.select(Licence).filter_by(municipality_id=town))
    assert lic.kind.value == "alvara_licenca"
    before = counts()
    report = run(town, to_csv(rows))  # blank type and category: keep them
    assert report.ok, report.errors
    assert counts() == before and lic.kind.value == "alvara_licenca"
    assert db.session.scalar(db.select(Driver)).category.value == "mototaxista"


def test_a_later_file_adds_a_vehicle_to_a_company_already_registered(town):
    """The company, its permit and its first moto-taxi came in one file; the next file
    brings its second moto-taxi under the same permit."""
    first = run(town, to_csv([row(0)]))
    assert first.ok, first.as_json()
    second = run(town, to_csv([row(0), row(1)]))
    assert second.ok, second.as_json()
    c = counts()
    assert (c["vehicles"], c["holders"], c["permits"], c["licences"]) == (2, 1, 1, 2)
