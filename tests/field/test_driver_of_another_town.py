"""Who was driving (docs/sync.md §2): an id the phone can only have from another town's
registry is refused naming `driver.id`, as another town's vehicle is; the town's own driver,
and an id no longer in the registry (removed after the phone's snapshot, §5), are kept."""
from __future__ import annotations

import json
import uuid

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Inspection
from tests import factories
from tests.support.field_api import body


def test_a_driver_of_another_town_is_refused_and_nothing_is_stored(app, api, moto, make):
    v = moto()
    stranger = make(factories.driver, "nortelandia", "mototaxista", name="Gilmar de Nortelândia")
    r = api.put_inspection(str(uuid.uuid4()), body(v.id, driver={"id": stranger.id}))
    assert r.status_code == 422
    assert r.json["fields"] == {"driver.id": "condutor não encontrado no cadastro de Tapurah"}
    with app.app_context():
        assert db.session.scalar(select(Inspection)) is None


def test_the_towns_driver_and_a_removed_one_are_kept(app, api, moto, make):
    v = moto()
    own = make(factories.driver, "tapurah", "mototaxista", name="Rider de Tapurah")
    for told in ({"id": own.id, "name": own.name}, {"id": 999_999, "name": "Removido Depois"}):
        iid = str(uuid.uuid4())
        assert api.put_inspection(iid, body(v.id, driver=told)).status_code == 201, told
        with app.app_context():
            insp = db.session.scalar(select(Inspection).where(Inspection.uuid == iid))
            assert json.loads(insp.body)["driver"] == told
