"""`flask demo seed`: the demo a person signs into after `make run`.

Idempotent, every demo login works, the stands the laws name are there with their
capacities, the fleet respects the legal caps while a few records break a rule on
purpose, and every row it wrote is in an intact audit log.
"""
from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from inspector.clock import default_day
from inspector.config import DEMO_PASSWORD
from inspector.demo.data import ROLES, TOWNS
from inspector.extensions import db, limiter
from inspector.identifiers import format_plate
from inspector.models import (
    AuditEntry,
    DatedValue,
    Driver,
    DriverCategory,
    Holder,
    HolderKind,
    InsurancePolicy,
    Licence,
    Municipality,
    Service,
    Stand,
    Status,
    StatusChange,
    User,
    Vehicle,
    vehicle_drivers,
)

TABLES = (Municipality, DatedValue, User, Stand, Holder, Driver, Vehicle, Licence,
          InsurancePolicy, StatusChange, AuditEntry)


def _seed(runner) -> str:
    result = runner.invoke(args=["demo", "seed"])
    assert result.exit_code == 0, result.output
    return result.output


def _counts() -> dict[str, int]:
    counts = {m.__name__: db.session.scalar(select(func.count()).select_from(m)) for m in TABLES}
    counts["links"] = db.session.scalar(select(func.count()).select_from(vehicle_drivers))
    return counts


def _town(slug: str) -> Municipality:
    return db.session.scalar(select(Municipality).filter_by(slug=slug))


@pytest.fixture
def seeded(app, runner):
    """The demo data, seeded once; yields the app context to query it."""
    output = _seed(runner)
    with app.app_context():
        yield output


def test_seeding_twice_changes_nothing(app, runner):
    _seed(runner)
    with app.app_context():
        first = _counts()
    second_output = _seed(runner)
    with app.app_context():
        assert _counts() == first
    assert "nada a fazer" in second_output
    assert first["Vehicle"] >= 60 and first["AuditEntry"] > first["Vehicle"]


def test_every_demo_login_works(app, runner, client):
    _seed(runner)
    for facts in TOWNS:
        for _role, word in ROLES:
            with app.app_context():
                limiter.reset()  # twelve logins in a row would trip the login rate limit
            r = client.login(f"{word}.{facts.slug}", DEMO_PASSWORD)
            assert r.status_code == 302, f"{word}.{facts.slug} could not sign in"
            home = client.get(r.headers["Location"])
            assert home.status_code == 200 and facts.name in home.get_data(as_text=True)
            client.post_form("/sair")
    with app.app_context():
        agents = db.session.scalars(select(User).filter_by(role="agent")).all()
        assert len(agents) == 4 and all(a.badge_number for a in agents)  # Tapurah Art. 26


def test_towns_have_census_figures_and_no_invented_fiscal_unit(seeded):
    figures = {"nortelandia": ("5106000", 5956), "nova-santa-helena": ("5106190", 4239),
               "sapezal": ("5107875", 28944), "tapurah": ("5108006", 14370)}  # Censo 2022
    for facts in TOWNS:
        town = _town(facts.slug)
        assert (town.ibge_code, town.population) == figures[facts.slug]
        assert town.population_seat > 0 and town.population_interior > 0
        assert "ESTIMADA" in town.population_source  # the seat/interior split is not IBGE's
        assert town.value_on("minimum_wage", date(2024, 6, 1)) == Decimal("1412.00")
        assert town.value_on("minimum_wage", date(2025, 6, 1)) == Decimal("1518.00")
        assert town.value_on("minimum_wage", date(2026, 6, 1)) == Decimal("1621.00")
        assert town.value_on("fiscal_unit", default_day()) is None  # no law gives it
    assert _town("tapurah").fiscal_unit_name == "UFIM"  # Lei 406/2001 Art. 14 §ú
    assert _town("nortelandia").fiscal_unit_name == "UFM"  # Lei 030/1998 Art. 16


def test_the_stands_the_laws_name(seeded):
    def stands(slug):
        return db.session.scalars(select(Stand).filter_by(municipality_id=_town(slug).id)
                                  .order_by(Stand.code)).all()

    sapezal = stands("sapezal")
    assert [(s.code, s.capacity) for s in sapezal] == [("01", 4), ("02", 2), ("03", 2),
                                                      ("04", 4), ("05", 1), ("06", 2)]
    assert "Mercado Polinski" in sapezal[5].place
    assert all(s.legal_basis.endswith("Art. 14") for s in sapezal)
    norte = stands("nortelandia")
    assert len(norte) == 2 and "Praça Edgar Araújo" in norte[0].place
    assert "Rodoviária" in norte[1].place
    assert all(s.legal_basis.endswith("Art. 24") for s in norte)
    for stand in sapezal + norte:  # no stand holds more taxis than it has places for
        assert len(stand.vehicles) <= stand.capacity


def _fleet(slug: str, service: Service) -> list[Vehicle]:
    return db.session.scalars(select(Vehicle).filter_by(municipality_id=_town(slug).id,
                                                        service=service)).all()


def test_the_regular_fleet_respects_the_legal_caps(seeded):
    assert len(_fleet("nortelandia", Service.TAXI)) <= 6          # Lei 127/2009 Art. 3
    assert len(_fleet("nova-santa-helena", Service.TAXI)) <= 4239 // 750  # 535 Art. 3 §3
    tapurah = _town("tapurah")                                  # Lei 406/2001 Art. 5
    assert len(_fleet("tapurah", Service.MOTOTAXI)) <= (
        tapurah.population_seat // 1000 + tapurah.population_interior // 500)
    assert not _fleet("tapurah", Service.TAXI) and not _fleet("sapezal", Service.MOTOTAXI)
    for slug, share in (("nova-santa-helena", 1 / 3), ("sapezal", 0.20)):  # Art. 5 / Art. 3
        fleet = _fleet(slug, Service.TAXI)
        for holder in {v.holder for v in fleet if v.holder.kind == HolderKind.COMPANY}:
            assert len([v for v in fleet if v.holder == holder]) <= share * len(fleet)
    for slug in ("nortelandia", "tapurah"):  # moto-taxi only by "empresa autorizada"
        assert all(v.holder.kind == HolderKind.COMPANY for v in _fleet(slug, Service.MOTOTAXI))
    today = default_day()
    licences = db.session.scalars(select(Licence)).all()
    valid = [lic for lic in licences if lic.status == Status.ACTIVE and lic.valid_until >= today]
    assert len(valid) >= 0.9 * len(licences)  # most of the demo is regular


def test_the_irregular_cases_are_there(seeded):
    today = default_day()
    expired = db.session.scalars(select(Licence).where(Licence.valid_until < today)).all()
    assert expired, "no expired licence"
    suspended = db.session.scalars(select(Licence).filter_by(status=Status.SUSPENDED)).all()
    assert len(suspended) == 1
    change = db.session.scalar(select(StatusChange).filter_by(subject_type="licence",
                                                              subject_id=suspended[0].id))
    assert change.to_status == Status.SUSPENDED and "Art. 20" in change.reason
    too_old_taxi = [v for v in _fleet("nova-santa-helena", Service.TAXI)
                    if today.year - v.year_of_manufacture > 5]        # Lei 535/2013 Art. 14
    too_old_moto = [v for v in _fleet("tapurah", Service.MOTOTAXI)
                    if today.year - v.year_of_manufacture > 5]        # Lei 406/2001 Art. 13
    assert too_old_taxi and too_old_moto
    uninsured = [v for v in db.session.scalars(select(Vehicle).filter_by(
        service=Service.MOTOTAXI)) if v.insurance_policies[0].valid_until < today]
    assert uninsured, "no moto-taxi whose insurance has expired"           # Arts. 16-17
    third_auxiliary = [v for v in db.session.scalars(select(Vehicle).filter_by(
        service=Service.TAXI)) if sum(d.category == DriverCategory.AUXILIAR
                                      for d in v.drivers) > 2]
    assert third_auxiliary, "no taxi with a third auxiliary driver"    # Lei 127/2009 Art. 9
    lapsed = db.session.scalars(select(Driver).where(
        Driver.registration_expiry < today - timedelta(days=30))).all()
    assert lapsed, "no driver registration expired over 30 days"     # 127 Art. 8 §ú


def test_every_seeded_row_is_audited_and_the_chain_holds(seeded, runner):
    for model, entity in ((Holder, "holder"), (Vehicle, "vehicle"), (Driver, "driver"),
                          (Licence, "licence"), (Stand, "stand"), (User, "user"),
                          (InsurancePolicy, "insurance"), (Municipality, "municipality"),
                          (DatedValue, "dated_value")):
        ids = set(db.session.scalars(select(model.id)))
        audited = {int(i) for i in db.session.scalars(
            select(AuditEntry.entity_id).filter_by(entity=entity, action=f"{entity}_created"))}
        assert ids and ids <= audited, f"{entity} rows without a creation entry"
    # every row is the seed's, but the vistorias: the law gives them to the agent who performs
    # them (Tapurah Lei 406/2001 Art. 3 § 1º), and the demo's are the demo agent's
    others = {(e.actor, e.action) for e in db.session.scalars(select(AuditEntry))
              if e.actor != "demo-seed"}
    assert {actor for actor, _ in others} <= {"agente.tapurah"}, others
    assert {action for _, action in others} <= {"inspection_received", "vistoria_decided",
                                                "vehicle_vistoria_recorded",
                                                "vistoria_certificate_issued"}, others
    drivers = db.session.scalars(select(Driver)).all()
    assert all(d.photo and d.photo[:2] == b"\xff\xd8" for d in drivers)  # JPEG ID photos
    result = runner.invoke(args=["audit", "verify"])
    assert result.exit_code == 0 and "chain intact" in result.output


def test_every_vehicle_and_rider_has_a_qr_credential_a_passenger_can_open(app, seeded, client):
    """The demo is usable end to end: each sticker and vest carries a working QR."""
    from inspector.models import Credential, Vehicle

    with app.app_context():
        vehicles = db.session.scalars(select(Vehicle)).all()
        with_credential = {c.vehicle_id for c in db.session.scalars(
            select(Credential).where(Credential.revoked_at.is_(None))) if c.vehicle_id}
        assert {v.id for v in vehicles} <= with_credential
        riders = db.session.scalars(select(Driver).where(
            Driver.category == DriverCategory.MOTOTAXISTA)).all()
        rider_ids = {c.driver_id for c in db.session.scalars(select(Credential)) if c.driver_id}
        assert riders and {d.id for d in riders} <= rider_ids
    listing = app.test_cli_runner().invoke(args=["credentials", "list", "--town", "tapurah",
                                                    "--json"])
    assert listing.exit_code == 0
    sticker = next(c for c in json.loads(listing.output)["credentials"] if c["kind"] == "vehicle")
    page = client.get(sticker["url"].replace("http://127.0.0.1:5000", ""))
    assert page.status_code == 200
    assert format_plate(sticker["plate"]) in page.get_data(as_text=True)


def test_tapurah_has_an_agenda_an_approved_and_a_rejected_vistoria_and_a_certificate(seeded):
    """docs/vistoria.md: what a person trying the demo finds at /vistorias."""
    from inspector.models import AppointmentStatus, Vistoria, VistoriaAppointment, VistoriaResult

    found = db.session.scalars(select(Vistoria)).all()
    approved = [v for v in found if v.result == VistoriaResult.APPROVED]
    rejected = [v for v in found if v.result == VistoriaResult.REJECTED]
    assert len(approved) == 1 and len(rejected) == 1
    assert approved[0].certificate_number and approved[0].pdf[:5] == b"%PDF-"
    assert approved[0].vehicle.last_vistoria_on == approved[0].performed_on
    assert rejected[0].return_on > rejected[0].performed_on
    assert rejected[0].to_fix and all(f["law"] == "Lei 406/2001" and f["article"]
                                      for f in rejected[0].to_fix)
    booked = db.session.scalars(select(VistoriaAppointment).where(
        VistoriaAppointment.status == AppointmentStatus.BOOKED)).all()
    assert len(booked) == 2 and all(a.starts_at > approved[0].decided_at for a in booked)
