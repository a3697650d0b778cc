"""bench/load.py's simulated users build their requests with load.py's helpers; these run
them against the app (no Locust needed), so a change in the sync protocol or in the pages'
markup fails here rather than turning a load figure into a column of errors."""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from PIL import Image

from tests import factories
from tests.support.field_api import jpeg

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def load():
    sys.path.insert(0, str(BENCH))
    try:
        import load as module
        yield module
    finally:
        sys.path.remove(str(BENCH))


def test_unique_jpeg_is_still_the_same_image_with_its_own_hash(load):
    base = jpeg(3, size=(120, 90))
    a, b = load.unique_jpeg(base, b"nonce-a"), load.unique_jpeg(base, b"nonce-b")
    assert len({hashlib.sha256(x).hexdigest() for x in (base, a, b)}) == 3
    from io import BytesIO
    with Image.open(BytesIO(a)) as one, Image.open(BytesIO(base)) as two:
        assert one.format == "JPEG" and one.tobytes() == two.tobytes()


def test_the_agents_sync_is_stored_whole_and_the_supervisors_links_are_found(
        app, api, moto, make, load):
    v = moto()
    supervisor = make(factories.user, "supervisor", "tapurah")
    snap = api.get("/api/field/snapshot").json
    items = next(c for c in snap["checklists"] if c["service"] == "mototaxi")["items"]
    bases = [jpeg(n, size=(320, 240)) for n in range(3)]
    iid, body, photos = load.inspection(v.id, items, snap["version"], bases, b"x" * 16)
    assert len(photos) == 3
    got = api.put(f"/api/field/inspections/{iid}", json.loads(body))
    assert got.status_code == 201, got.json
    assert got.json["complete"] is False and len(got.json["missing_photos"]) == 3
    for pid, data, sha in photos:
        answer = api.put(f"/api/field/inspections/{iid}/photos/{pid}", data=data,
                         headers={"Content-Type": "image/jpeg", "X-Content-SHA256": sha})
        assert answer.status_code == 201, answer.json
    assert answer.json["complete"] is True

    desk = app.test_client()
    assert desk.login(supervisor.username).status_code == 302
    queue = desk.get("/revisao").get_data(as_text=True)
    pages = load.links(load.QUEUE_LINK, queue)
    assert len(pages) == 1
    page = desk.get(pages[0])
    assert page.status_code == 200
    minis = load.links(load.MINI_LINK, page.get_data(as_text=True))
    assert len(minis) == 3
    assert all(desk.get(m).status_code == 200 for m in minis)
