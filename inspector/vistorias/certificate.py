"""The certificado de vistoria: a PDF the size of an A6 card, fixed inside the vehicle in view
of the passengers (Sapezal Lei 060/1998 Art. 11 § 2º; Nova Santa Helena Lei 535/2013 Art. 13
VI), with the plate, the prefix, the last valid day, the inspector's badge, the article, and a
QR signed with the credentials' key (inspector/credentials/tokens.py, kind 3) that opens its
verification page (/v/<token>). Its number and the SHA-256 of its PDF are checked at
/documentos/<town>/<number> like any other document of the town."""
from __future__ import annotations

import hashlib
import io
from datetime import date

from reportlab.lib.pagesizes import A6
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from sqlalchemy import func, select

from inspector import audit, clock
from inspector.credentials import GREEN, LABEL_GREY, WHITE, SheetPen, public_url, sign, token_hash
from inspector.extensions import db
from inspector.identifiers import format_plate
from inspector.models import Municipality, Service, Vehicle, Vistoria, VistoriaResult
from inspector.rules import fmt_date

PREFIX = "CV"  # certificado de vistoria: CV-2026/000001, per town and year


class _Pen(SheetPen):
    """The sheets' pen on an A6 page (its y counts from this page's top)."""

    def _y(self, y: float) -> float:
        return A6[1] - (self.top + y) * mm


def _number(town_id: int, year: int) -> str:
    """The next certificate number of the town's year (unique per town: a race retries)."""
    like = f"{PREFIX}-{year}/%"
    count = db.session.scalar(select(func.count(Vistoria.id)).where(
        Vistoria.municipality_id == town_id, Vistoria.certificate_number.like(like))) or 0
    return f"{PREFIX}-{year}/{count + 1:06d}"


def issue(v: Vistoria, actor) -> None:
    """Number, sign and draw the certificate of an approved vistoria (in the caller's
    transaction); the vehicle's earlier certificates are revoked as superseded."""
    assert v.result == VistoriaResult.APPROVED and v.valid_until is not None
    town = db.session.get(Municipality, v.municipality_id)
    v.certificate_number = _number(town.id, v.performed_on.year)
    v.token = sign("vistoria", town, v.id, v.valid_until, actor)
    v.token_hash = token_hash(v.token)
    v.pdf = draw(v, town, actor)
    v.pdf_sha256 = hashlib.sha256(v.pdf).hexdigest()
    db.session.flush()
    for old in db.session.scalars(select(Vistoria).where(
            Vistoria.vehicle_id == v.vehicle_id, Vistoria.id != v.id,
            Vistoria.token.is_not(None), Vistoria.revoked_at.is_(None))):
        revoke(old, f"substituído pelo certificado nº {v.certificate_number}", actor)
    audit.record("vistoria_certificate_issued", "vistoria", v.id, actor=actor,
                 municipality_id=town.id,
                 after={"number": v.certificate_number, "valid_until": v.valid_until.isoformat(),
                        "pdf_sha256": v.pdf_sha256})


def revoke(v: Vistoria, reason: str, actor) -> None:
    """Cancel a certificate at once: its QR and its page say so from now on."""
    if v.revoked_at is not None or v.token is None:
        return
    v.revoked_at = clock.now()
    v.revoked_reason = reason[:500]
    db.session.flush()
    audit.record("vistoria_certificate_revoked", "vistoria", v.id, actor=actor,
                 municipality_id=v.municipality_id,
                 after={"number": v.certificate_number, "reason": v.revoked_reason})


def revoke_for_vehicle(vehicle: Vehicle, reason: str, actor) -> int:
    """Revoke the vehicle's certificates in force (the vehicle was suspended, its vistoria
    shortened or corrected); how many."""
    rows = list(db.session.scalars(select(Vistoria).where(
        Vistoria.vehicle_id == vehicle.id, Vistoria.token.is_not(None),
        Vistoria.revoked_at.is_(None))))
    for v in rows:
        revoke(v, reason, actor)
    return len(rows)


def status(v: Vistoria, today: date) -> str:
    """'active', 'revoked' or 'expired' on a day."""
    if v.revoked_at is not None:
        return "revoked"
    return "expired" if v.valid_until is None or today > v.valid_until else "active"


def draw(v: Vistoria, town: Municipality, actor) -> bytes:
    """The certificate's PDF: one A6 page."""
    out = io.BytesIO()
    c = Canvas(out, pagesize=A6, pageCompression=1)
    c.setTitle(f"Certificado de vistoria {v.certificate_number}")
    c.setAuthor(f"Prefeitura Municipal de {town.name}")
    c.setSubject("Certificado de vistoria")
    w, h = A6[0] / mm, A6[1] / mm
    p = _Pen(c, 0, 0, w, h)
    vehicle = db.session.get(Vehicle, v.vehicle_id)
    moto = vehicle.service == Service.MOTOTAXI
    p.rect(0, 0, w, 18, fill=GREEN)
    p.fit_text(w / 2, 6, f"Prefeitura Municipal de {town.name}", w - 8, 3.2, False, WHITE, "mm")
    p.fit_text(w / 2, 12.5, "CERTIFICADO DE VISTORIA", w - 8, 5, True, WHITE, "mm")
    y = 22
    p.text(6, y, f"{v.kind.label} · nº {v.certificate_number}", 3, True)
    y += 6
    p.text(6, y, "Placa", 2.6, fill=LABEL_GREY)
    p.text(52, y, "Prefixo", 2.6, fill=LABEL_GREY)
    p.fit_text(6, y + 3.5, format_plate(vehicle.plate), 44, 8, True)
    p.fit_text(52, y + 3.5, vehicle.prefix or "—", 40, 8, True)
    y += 14
    p.text(6, y, "Válida até", 2.6, fill=LABEL_GREY)
    p.fit_text(6, y + 3.5, fmt_date(v.valid_until), 60, 8, True)
    y += 13
    p.fit_text(6, y, f"{'Motocicleta' if moto else 'Veículo'} {vehicle.make_model} · "
                     f"{vehicle.colour}", w - 12, 3)
    y += 5
    p.fit_text(6, y, f"Vistoria em {fmt_date(v.performed_on)} · agente "
                     f"{_badge(v)}", w - 12, 3)
    y += 5
    p.fit_text(6, y, f"{v.law}, {v.article}" + (f"; validade: {v.period_article}"
                                              if v.period_article else ""), w - 12, 2.6)
    if v.shortened_reason:
        y += 4.5
        p.fit_text(6, y, "Validade reduzida pelo responsável pela vistoria", w - 12, 2.6)
    q = 44
    p.qr(public_url(v.token), (w - q) / 2, h - q - 14, q)
    p.fit_text(w / 2, h - 9, "Aponte a câmera para conferir se esta vistoria vale hoje.",
               w - 8, 2.6, False, LABEL_GREY, "mm")
    p.fit_text(w / 2, h - 5, "Fixe este certificado no interior do veículo, à vista do "
                             "passageiro.", w - 8, 2.4, False, LABEL_GREY, "mm")
    c.showPage()
    c.save()
    return out.getvalue()


def _badge(v: Vistoria) -> str:
    """The inspector's badge number (or their name where the town gave none)."""
    agent = v.agent
    return (agent.badge_number or agent.name) if agent is not None else "—"
