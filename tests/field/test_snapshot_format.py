"""The snapshot says which shape of rows it carries (`format`), full or delta, and the field
app expects the same number: a phone holding another format is sent a full snapshot
(docs/sync.md §1, "The snapshot's format"). Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from pathlib import Path

from inspector.field.snapshot import FORMAT

SYNC_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "field" / "sync.js"


def test_full_and_delta_snapshots_carry_the_format(api, moto):
    moto()
    full = api.get("/api/field/snapshot").json
    assert full["full"] is True and full["format"] == FORMAT >= 2
    assert all("suspended_until" in row for row in full["licences"] + full["drivers"])
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert delta["full"] is False and delta["format"] == FORMAT


def test_the_app_expects_the_servers_format():
    expected = re.search(r"export const SNAPSHOT_FORMAT = (\d+);", SYNC_JS.read_text())
    assert expected and int(expected.group(1)) == FORMAT
