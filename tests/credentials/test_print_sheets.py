"""The printed sheets are files a print shop takes: 25 vest badges in well under 2 MB, and
every QR still decodes at 300 dpi with a decoder that is not ours (zxing-cpp, read from the
page as poppler rasterises it). The badge's lines are Tapurah Lei 406/2001 Art. 15 II and
Art. 22 (the rider's identification worn on the vest)."""
from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from PIL import Image, ImageFilter

from inspector.clock import default_day
from inspector.credentials import issuing, sheets
from inspector.extensions import db
from tests import factories
from tests.support.credentials import regular_mototaxi
from tests.support.documents import pdf_text, qr_codes, rasterise

LIMIT = 2_000_000


def _camera_photo(seed: int) -> bytes:
    """A 1200x1600 photo with a camera's grain: much harder to compress than a flat image."""
    base = Image.linear_gradient("L").resize((1200, 1600)).convert("RGB")
    grain = Image.effect_noise((1200, 1600), 30 + seed % 20).convert("RGB")
    photo = Image.blend(base, grain, 0.5).filter(ImageFilter.GaussianBlur(1.5))
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=92)
    return out.getvalue()


def test_25_rider_badges_fit_in_2_mb_and_every_qr_decodes_at_300_dpi(app, tmp_path):
    with app.app_context():
        riders = []
        for i in range(25):
            v = regular_mototaxi("tapurah", plate=f"QC{chr(65 + i)}1A{i:02d}")
            rider = v.drivers[0]
            rider.name = f"Ana Souza {i:02d}"
            rider.photo = _camera_photo(i)
            riders.append(rider)
        issued = [issuing.issue(r, actor="test") for r in riders]
        urls = sorted(issuing.public_url(c.token) for c in issued)
        town = factories.town("tapurah")
        pdf = sheets.render_pdf(sheets.printable(issued, "rider", default_day()), town, "rider")
        db.session.rollback()
    assert pdf.startswith(b"%PDF")
    print(f"25 rider badges: {len(pdf):,} bytes")
    assert len(pdf) < LIMIT, f"25 badges take {len(pdf):,} bytes"
    pages = rasterise(pdf, tmp_path, 300)
    assert len(pages) == 13  # two badges a page
    for page in pages:
        assert abs(page.width - 2480) <= 1 and abs(page.height - 3508) <= 1  # A4, 300 dpi
    assert sorted(qr_codes(pages)) == urls
    text = pdf_text(pdf, tmp_path)
    assert "Ana Souza 07" in text and "MOTO-TÁXI · TAPURAH" in text


def test_the_photo_is_printed_at_300_dpi_of_its_printed_size(app, tmp_path):
    """The badge's photo box is 30 x 40 mm: the image inside is 354 x 472 pixels (300 dpi),
    not the phone's 1200 x 1600 original."""
    with app.app_context():
        rider = regular_mototaxi("tapurah").drivers[0]
        rider.photo = _camera_photo(1)
        cred = issuing.issue(rider, actor="test")
        pdf = sheets.render_pdf([cred], factories.town("tapurah"), "rider")
        db.session.rollback()
    (tmp_path / "one.pdf").write_bytes(pdf)
    if not shutil.which("pdfimages"):
        pytest.fail("pdfimages is missing: `make test` installs poppler-utils")
    listing = subprocess.run(["pdfimages", "-list", str(tmp_path / "one.pdf")], check=True,
                             capture_output=True, text=True).stdout.splitlines()[2:]
    assert len(listing) == 1  # the photo; the QR and the text are vector
    cols = listing[0].split()
    assert (cols[3], cols[4], cols[8]) == ("354", "472", "jpeg")
