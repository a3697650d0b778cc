"""The compliance adapter: registry rows -> standing with reasons and citations (on the DB)."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from inspector.clock import default_day
from inspector.extensions import db
from inspector.laws import compliance
from inspector.models import DecreeValue, Driver, Municipality, Status, Vehicle
from inspector.rules import PriorSanction
from tests import factories

TODAY = default_day()


def _moto(town="tapurah", year=2024, cc=160, trail=False, insured=True, licence=None,
          permit=None):
    """A documented moto-taxi: licence, company permit, insurance, recent vistoria."""
    h = factories.holder(town, company=True)
    v = factories.vehicle(town, "mototaxi", holder=h, year_of_manufacture=year, engine_cc=cc,
                          is_trail=trail, last_vistoria_on=TODAY - timedelta(days=30))
    factories.permit(h, "mototaxi", **(permit or {}))
    factories.licence(v, **(licence or {}))
    if insured:
        factories.insurance(v)
    return v


def _standing(app, build):
    with app.app_context():
        v = build()
        db.session.commit()
        v = db.session.get(Vehicle, v.id)
        return compliance.vehicle_standing(v, TODAY)


def test_a_documented_moto_taxi_is_regular(app):
    s = _standing(app, _moto)
    assert s.status == "regular" and s.reasons == [] and s.is_regular


def test_a_suspended_licence_makes_the_vehicle_suspended_with_its_citation(app):
    s = _standing(app, lambda: _moto(licence={"status": Status.SUSPENDED, "number": "AL-9"}))
    assert s.status == "suspended"
    [r] = s.reasons
    d = r.as_dict()
    assert d["rule_id"] == "licence.suspended" and d["message"] == "Alvará AL-9 suspenso."
    assert d["citation"]["law"] == "Lei 406/2001"
    assert d["citation"]["law_slug"] == "tapurah-lei-406-2001-mototaxi"
    assert d["citation"]["article"] == "Art. 4" and d["citation"]["anchor"] == "art-4"
    assert d["citation"]["quote"]


@pytest.mark.parametrize("licence,rule_id", [
    ({"status": Status.REVOKED}, "licence.revoked"),
    ({"valid_from": TODAY - timedelta(days=400), "valid_until": TODAY - timedelta(days=1)},
     "licence.expired"),
])
def test_a_revoked_or_expired_licence_makes_it_irregular(app, licence, rule_id):
    s = _standing(app, lambda: _moto(licence=licence))
    assert s.status == "irregular" and [r.rule_id for r in s.reasons] == [rule_id]


def test_a_revoked_permit_makes_it_irregular(app):
    s = _standing(app, lambda: _moto(permit={"status": Status.REVOKED}))
    assert [r.rule_id for r in s.reasons] == ["permit.revoked"]
    assert s.reasons[0].citation.article == "Art. 6"


def test_lapsed_insurance_makes_a_moto_taxi_irregular(app):
    def build():
        v = _moto(insured=False)
        factories.insurance(v, valid_from=TODAY - timedelta(days=400),
                            valid_until=TODAY - timedelta(days=3))
        return v
    s = _standing(app, build)
    assert s.status == "irregular"
    [r] = s.reasons
    assert r.rule_id == "insurance.lapsed" and "Seguro obrigatório vencido em" in r.message
    assert r.citation.article == "Art. 17"


def test_a_vehicle_past_its_age_is_irregular(app):
    s = _standing(app, lambda: _moto(year=TODAY.year - 6))
    assert [r.rule_id for r in s.reasons] == ["vehicle.age"]


def test_the_same_bike_is_judged_by_its_own_towns_law(app):
    tapurah = _standing(app, lambda: _moto("tapurah", year=TODAY.year - 1, cc=250, trail=True))
    norte = _standing(app, lambda: _moto("nortelandia", year=TODAY.year - 1, cc=250,
                                         trail=True))
    assert sorted(r.rule_id for r in tapurah.reasons) == ["vehicle.cc.max", "vehicle.trail"]
    assert norte.status == "regular"


def test_insurance_due_soon_is_a_warning_not_a_reason(app):
    def build():
        v = _moto(insured=False)
        factories.insurance(v, valid_until=TODAY + timedelta(days=10))
        return v
    s = _standing(app, build)
    assert s.status == "regular" and [w.rule_id for w in s.warnings] == ["insurance.due"]
    assert s.as_dict()["warnings"][0]["due_on"] == (TODAY + timedelta(days=10)).isoformat()


def test_a_taxi_where_the_town_has_no_taxi_law_is_irregular_without_citation(app):
    def build():
        v = factories.vehicle("tapurah", "taxi")
        factories.licence(v)
        return v
    s = _standing(app, build)
    assert s.status == "irregular" and s.reasons[0].rule_id == "law.none"
    assert s.reasons[0].citation is None


def test_driver_registration_cancelled_after_the_30_day_grace(app):
    with app.app_context():
        d = factories.driver("nortelandia", "autonomo",
                             registration_expiry=TODAY - timedelta(days=40))
        db.session.commit()
        s = compliance.driver_standing(db.session.get(Driver, d.id), TODAY)
    assert s.status == "irregular"
    assert [r.rule_id for r in s.reasons] == ["driver.registration.cancelled"]
    assert s.reasons[0].citation.article == "Art. 8, parágrafo único"


def test_town_compliance_reports_each_service_of_the_town(app):
    with app.app_context():
        for _ in range(7):
            h = factories.holder("nortelandia")
            v = factories.vehicle("nortelandia", "taxi", holder=h, year_of_manufacture=2022)
            factories.permit(h, "taxi")
            factories.licence(v)
        _moto("nortelandia")
        db.session.commit()
        town = db.session.scalar(db.select(Municipality).filter_by(slug="nortelandia"))
        report = compliance.town_compliance(town, TODAY)
    by_service = {r.service: r for r in report.reports}
    assert set(by_service) == {"taxi", "mototaxi"}
    taxi = by_service["taxi"]
    assert taxi.fleet == 7
    [cap] = [q for q in taxi.quotas if q.rule_id == "town.fleet_cap"]
    assert (cap.used, cap.limit, cap.over, cap.citation.article) == (7, 6, True, "Art. 3")
    assert "town.fleet_cap" in [v.rule_id for v in report.violations]
    assert by_service["mototaxi"].fleet == 1


def test_decree_values_are_not_defined_until_the_town_sets_them(app):
    with app.app_context():
        town = factories.town("nova-santa-helena")
        db.session.commit()
        [status] = compliance.decree_status(town, TODAY)
        assert (status.key, status.text, status.citation.article) == \
            ("fine.amount", "não definido", "Art. 31")
        p = compliance.propose_sanction(town, "taxi", "fare-table-certificate",
                                        [PriorSanction(TODAY)] * 2, TODAY)
        assert p.measures[0].money.brl_text == "não definido"
        db.session.add(DecreeValue(municipality_id=town.id, key="fine.amount",
                                   valid_from=TODAY - timedelta(days=1), amount=Decimal("180"),
                                   unit="BRL", source="Decreto 12/2026"))
        db.session.commit()
        assert compliance.decree_status(town, TODAY)[0].value.amount == Decimal("180")
        p = compliance.propose_sanction(town, "taxi", "fare-table-certificate",
                                        [PriorSanction(TODAY)] * 2, TODAY)
        assert p.measures[0].money.brl_text == "R$ 180,00"
        assert "Decreto 12/2026" in p.measures[0].money.basis


def test_tapurah_daily_fine_uses_the_towns_minimum_wage(app):
    with app.app_context():
        town = factories.town("tapurah")  # minimum wage R$ 1.621,00 from 2026-01-01
        db.session.commit()
        p = compliance.propose_sanction(town, "mototaxi", "mirrors", [], date(2026, 6, 1))
    assert p.deadline.hours == 72
    assert p.on_missed_deadline.money.brl_text == "R$ 972,60 por dia"
