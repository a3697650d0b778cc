"""A phone may write its moments with any UTC offset; the inspection keeps the same instant.
SQLite stores a datetime's wall time and drops its offset, so an inspection sent at
05:40-04:00 (Mato Grosso's own offset) was read back as 05:40 UTC: four hours early on the
review page, and an end before its start for two offsets far apart."""
from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone
from html import unescape

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Inspection
from tests import factories
from tests.support.field_api import body
from tests.support.instants import CUIABA


def _stored(app, iid: str) -> tuple[datetime, datetime, int]:
    with app.app_context():
        insp = db.session.scalar(select(Inspection).where(Inspection.uuid == iid))
        aware = [t if t.tzinfo else t.replace(tzinfo=UTC) for t in (insp.started_at,
                                                                     insp.finished_at)]
        return aware[0], aware[1], insp.id


def test_the_same_instant_whatever_the_offset(app, api, moto, make):
    start = (datetime.now(UTC) - timedelta(minutes=30)).replace(microsecond=0)
    for start_tz, end_tz in ((timezone(timedelta(hours=-4)), timezone(timedelta(hours=-4))),
                             (timezone(timedelta(hours=14)), timezone(timedelta(hours=-11)))):
        v, iid = moto(), str(uuid.uuid4())
        b = body(v.id, started_at=start.astimezone(start_tz).isoformat(),
                 finished_at=(start + timedelta(minutes=5)).astimezone(end_tz).isoformat())
        assert api.put_inspection(iid, b).status_code == 201
        started, finished, insp_id = _stored(app, iid)
        assert (started, finished) == (start, start + timedelta(minutes=5))
    sup = make(factories.user, "supervisor", "tapurah")
    client = app.test_client()
    assert client.login(sup.username).status_code == 302
    page = " ".join(unescape(client.get(f"/revisao/vistorias/{insp_id}").get_data(
        as_text=True)).split())
    local = start.astimezone(CUIABA)
    assert f"{local:%d/%m/%Y %H:%M} – {local + timedelta(minutes=5):%H:%M}" in page
