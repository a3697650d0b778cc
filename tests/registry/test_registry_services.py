"""The registry services: every bad field reported at once, uniqueness within a town,
town isolation, one audit entry per change, status changes with a reason, search."""
from __future__ import annotations

import json
from datetime import date

import pytest

from inspector.audit import verify
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.identifiers import make_cpf
from inspector.models import AuditEntry, Driver, Holder, Status, StatusChange, Vehicle, VehicleKind
from inspector.registry import records
from tests import factories
from tests.support.registry import CNPJ, moto_fields, saved_holder

CPF = make_cpf("111444777")
def errors_of(call, *args, **kw) -> dict[str, str]:
    with pytest.raises(ValidationFailed) as e:
        call(*args, **kw)
    return e.value.errors


def audit_count() -> int:
    return db.session.scalar(db.select(db.func.count()).select_from(AuditEntry))


def rider(**kw) -> dict:
    return {"category": "mototaxista", "name": "João da Silva", "cpf": CPF,
            "cnh_number": "01234567890", "cnh_category": "A", "cnh_expiry": "31/12/2030",
            "registration_number": "MT-001", "registration_expiry": "2027-06-30",
            "holder_tax_id": CNPJ, **kw}


# ------------------------------------------------------------------ validation
def test_a_holder_form_full_of_mistakes_names_every_one(towns):
    t, _ = towns
    errors = errors_of(records.save_holder, t, {"kind": "empresa", "name": " ",
                                            "tax_id": "11.222.333/0001-00",
                                            "email": "não é e-mail"}, actor="teste")
    assert errors == {"name": "obrigatório", "tax_id": "CNPJ inválido: confira os 14 dígitos",
                      "email": "e-mail inválido"}
    assert "CPF inválido" in errors_of(records.save_holder, t, {"kind": "pessoa", "name": "Ana",
                                                            "tax_id": "123.456.789-00"},
                                       actor="teste")["tax_id"]


def test_a_holder_kind_follows_the_document_when_not_given(towns):
    t, _ = towns
    h = records.save_holder(t, {"name": "Ana Souza", "tax_id": CPF[:3] + "." + CPF[3:6] + "."
                            + CPF[6:9] + "-" + CPF[9:]}, actor="teste")
    assert (h.kind.value, h.tax_id) == ("person", CPF)


def test_a_vehicle_with_every_field_wrong_reports_every_field(towns):
    t, _ = towns
    errors = errors_of(records.save_vehicle, t, {"service": "mototaxi", "plate": "AB-12345",
                                             "year_of_manufacture": "1949", "engine_cc": "",
                                             "colour": "", "make_model": "", "doors": "4",
                                             "holder_tax_id": "999", "stand_code": "P9",
                                             "last_vistoria_on": "31/02/2024"},
                       actor="teste")
    assert set(errors) == {"plate", "year_of_manufacture", "engine_cc", "colour", "make_model",
                           "doors", "holder_tax_id", "stand_code", "last_vistoria_on"}
    assert "ABC1234 ou ABC1D23" in errors["plate"]
    assert errors["year_of_manufacture"].startswith("ano fora do intervalo (1950 a")
    assert errors["engine_cc"] == "obrigatório"
    assert errors["doors"] == "motocicleta não tem portas"
    assert errors["holder_tax_id"] == "CPF/CNPJ inválido: o CPF tem 11 dígitos e o CNPJ, 14"
    assert "data inválida" in errors["last_vistoria_on"]


def test_a_taxi_needs_doors_and_cannot_be_a_trail_bike(towns):
    t, _ = towns
    saved_holder(t)
    errors = errors_of(records.save_vehicle, t, moto_fields(t, service="taxi", engine_cc="", is_trail="sim"),
                       actor="teste")
    assert errors == {"doors": "obrigatório", "is_trail": "só motocicletas podem ser de trilha"}


def test_plate_is_normalised_and_kind_follows_the_service(towns):
    t, _ = towns
    saved_holder(t)
    v = records.save_vehicle(t, moto_fields(t, plate=" qba-1d23 "), actor="teste")
    assert (v.plate, v.kind) == ("QBA1D23", VehicleKind.MOTORCYCLE)
    old = records.save_vehicle(t, moto_fields(t, plate="abc 1234", service="táxi", engine_cc="",
                                   doors="4"), actor="teste")
    assert (old.plate, old.kind) == ("ABC1234", VehicleKind.CAR)
    assert errors_of(records.save_vehicle, t, moto_fields(t, plate="QBB1D23", kind="car"),
                     actor="teste") == {"kind": "Moto-táxi é motocicleta, não automóvel"}


def test_dates_are_read_in_brazilian_and_iso_forms(towns):
    t, _ = towns
    saved_holder(t)
    records.save_vehicle(t, moto_fields(t), actor="teste")
    d = records.save_driver(t, rider(), actor="teste")
    assert (d.cnh_expiry, d.registration_expiry) == (date(2030, 12, 31), date(2027, 6, 30))


def test_driver_licence_category_must_fit_the_service(towns):
    t, _ = towns
    saved_holder(t)
    assert errors_of(records.save_driver, t, rider(cnh_category="B"), actor="teste") == {
        "cnh_category": "moto-táxi exige CNH categoria A"}
    assert errors_of(records.save_driver, t, rider(category="autonomo", cnh_category="A"),
                     actor="teste") == {"cnh_category": "táxi exige CNH categoria B ou superior"}
    assert records.save_driver(t, rider(cnh_category="ab"), actor="teste").cnh_category == "AB"


def test_driver_errors_are_all_reported(towns):
    t, _ = towns
    errors = errors_of(records.save_driver, t, {"category": "auxiliar", "name": "",
                                            "cpf": "111.111.111-11", "cnh_number": "123",
                                            "cnh_category": "Z", "cnh_expiry": "amanhã",
                                            "registration_number": "",
                                            "registration_expiry": ""}, actor="teste")
    assert errors == {
        "name": "obrigatório", "cpf": "CPF inválido: confira os 11 dígitos",
        "cnh_number": "número da CNH inválido: são 11 algarismos",
        "cnh_category": "categoria de CNH desconhecida: 'Z'",
        "cnh_expiry": "data inválida: 'amanhã' (use DD/MM/AAAA ou AAAA-MM-DD)",
        "registration_number": "obrigatório", "registration_expiry": "obrigatório",
        "holder_tax_id": "obrigatório"}  # an auxiliary is registered to one holder


def test_a_driver_is_linked_to_vehicles_of_the_right_service_and_holder(towns):
    t, _ = towns
    saved_holder(t)
    records.save_vehicle(t, moto_fields(t), actor="teste")
    d = records.save_driver(t, rider(vehicle_plate="qba1d23"), actor="teste")
    assert [v.plate for v in d.vehicles] == ["QBA1D23"]
    records.save_holder(t, {"name": "Outro", "tax_id": CPF}, actor="teste")
    records.save_vehicle(t, moto_fields(t, plate="QBC1D23", holder_tax_id=CPF), actor="teste")
    assert errors_of(records.save_driver, t, {"vehicle_plate": "QBC1D23"}, actor="teste",
                     driver=d) == {"vehicle_plate": "o veículo QBC1D23 é de outro permissionário"}
    taxi = records.save_vehicle(t, moto_fields(t, plate="ABC1234", service="taxi", doors="4"), actor="teste")
    assert "não conduz táxi" in errors_of(records.save_driver, t, {"vehicle_plate": taxi.plate},
                                          actor="teste", driver=d)["vehicle_plate"]


def test_licence_validity_must_end_after_it_starts_and_permit_must_match(towns):
    t, _ = towns
    saved_holder(t)
    records.save_vehicle(t, moto_fields(t), actor="teste")
    records.save_holder(t, {"name": "Outro", "tax_id": CPF}, actor="teste")
    records.save_permit(t, {"service": "mototaxi", "number": "AU-9", "holder_tax_id": CPF,
                        "valid_from": "2024-01-01"}, actor="teste")
    errors = errors_of(records.save_licence, t, {"vehicle_plate": "QBA1D23", "permit_number": "au-9",
                                             "number": "AL-1", "valid_from": "01/06/2025",
                                             "valid_until": "01/06/2025"}, actor="teste")
    assert errors == {"valid_until": "deve ser depois do início da validade",
                      "permit_number": "a permissão AU-9 é de outro permissionário"}


def test_insurance_is_only_for_motorcycles(towns):
    t, _ = towns
    saved_holder(t)
    records.save_vehicle(t, moto_fields(t, plate="ABC1234", service="taxi", engine_cc="", doors="4"),
                     actor="teste")
    errors = errors_of(records.save_insurance, t, {"vehicle_plate": "ABC1234", "insurer": "X",
                                               "policy_number": "1", "valid_from": "2025-01-01",
                                               "valid_until": "2026-01-01"}, actor="teste")
    assert errors == {"vehicle_plate": "seguro obrigatório só se registra para moto-táxi"}


# ------------------------------------------------------------ uniqueness, towns
def test_natural_keys_are_unique_within_a_town_but_not_across_towns(towns):
    t, other = towns
    saved_holder(t)
    saved_holder(other)  # same CNPJ in another town: a different registry
    records.save_vehicle(t, moto_fields(t), actor="teste")
    records.save_vehicle(other, moto_fields(other), actor="teste")
    assert errors_of(saved_holder, t, name="Outra") == {"tax_id": "CPF/CNPJ já cadastrado neste município"}
    assert errors_of(records.save_vehicle, t, moto_fields(t, plate="QBA-1D23"), actor="teste") == {
        "plate": "placa já cadastrada neste município"}
    records.save_driver(t, rider(), actor="teste")
    assert errors_of(records.save_driver, t, rider(name="Outro"), actor="teste") == {
        "cpf": "CPF de condutor já cadastrado neste município",
        "registration_number": "número de registro já cadastrado neste município"}


def test_another_towns_rows_are_not_found(towns):
    t, other = towns
    saved_holder(other)
    records.save_vehicle(other, moto_fields(other), actor="teste")
    records.save_stand(other, {"code": "P1", "place": "Praça", "capacity": "4",
                           "service": "mototaxi"}, actor="teste")
    errors = errors_of(records.save_vehicle, t, moto_fields(t, stand_code="P1"), actor="teste")
    assert errors == {"holder_tax_id": f"permissionário com CPF/CNPJ '{CNPJ}' não encontrado "
                                       "neste município",
                      "stand_code": "ponto 'P1' não encontrado neste município"}
    errors = errors_of(records.save_licence, t, {"vehicle_plate": "QBA1D23", "number": "AL-1",
                                             "valid_from": "2025-01-01",
                                             "valid_until": "2026-01-01"}, actor="teste")
    assert errors == {"vehicle_plate": "veículo de placa 'QBA1D23' não encontrado neste município"}
    assert records.search_vehicles(t, "QBA") == []
    assert records.search_holders(t, "Moto") == []


# --------------------------------------------------------------------- audit
def test_every_change_writes_one_audit_entry_with_before_and_after(app, towns):
    t, _ = towns
    user = factories.user("admin", "nortelandia")
    h = saved_holder(t)
    v = records.save_vehicle(t, moto_fields(t), actor=user)
    db.session.commit()
    entries = db.session.scalars(db.select(AuditEntry).order_by(AuditEntry.seq)).all()
    assert [(e.action, e.entity) for e in entries][-2:] == [("holder_created", "holder"),
                                                           ("vehicle_created", "vehicle")]
    assert entries[-1].actor == user.username and entries[-1].municipality_id == t
    assert json.loads(entries[-1].after)["plate"] == "QBA1D23"

    count = audit_count()
    records.save_vehicle(t, {"colour": "Azul"}, actor=user, vehicle=v)
    db.session.commit()
    last = db.session.scalars(db.select(AuditEntry).order_by(AuditEntry.seq.desc())).first()
    assert audit_count() == count + 1 and last.action == "vehicle_updated"
    assert (json.loads(last.before)["colour"], json.loads(last.after)["colour"]) == \
        ("Vermelha", "Azul")

    # Saving the same values again changes nothing and records nothing.
    records.save_vehicle(t, records.as_data(v), actor=user, vehicle=v)
    records.save_holder(t, records.as_data(h), actor=user, holder=h)
    db.session.commit()
    assert audit_count() == count + 1
    assert verify()[1] is None


def test_a_refused_save_writes_nothing(towns):
    t, _ = towns
    count = audit_count()
    errors_of(records.save_holder, t, {"name": "X", "tax_id": "1"}, actor="teste")
    assert audit_count() == count
    assert db.session.scalar(db.select(db.func.count()).select_from(Holder)) == 0


# ------------------------------------------------------------- status changes
def test_status_change_needs_a_reason_and_a_real_change(towns):
    t, _ = towns
    user = factories.user("admin", "nortelandia")
    saved_holder(t)
    records.save_vehicle(t, moto_fields(t), actor="teste")
    lic = records.save_licence(t, {"vehicle_plate": "QBA1D23", "number": "AL-1",
                               "valid_from": "2025-01-01", "valid_until": "2026-01-01"},
                           actor="teste")
    db.session.commit()
    assert errors_of(records.change_status, lic, Status.SUSPENDED, "  ", actor=user) == {
        "reason": "informe o motivo"}
    assert errors_of(records.change_status, lic, Status.ACTIVE, "sem motivo real", actor=user) == {
        "status": "a situação já é “Ativo”"}
    count = audit_count()
    change = records.change_status(lic, Status.SUSPENDED, "Vistoria reprovada (freios)", actor=user)
    db.session.commit()
    assert lic.status == Status.SUSPENDED
    row = db.session.scalar(db.select(StatusChange).filter_by(subject_type="licence",
                                                              subject_id=lic.id))
    assert (row.id, row.from_status, row.to_status, row.reason, row.user_id) == \
        (change.id, Status.ACTIVE, Status.SUSPENDED, "Vistoria reprovada (freios)", user.id)
    last = db.session.scalars(db.select(AuditEntry).order_by(AuditEntry.seq.desc())).first()
    assert audit_count() == count + 1
    assert (last.action, last.entity, json.loads(last.after)["status"]) == \
        ("status_changed", "licence", "suspended")


def test_status_is_not_changed_by_an_ordinary_edit(towns):
    t, _ = towns
    saved_holder(t)
    records.save_vehicle(t, moto_fields(t), actor="teste")
    d = records.save_driver(t, rider(), actor="teste")
    assert "informe o motivo" in errors_of(records.save_driver, t, {"status": "revoked"},
                                           actor="teste", driver=d)["status"]
    records.change_status(d, "cassado", "Dirigia embriagado (Lei 535 Art. 19)", actor="teste")
    assert db.session.get(Driver, d.id).status == Status.REVOKED


# -------------------------------------------------------------------- search
def test_vehicle_search_by_plate_prefix_substring_prefix_number_and_holder(towns):
    t, other = towns
    saved_holder(t)
    records.save_holder(t, {"name": "José Pereira", "tax_id": CPF}, actor="teste")
    for plate, prefix, tax in [("QBA1D23", "0101", CNPJ), ("QBA2E34", "0102", CNPJ),
                               ("XQB1A11", "0203", CNPJ), ("ABC1234", "0301", CPF)]:
        records.save_vehicle(t, moto_fields(t, plate=plate, prefix=prefix, holder_tax_id=tax), actor="teste")
    saved_holder(other)
    records.save_vehicle(other, moto_fields(other, plate="QBA9Z99"), actor="teste")
    plates = lambda q, **kw: [v.plate for v in records.search_vehicles(t, q, **kw)]  # noqa: E731
    assert plates("qba") == ["QBA1D23", "QBA2E34"]
    assert plates("QB") == ["QBA1D23", "QBA2E34"]  # the start of a plate, as it is typed
    assert plates("qba-1d23") == ["QBA1D23"]
    assert plates("1D2") == ["QBA1D23"]  # the middle of a plate
    assert plates("1") == ["ABC1234", "QBA1D23", "XQB1A11"]
    assert plates("0301") == ["ABC1234"]  # the prefix painted on the doors
    assert plates("pereira") == ["ABC1234"]  # the holder's name
    assert plates("") == ["ABC1234", "QBA1D23", "QBA2E34", "XQB1A11"]
    assert plates("01") == ["QBA1D23", "QBA2E34"]  # prefixes 0101 and 0102
    records.save_vehicle(t, moto_fields(t, plate="QBA5C01", prefix="9999"), actor="teste")
    # Plate-prefix matches first, then the others, and pages do not overlap.
    assert plates("01") == ["QBA1D23", "QBA2E34", "QBA5C01"]
    records.save_vehicle(t, moto_fields(t, plate="AAA0100", prefix="7777"), actor="teste")
    assert plates("a") == ["AAA0100", "ABC1234"]
    # Prefix matches (0101, 0102) by prefix, then a plate that contains the digits.
    assert plates("010") == ["QBA1D23", "QBA2E34", "AAA0100"]
    assert [plates("010", limit=1, offset=i) for i in range(4)] == [
        ["QBA1D23"], ["QBA2E34"], ["AAA0100"], []]
    records.save_vehicle(t, moto_fields(t, plate="ZZZ9999", prefix="QB9"), actor="teste")
    assert plates("QB", limit=2) + plates("QB", limit=2, offset=2) == [
        "QBA1D23", "QBA2E34", "QBA5C01", "ZZZ9999"]
    assert [plates("QB", limit=1, offset=i) for i in range(5)] == [
        ["QBA1D23"], ["QBA2E34"], ["QBA5C01"], ["ZZZ9999"], []]
    assert plates("QBA") == ["QBA1D23", "QBA2E34", "QBA5C01"]  # surely a plate: no prefix
    assert plates("%") == [] and plates("ZZY") == []


def test_other_searches(towns):
    t, _ = towns
    saved_holder(t)
    records.save_vehicle(t, moto_fields(t), actor="teste")
    records.save_driver(t, rider(), actor="teste")
    records.save_permit(t, {"service": "mototaxi", "number": "AU-7", "holder_tax_id": CNPJ,
                        "valid_from": "2024-01-01"}, actor="teste")
    records.save_licence(t, {"vehicle_plate": "QBA1D23", "permit_number": "AU-7", "number": "AL-3",
                         "valid_from": "2025-01-01", "valid_until": "2026-01-01"}, actor="teste")
    records.save_stand(t, {"code": "p1", "place": "Rodoviária", "capacity": "4",
                       "service": "mototaxi"}, actor="teste")
    assert [h.name for h in records.search_holders(t, CNPJ[:5])] == ["Moto Rápida Ltda"]
    assert [d.name for d in records.search_drivers(t, "joão")] == ["João da Silva"]
    assert [d.name for d in records.search_drivers(t, "MT-00")] == ["João da Silva"]
    assert [p.number for p in records.search_permits(t, "rápida")] == ["AU-7"]
    assert [lic.number for lic in records.search_licences(t, "qba1")] == ["AL-3"]
    assert [s.code for s in records.search_stands(t, "rodov")] == ["P1"]
    assert db.session.scalar(db.select(db.func.count()).select_from(Vehicle)) == 1
