"""Builders for vistoria tests: the body of a vistoria as the field app sends it, answering
every item its kind checks under the law in force (docs/vistoria.md)."""
from __future__ import annotations

import io
import shutil
import subprocess
from datetime import UTC, datetime, time, timedelta

import pytest
from PIL import Image

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


def rasterise(pdf: bytes, tmp_path, dpi: int = 300) -> list[Image.Image]:
    """The PDF's pages as poppler draws them (a decoder that is not ours reads them)."""
    if not shutil.which("pdftoppm"):
        pytest.fail("pdftoppm is missing: `make test` installs poppler-utils")
    (tmp_path / "doc.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(tmp_path / "doc.pdf"),
                    str(tmp_path / "page")], check=True)
    return [Image.open(io.BytesIO(p.read_bytes())) for p in sorted(tmp_path.glob("page-*.png"))]


def pdf_text(pdf: bytes, tmp_path) -> str:
    """The PDF's text as pdftotext reads it."""
    (tmp_path / "text.pdf").write_bytes(pdf)
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(tmp_path / "text.pdf"), "-"],
                          check=True, capture_output=True, text=True).stdout
