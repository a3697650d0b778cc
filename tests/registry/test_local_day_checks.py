"""The registry's law checks count days in Mato Grosso (UTC-4), like the forms: between
midnight and 04:00 UTC it is still the day before there, and the import, the limits shown
when a record is saved and the year-of-manufacture bound must say so."""
from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from inspector import clock, laws
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.imports.csv_import import import_registry
from inspector.registry import limits
from inspector.registry.records import save_vehicle
from tests import factories
from tests.support.registry_csv import row, to_csv

# 02:30 UTC on 1 January 2031 is 22:30 on 31 December 2030 in Mato Grosso.
NIGHT = datetime(2031, 1, 1, 2, 30, tzinfo=UTC)
LOCAL = date(2030, 12, 31)


class _Clock(datetime):
    @classmethod
    def now(cls, tz=None):
        return NIGHT if tz is None else NIGHT.astimezone(tz)


@pytest.fixture
def night(app, monkeypatch):
    """An app context, Tapurah's id, and the clock at NIGHT."""
    monkeypatch.setattr(clock, "datetime", _Clock)
    assert clock.default_day() == LOCAL
    with app.app_context():
        t = factories.town("tapurah")
        db.session.commit()
        yield t.id
        db.session.rollback()


@pytest.fixture
def days(monkeypatch):
    """The days the compliance runs were asked about."""
    asked: list[date] = []
    real = laws.town_compliance

    def spy(town, on, *a, **kw):
        asked.append(on)
        return real(town, on, *a, **kw)

    monkeypatch.setattr(laws, "town_compliance", spy)  # the face the import and the limits call
    return asked


def test_the_import_checks_the_law_on_the_local_day(night, days):
    report = import_registry(night, to_csv([row(0)]), actor="teste", dry_run=True)
    assert not report.errors
    assert days and set(days) == {LOCAL}   # the caps before the file, the limits after it


def test_the_limits_shown_on_save_are_those_of_the_local_day(night, days):
    v = factories.vehicle("tapurah")
    limits.limits_for(v)
    assert days == [LOCAL]


def test_the_year_of_manufacture_may_be_next_year_in_mato_grosso_not_in_utc(night):
    h = factories.holder("tapurah")
    db.session.commit()
    data = {"service": "mototaxi", "plate": "QBA1B23", "make_model": "Honda CG 160",
            "year_of_manufacture": "2032", "colour": "Vermelha", "engine_cc": "160",
            "holder_tax_id": h.tax_id, "prefix": "0101"}
    with pytest.raises(ValidationFailed) as refused:
        save_vehicle(night, data, actor="teste")
    assert "year_of_manufacture" in refused.value.errors
    db.session.rollback()
    v = save_vehicle(night, {**data, "year_of_manufacture": "2031"}, actor="teste")
    assert v.year_of_manufacture == 2031
