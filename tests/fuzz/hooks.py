"""Schemathesis hooks for tests/fuzz (loaded by the CLI through SCHEMATHESIS_HOOKS).

Random bodies almost never name a vehicle of the town or a moment inside the window around
the server's clock, so the inspection PUT would answer 422 before reaching the code that
stores. Half of the valid inspection bodies generated (chosen by a hash of the body, so a run is
reproducible) get the town's real vehicle and moments of the last hour; everything else in
them stays as generated, so the checklist, photo and driver code paths are fuzzed too.
"""
from __future__ import annotations

import json
import os
import zlib
from datetime import UTC, datetime, timedelta

import schemathesis
from schemathesis.core.parameters import ParameterLocation


def _moment(minutes_ago: int) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).isoformat().replace("+00:00", "Z")


@schemathesis.hook
def map_case(context, case):
    """Give half of the valid inspection bodies the real vehicle and moments in the window.
    A body generated to break the schema is left as it is: given a vehicle, a body that
    lacked one would be valid, and Schemathesis would still expect its refusal."""
    op = context.operation
    if op is None or op.method.upper() != "PUT" or not op.path.endswith("/{inspection_id}") \
            or not isinstance(case.body, dict) \
            or (case.meta is not None and case.meta.is_negative_at(ParameterLocation.BODY)):
        return case
    case.body = _real(case.body)
    return case


def _real(body: dict) -> dict:
    digest = zlib.crc32(json.dumps(body, sort_keys=True, default=str).encode())
    if digest % 2:
        return body
    out = dict(body, vehicle_id=int(os.environ["FUZZ_VEHICLE_ID"]),
               started_at=_moment(20), finished_at=_moment(5))
    if digest % 4 == 0 and isinstance(out.get("items"), list):
        # a quarter go further: answers to real checklist items (each once), the agent's own
        # (or no) author, no drawn signature, photos taken now; notes, names, the location,
        # the driver, the token, the photos' declarations stay as generated
        ids = os.environ.get("FUZZ_ITEM_IDS", "").split(",")
        out["items"] = [_item(it, ids[n]) for n, it in enumerate(out["items"][:len(ids)])]
        out["agent_id"] = None
        if isinstance(out.get("acknowledgement"), dict):
            out["acknowledgement"] = dict(out["acknowledgement"], signature_png=None)
    return out


def _item(item, item_id: str):
    if not isinstance(item, dict):
        return item
    photos = item.get("photos")
    if isinstance(photos, list):
        photos = [dict(p, taken_at=_moment(10)) if isinstance(p, dict) else p for p in photos]
    return dict(item, item_id=item_id, photos=photos)



@schemathesis.hook
def after_call(context, case, response):
    """Note each answer's status (FUZZ_STATUS_LOG), for the test's summary."""
    path = os.environ.get("FUZZ_STATUS_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{case.method.upper()} {case.operation.path} {response.status_code}\n")
