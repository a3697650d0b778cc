"""The driver's drawn signature is evidence too: a signature PNG cut short or
carrying another file is refused when the inspection arrives, and one already stored (accepted
before this check) never breaks the notice PDF: it is left out, its hash still printed."""
from __future__ import annotations

import base64
import random
from io import BytesIO

import pytest
from PIL import Image

from inspector.documents import pdf
from inspector.errors import ValidationFailed
from inspector.inspections import evidence


def _signature_png() -> bytes:
    """A canvas-like drawing: white with noisy strokes (so a cut lands in the pixels)."""
    img = Image.new("L", (600, 200), 255)
    img.putdata([0 if random.Random(i).random() < 0.2 else 255 for i in range(600 * 200)])
    out = BytesIO()
    img.convert("RGB").save(out, "PNG")
    return out.getvalue()


def _uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


def test_a_whole_signature_is_kept_as_sent():
    data = _signature_png()
    assert evidence.decode_signature(_uri(data)) == data


@pytest.mark.parametrize("damage", ["cut", "zip after", "byte after"])
def test_a_damaged_signature_is_refused(damage):
    data = _signature_png()
    bad = {"cut": data[: len(data) // 2], "zip after": data + b"PK\x03\x04" + bytes(40),
           "byte after": data + b"\x00"}[damage]
    with pytest.raises(ValidationFailed) as e:
        evidence.decode_signature(_uri(bad))
    assert "danificada ou incompleta" in e.value.errors["acknowledgement.signature_png"]


def test_a_notice_with_a_stored_signature_cut_short_still_prints():
    data = _signature_png()
    sheet = pdf.Sheet(
        number="NOT-2026/000001", title="NOTIFICAÇÃO", header=("PREFEITURA",), lead=(),
        sections=(pdf.Section("Ciente do condutor", (
            pdf.Signature((("Nome", "Condutor"),), data[: len(data) // 2], "ab" * 32),)),),
        url="https://example.invalid/d/1", access_code=None)
    out = pdf.render(sheet)
    assert out.startswith(b"%PDF")
