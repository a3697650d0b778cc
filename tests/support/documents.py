"""Reading the documents the app prints (pdftotext) and a company's rider's notice decided
by the supervisor (Tapurah Lei 406/2001 Art. 27 I: the company's copy)."""
from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image
from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.models import NoticeDocument, Sanction, User
from inspector.notifications import subscriptions
from tests import factories
from tests.support.enforcement import fleet, inspect, set_values

RIDER = "Carlos Alberto Motoqueiro"


def stored_document(app, notice_id: int) -> NoticeDocument:
    with app.app_context():
        doc = db.session.scalar(select(NoticeDocument).where(NoticeDocument.notice_id == notice_id)
                                .order_by(NoticeDocument.version.desc()))
        _ = doc.pdf  # load the deferred bytes before leaving the session
        db.session.expunge(doc)
        return doc


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    """The PDF's text as pdftotext reads it, on one line (wrapping undone)."""
    if not shutil.which("pdftotext"):
        pytest.fail("pdftotext is missing: `make test` installs poppler-utils")
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf)
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True,
                         capture_output=True, text=True).stdout
    return " ".join(out.split())


def rasterise(pdf: bytes, tmp_path: Path, dpi: int = 300, pages: int | None = None) -> list[Image.Image]:
    """The PDF's pages (the first `pages`, or all) as poppler draws them at `dpi`. PPM,
    pdftoppm's own format: the same pixels as PNG without compressing them (PNG took 10 s of
    the 13 A4 pages of 25 badges at 300 dpi)."""
    if not shutil.which("pdftoppm"):
        pytest.fail("pdftoppm is missing: `make test` installs poppler-utils")
    for earlier in tmp_path.glob("raster-*.ppm"):   # a second call's pages are its own
        earlier.unlink()
    path = tmp_path / "raster.pdf"
    path.write_bytes(pdf)
    first_pages = ["-l", str(pages)] if pages else []
    subprocess.run(["pdftoppm", "-r", str(dpi), *first_pages, str(path), str(tmp_path / "raster")],
                   check=True)
    return [Image.open(p) for p in sorted(tmp_path.glob("raster-*.ppm"))]


def qr_codes(images: list[Image.Image]) -> list[str]:
    """The text of every QR code on these pages, as a decoder that is not ours (zxing-cpp)
    reads it."""
    return [code.text for image in images
            for code in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)]


COMPANY = "Moto Rápida Ltda"


def company_notice(app, town: str = "tapurah", item: str = "mirrors", *, subscribe=None,
                   owner_driver: bool = False) -> dict:
    """A moto-taxi of a company, one failed item, the supervisor confirms the proposal.
    `owner_driver`: the rider who signs the ciente is the holder himself (the same CPF)."""
    with app.app_context():
        f = fleet(town, "mototaxi")
        f["holder"].name = COMPANY
        f["driver"].name = RIDER
        if owner_driver:
            f["holder"].tax_id = f["driver"].cpf
        set_values(town, minimum_wage=1518, fiscal_unit=5, since=date(2020, 1, 1))
        agent = factories.user("agent", town)
        sup = factories.user("supervisor", town, name="Sueli Supervisora")
        if subscribe is not None:
            subscriptions.save_subscription(subscribe.as_json(), holder=f["holder"])
        db.session.commit()
        now = datetime.now(UTC) - timedelta(minutes=5)
        insp = inspect(f["vehicle"], agent, {item: "fail"}, now - timedelta(hours=1))
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id)
                                .order_by(Sanction.id))
        decision = enforcement.confirm(act, db.session.get(User, sup.id), now)
        db.session.commit()
        return {"act_id": act.id, "notice_id": decision.notice.id,
                "number": decision.notice.number, "code": decision.access_code,
                "agent": agent.username, "sup": sup.username, "holder_id": f["holder"].id,
                "kind": act.kind}
