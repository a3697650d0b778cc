"""Engine behaviour not tied to one article: warnings ahead of time, money, standing, startup."""
from __future__ import annotations

import subprocess
import sys
from datetime import date, timedelta
from decimal import Decimal

from inspector import rules
from inspector.rules.model import Amount
from inspector.rules.sanctions import brl, money

DAY = date(2026, 3, 1)


def _documented(**kw) -> rules.VehicleFacts:
    base = dict(year_of_manufacture=2024, engine_cc=160, last_vistoria_on=DAY,
                licence=rules.LicenceFacts("AL-1", date(2026, 1, 1), date(2026, 12, 31)),
                permit=rules.PermitFacts("AUT-1", date(2025, 1, 1)),
                insurance=(rules.InsuranceFacts(date(2026, 1, 1), date(2026, 12, 31)),))
    base.update(kw)
    return rules.VehicleFacts(**base)


def test_what_expires_within_30_days_is_a_warning_and_day_31_is_not():
    r = rules.resolve("tapurah", "mototaxi", DAY)
    soon = _documented(licence=rules.LicenceFacts("AL-1", date(2026, 1, 1), DAY + timedelta(days=30)))
    later = _documented(licence=rules.LicenceFacts("AL-1", date(2026, 1, 1), DAY + timedelta(days=31)))
    bad, warn = rules.vehicle_check(r, soon)
    assert bad == [] and [w.rule_id for w in warn] == ["licence.due"]
    assert warn[0].due_on == DAY + timedelta(days=30) and "31/03/2026" in warn[0].message
    assert rules.vehicle_check(r, later) == ([], [])


def test_a_vehicle_reaching_its_age_limit_next_month_is_warned():
    r = rules.resolve("tapurah", "mototaxi", date(2026, 12, 15))
    year_long = (rules.LicenceFacts("AL-1", date(2026, 1, 1), date(2027, 12, 31)),
                 (rules.InsuranceFacts(date(2026, 1, 1), date(2027, 12, 31)),))
    bad, warn = rules.vehicle_check(r, _documented(year_of_manufacture=2021,
                                               last_vistoria_on=date(2026, 12, 1),
                                               licence=year_long[0], insurance=year_long[1]))
    assert bad == [] and [w.rule_id for w in warn] == ["vehicle.age.due"]
    assert warn[0].due_on == date(2027, 1, 1)


def test_standing_status():
    susp = rules.Violation("licence.suspended", "x", None, effect="suspended")
    bad = rules.Violation("licence.expired", "x", None)
    assert rules.standing_status([]) == "regular"
    assert rules.standing_status([susp]) == "suspended"
    assert rules.standing_status([susp, bad]) == "irregular"


def test_money_in_brazilian_reais():
    assert brl(Decimal("1234.5")) == "R$ 1.234,50"
    town = rules.TownFacts("tapurah", fiscal_unit_brl=(rules.DatedAmount(date(2026, 1, 1),
                                                                  Decimal("4.10")),))
    m = money(Amount(unit="UFIM", amount=Decimal(100)), town, DAY)
    assert (m.text, m.brl_text, m.as_dict()["brl"]) == ("100 UFIM", "R$ 410,00", "410.00")
    before = money(Amount(unit="UFIM", amount=Decimal(100)), town, date(2025, 12, 31))
    assert before.brl is None and before.brl_text == "não definido"


def test_a_decree_value_is_used_only_from_its_date():
    town = rules.TownFacts("nova-santa-helena", decree_values={"fine.amount": (
        rules.DatedAmount(date(2026, 2, 1), Decimal("200"), "BRL", "Decreto 5/2026"),)})
    amount = Amount(unit=None, decree="fine.amount")
    assert money(amount, town, date(2026, 1, 31)).text == "não definido"
    assert money(amount, town, DAY).brl_text == "R$ 200,00"


def test_packs_load_when_the_app_starts():
    code = ("from inspector import create_app\n"
            "from inspector.rules import load_all\n"
            "assert load_all.cache_info().currsize == 0\n"
            "create_app({'SQLALCHEMY_DATABASE_URI': 'sqlite://', 'SECRET_KEY': 'x'})\n"
            "print(load_all.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "1"
