"""Demo-like fleet rows for the credential tests: a licensed moto-taxi of a company with a
rider who has a photo, all papers in order, and helpers to read the passenger page."""
from __future__ import annotations

import io
import re
from datetime import date, timedelta

from PIL import Image

from inspector.extensions import db
from inspector.models import Vehicle
from tests import factories

CPF_SHAPED = re.compile(r"(?<!\d)\d{3}\.?\d{3}\.?\d{3}-?\d{2}(?!\d)")


def jpeg(size=(120, 160), colour=(30, 90, 160), exif: bytes | None = None) -> bytes:
    """A small JPEG, optionally with EXIF bytes."""
    out = io.BytesIO()
    kw = {"exif": exif} if exif else {}
    Image.new("RGB", size, colour).save(out, "JPEG", **kw)
    return out.getvalue()


def regular_mototaxi(town_slug: str = "tapurah", plate: str = "QBA1D23",
                     **vehicle_kw) -> Vehicle:
    """A moto-taxi as the demo seeds most of them: company, permit, licence, insurance,
    recent vistoria, a registered rider with a photo."""
    today = date.today()
    company = factories.holder(town_slug, company=True, name="Moto Táxi Tapurah Ltda",
                               address="Rua das Palmeiras, 123, Centro")
    factories.permit(company, "mototaxi", number=f"AUT-{factories.n()}")
    v = factories.vehicle(town_slug, "mototaxi", holder=company, plate=plate, prefix="07",
                          make_model="Honda CG 160 Titan", colour="Vermelha",
                          year_of_manufacture=today.year - 1,
                          last_vistoria_on=today - timedelta(days=20), **vehicle_kw)
    factories.licence(v)
    factories.insurance(v)
    rider = factories.driver(town_slug, "mototaxista", name="João Batista da Silva",
                             holder_id=company.id, photo=jpeg(), photo_mime="image/jpeg")
    v.drivers.append(rider)
    db.session.flush()
    return v


def banner(html: str) -> str:
    """The big word(s) at the top of the passenger page."""
    m = re.search(r'<section class="banner b-(\w+)"[^>]*>\s*<h1>([^<]+)</h1>', html)
    assert m, "no banner on the page"
    return m.group(2)
