"""Builders for vistoria tests: the body of a vistoria as the field app sends it, answering
every item its kind checks under the law in force (docs/vistoria.md)."""
from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from inspector import rules
from inspector.clock import default_day
from tests.support.field_api import body, photo_decl
from tests.support.instants import CUIABA


def plan_items(town: str, service: str, kind: str, day=None) -> list[str]:
    """The item ids the law's vistoria of this kind checks on the day."""
    found = rules.vistoria_plan(town, service, kind, day or default_day())
    assert found is not None, (town, service, kind)
    return [i.id for i in found.items]


def snapshot_items(api, service: str, kind: str) -> list[str]:
    """The item ids the phone's snapshot gives this kind of vistoria (what the app shows)."""
    snap = api.get("/api/field/snapshot").json
    checklist = next(c for c in snap["checklists"] if c["service"] == service)
    return next(p["item_ids"] for p in checklist["vistorias"] if p["kind"] == kind)


def vistoria_body(vehicle_id: int, town: str, service: str, kind: str = "periodic", *,
                  fail: dict[str, bytes] | None = None, items: list[str] | None = None,
                  **extra) -> dict:
    """A vistoria answering every item of its kind (`items`, else the law's without the town's
    conditions): "ok", or "fail" with a photo for those in `fail`."""
    now = datetime.now(UTC)
    # a vistoria of today on the test towns' clock (the tests read its day as today's): begun
    # 20 minutes ago, or at midnight there when 20 minutes ago was still yesterday
    midnight = datetime.combine(now.astimezone(CUIABA).date(), time(0), CUIABA).astimezone(UTC)
    started = max(now - timedelta(minutes=20), midnight)
    finished = min(started + timedelta(minutes=7), now)
    out = body(vehicle_id, ok=(), started=started,
               finished_at=finished.isoformat().replace("+00:00", "Z"), **extra)
    fail = fail or {}
    out["items"] = [{"item_id": i, "result": "ok", "note": "", "photos": []}
                    if i not in fail else
                    {"item_id": i, "result": "fail", "note": "Quebrado",
                     "photos": [photo_decl(fail[i])]}
                    for i in items or plan_items(town, service, kind, default_day(started))]
    out["kind"] = kind
    return out
