"""Reading vistorias back: by inspection, vehicle, certificate number or QR token."""
from __future__ import annotations

import json

from sqlalchemy import select

from inspector.clock import local_day
from inspector.credentials import check_signature, public_url, token_hash
from inspector.extensions import db
from inspector.models import Inspection, Municipality, Vistoria
from inspector.vistorias.certificate import status


def to_fix(v: Vistoria) -> list[dict]:
    """What a rejected vistoria asks to fix: [{item_id, label, law, article, note}]."""
    try:
        return json.loads(v.to_fix or "[]")
    except ValueError:
        return []


def result_of(uuid: str) -> dict | None:
    """The decided result of the vistoria inspection with this UUID, as the sync API answers
    it (docs/sync.md): {kind, result, valid_until, return_on, to_fix, certificate}."""
    v = db.session.scalar(select(Vistoria).join(Inspection, Inspection.id == Vistoria.inspection_id)
                          .where(Inspection.uuid == uuid))
    if v is None:
        return None
    return {"kind": v.kind.value, "result": v.result.value,
            "performed_on": v.performed_on.isoformat(),
            "valid_until": v.valid_until.isoformat() if v.valid_until else None,
            "shortened": bool(v.shortened_reason),
            "return_on": v.return_on.isoformat() if v.return_on else None,
            "to_fix": to_fix(v),
            "certificate": None if v.token is None else {
                "number": v.certificate_number, "url": public_url(v.token),
                "pdf_sha256": v.pdf_sha256, "status": status(v, local_day())}}


def for_vehicle(vehicle_id: int) -> list[Vistoria]:
    """A vehicle's vistorias, newest first."""
    return list(db.session.scalars(select(Vistoria).where(Vistoria.vehicle_id == vehicle_id)
                                   .order_by(Vistoria.performed_on.desc(), Vistoria.id.desc())))


def latest_for_vehicle(vehicle_id: int) -> Vistoria | None:
    """The vehicle's newest vistoria, approved or not."""
    rows = for_vehicle(vehicle_id)
    return rows[0] if rows else None


def find_certificate(town_slug: str, number: str) -> Vistoria | None:
    """A certificate by its town and number (CV-2026/000001), or None."""
    return db.session.scalar(select(Vistoria).join(
        Municipality, Municipality.id == Vistoria.municipality_id).where(
        Municipality.slug == town_slug, Vistoria.certificate_number == number.strip().upper()))


def find_by_token(token: str, today=None) -> tuple[Vistoria | None, str]:
    """The certificate a QR token names and its state: (vistoria, 'active' | 'revoked' |
    'expired'), or (None, 'unknown') for a token not signed by the town's key or not issued.
    One signature check and one query by hash, whatever the input."""
    today = today or local_day()
    claims, reason = check_signature(token, today)
    row = db.session.scalar(select(Vistoria).where(Vistoria.token_hash == token_hash(token)))
    if row is None or (claims is None and reason != "expired"):
        return None, "unknown"
    if claims is not None and (claims.kind != "vistoria" or claims.subject_id != row.id):
        return None, "unknown"
    return row, status(row, today)
