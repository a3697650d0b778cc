"""Fixtures shared by the field API tests: a licensed moto-taxi, an agent, a JSON client."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from inspector.extensions import db
from tests import factories
from tests.support.field_api import Api


@pytest.fixture
def moto(make):
    """A licensed Tapurah moto-taxi with a driver."""
    def build(town="tapurah"):
        v = factories.vehicle(town, "mototaxi")
        d = factories.driver(town, "mototaxista", holder=v.holder)
        d.vehicles.append(v)
        factories.licence(v)
        factories.insurance(v)
        return v
    return lambda town="tapurah": make(build, town)


@pytest.fixture
def agent(make):
    return make(factories.user, "agent", "tapurah", badge_number="AG-07")


@pytest.fixture
def api(client, agent) -> Api:
    assert client.login(agent.username).status_code == 302
    return Api(client)


def count(app, model, **where) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model).filter_by(**where))
