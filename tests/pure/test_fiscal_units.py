"""Which units have no value in a town: another town's fiscal unit only. The engine's
pricing and the decision's refusal (enforcement.pricing) ask the same question of the
town's facts, so neither names the units itself."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from inspector.rules.facts import DatedAmount, TownFacts
from inspector.rules.sanctions import foreign_unit, unit_value

DAY = date(2026, 3, 2)
NSH = TownFacts("nova-santa-helena", "Nova Santa Helena", fiscal_unit="UFM",
                fiscal_unit_brl=(DatedAmount(date(2026, 1, 1), Decimal("5.00")),))


@pytest.mark.parametrize("unit, foreign", [
    ("UFM", False), ("BRL", False), ("minimum_wage", False), (None, False), ("UFIM", True),
])
def test_only_another_towns_fiscal_unit_is_foreign(unit, foreign):
    assert foreign_unit(NSH, unit) is foreign


def test_a_foreign_unit_has_no_value_even_when_the_town_registered_its_own():
    assert unit_value(NSH, "UFIM", DAY) == (
        None, "UFIM não é a unidade fiscal de Nova Santa Helena (UFM)")
    assert unit_value(NSH, "UFM", DAY)[0] == Decimal("5.00")


def test_a_town_whose_unit_is_not_known_is_not_checked():
    town = TownFacts("x", "X", fiscal_unit=None)
    assert not foreign_unit(town, "UFIM")
