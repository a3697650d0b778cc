"""The checklist the phone downloads says, with each item, which registry findings it checks
(`checklists[].items[].registry_findings`, from the pack): the field app pre-marks those items
"Não conforme" when the card already holds one, reading no table of its own. Full
and delta snapshots alike (checklists are replaced by every delta). Runs on SQLite and
PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from inspector import rules
from inspector.clock import default_day


def _items(checklists: list[dict]) -> dict[str, list[str]]:
    [found] = [c for c in checklists if c["service"] == "mototaxi"]
    return {i["id"]: i["registry_findings"] for i in found["items"]}


def test_each_item_of_the_snapshot_carries_the_findings_its_pack_names(api, moto):
    moto()
    full = api.get("/api/field/snapshot").json
    items = _items(full["checklists"])
    pack = rules.find_pack("tapurah", "mototaxi", default_day())
    assert items == {i.id: list(i.registry_findings)
                     for i in rules.checklist_of(pack, default_day())}
    # Tapurah Lei 406/2001 Arts. 16-17 (insurance), Art. 13 (engine size, no trail), Art. 22
    # IV and Art. 15 II (the cards that carry the rider's inscription); the mirrors, nothing
    assert items["insurance"] == ["insurance.lapsed", "insurance.missing"]
    assert items["engine-size"] == ["vehicle.cc.min", "vehicle.cc.max", "vehicle.trail"]
    assert items["id-card"] == items["vest-id"] == ["driver.registration."]
    assert items["mirrors"] == []
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert _items(delta["checklists"]) == items
