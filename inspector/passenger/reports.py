"""Passenger reports ("denúncias") from the verification page, and the supervisors' queue."""
from __future__ import annotations

import hashlib
import io
import warnings
from datetime import UTC, datetime, timedelta

from flask import current_app
from PIL import Image, ImageOps, UnidentifiedImageError
from sqlalchemy import select

from inspector import audit, clock
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import (
    Credential,
    CredentialKind,
    PassengerReport,
    ReportCategory,
    ReportStatus,
)

PHOTO_FORMATS = ("JPEG", "PNG", "WEBP")
DEFAULT_MAX_PIXELS = 40_000_000   # a 40 MP phone photo is the biggest we take
MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_SIDE = 2048                   # kept photos are re-encoded no larger than this
MIN_TEXT, MAX_TEXT, MAX_CONTACT = 10, 2000, 200
# The same report again this soon is the same passenger sending it twice (a reload of the
# "Denúncia recebida" page re-posts the form, a double tap on a slow network): it is kept once.
REPEAT_WINDOW = timedelta(hours=2)


def sanitize_photo(data: bytes) -> bytes:
    """Re-encode an uploaded photo as a JPEG without metadata (EXIF, GPS), or refuse it.

    Only JPEG, PNG and WebP are opened; an image claiming more than the pixel cap is
    refused before its pixels are decoded (decompression bombs), and Pillow's bomb
    warning is an error too.
    """
    if len(data) > MAX_PHOTO_BYTES:
        raise ValidationFailed({"foto": "a foto passa de 10 MB"})
    cap = int(current_app.config.get("REPORT_PHOTO_MAX_PIXELS", DEFAULT_MAX_PIXELS))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=PHOTO_FORMATS) as im:
                if im.width * im.height > cap:
                    raise ValidationFailed({"foto": "a imagem é grande demais (pixels demais)"})
                im.draft("RGB", (MAX_SIDE, MAX_SIDE))
                im = ImageOps.exif_transpose(im)  # keep the picture upright, then drop EXIF
                im.thumbnail((MAX_SIDE, MAX_SIDE))
                out = io.BytesIO()
                im.convert("RGB").save(out, "JPEG", quality=85, optimize=True)
    except ValidationFailed:
        raise
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise ValidationFailed({"foto": "a imagem é grande demais (pixels demais)"}) from None
    except UnidentifiedImageError:
        raise ValidationFailed({"foto": "envie uma foto JPEG, PNG ou WebP"}) from None
    except (OSError, SyntaxError, ValueError):
        raise ValidationFailed({"foto": "a foto está corrompida ou incompleta"}) from None
    return out.getvalue()


def create_report(credential: Credential, seen_status: str, category: str, text: str,
           contact: str = "", photo: bytes | None = None) -> PassengerReport:
    """Validate and store a report for the credential's town."""
    try:
        cat = ReportCategory(category)
    except ValueError:
        cat = None
    if cat == ReportCategory.FORGED:   # only from the page of a code we did not issue
        cat = None
    text, contact, clean = _checked(cat, text, contact, photo)
    return _store(credential.municipality_id, credential, seen_status, cat, text, contact, clean)


def create_forged_report(municipality_id: int, text: str, contact: str = "",
                  photo: bytes | None = None) -> PassengerReport:
    """Store a report about a code the town did not issue, in the town the code claims.

    It names no credential, vehicle or driver: a false code proves nothing about the
    vehicle or person it claims to be, so nothing real is put under suspicion by it."""
    text, contact, clean = _checked(ReportCategory.FORGED, text, contact, photo)
    return _store(municipality_id, None, "unknown", ReportCategory.FORGED, text, contact, clean)


def _checked(cat: ReportCategory | None, text: str, contact: str,
             photo: bytes | None) -> tuple[str, str, bytes | None]:
    """The report's text, contact and clean photo, or ValidationFailed naming each field."""
    errors: dict[str, str] = {}
    if cat is None:
        errors["categoria"] = "escolha o tipo do problema"
    text = (text or "").strip()
    if not MIN_TEXT <= len(text) <= MAX_TEXT:
        errors["texto"] = f"conte o que aconteceu em {MIN_TEXT} a {MAX_TEXT} letras"
    contact = (contact or "").strip()
    if len(contact) > MAX_CONTACT:
        errors["contato"] = f"no máximo {MAX_CONTACT} letras"
    clean = None
    if photo:
        try:
            clean = sanitize_photo(photo)
        except ValidationFailed as e:
            errors.update(e.errors)
    if errors:
        raise ValidationFailed(errors)
    return text, contact, clean


def _repeat_of(municipality_id: int, credential: Credential | None, cat: ReportCategory,
               text: str, contact: str, photo_sha256: str | None,
               now: datetime) -> PassengerReport | None:
    """The identical report received within REPEAT_WINDOW, if any."""
    same_code = (PassengerReport.credential_id == credential.id if credential is not None
                 else PassengerReport.credential_id.is_(None))
    rows = db.session.scalars(select(PassengerReport).where(
        PassengerReport.municipality_id == municipality_id, same_code,
        PassengerReport.category == cat, PassengerReport.text == text,
        PassengerReport.contact == contact).order_by(PassengerReport.id.desc()).limit(5))
    for row in rows:
        at = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
        if row.photo_sha256 == photo_sha256 and now - at <= REPEAT_WINDOW:
            return row
    return None


def _store(municipality_id: int, credential: Credential | None, seen_status: str,
           cat: ReportCategory, text: str, contact: str, clean: bytes | None) -> PassengerReport:
    now = clock.now()
    digest = hashlib.sha256(clean).hexdigest() if clean else None
    repeat = _repeat_of(municipality_id, credential, cat, text, contact, digest, now)
    if repeat is not None:
        return repeat
    kind = credential.kind if credential is not None else None
    report = PassengerReport(
        municipality_id=municipality_id,
        credential_id=credential.id if credential is not None else None,
        vehicle_id=credential.vehicle_id if kind == CredentialKind.VEHICLE else None,
        driver_id=credential.driver_id if kind == CredentialKind.DRIVER else None,
        seen_status=seen_status, category=cat, text=text, contact=contact, photo=clean,
        photo_mime="image/jpeg" if clean else None,
        photo_sha256=digest, created_at=now, status=ReportStatus.NEW)
    db.session.add(report)
    db.session.flush()
    # The log is append-only, so it gets no free text or contact (LGPD: those can be erased).
    audit.record("passenger_report_received", "passenger_report", report.id, actor="passageiro",
                 after={"category": cat.value,
                        "credential_id": credential.id if credential is not None else None,
                        "seen_status": seen_status, "photo_sha256": report.photo_sha256},
                 municipality_id=municipality_id)
    return report


def report_queue(town_id: int, status: ReportStatus | None = None, *,
          category: ReportCategory | None = None, received_after: datetime | None = None,
          received_until: datetime | None = None) -> list[PassengerReport]:
    """A town's reports, newest first; of one status or category, received within
    (received_after, received_until] (the dashboard's period)."""
    q = select(PassengerReport).where(PassengerReport.municipality_id == town_id)
    if status is not None:
        q = q.where(PassengerReport.status == status)
    if category is not None:
        q = q.where(PassengerReport.category == category)
    if received_after is not None:
        q = q.where(PassengerReport.created_at > received_after)
    if received_until is not None:
        q = q.where(PassengerReport.created_at <= received_until)
    return list(db.session.scalars(q.order_by(PassengerReport.created_at.desc(),
                                              PassengerReport.id.desc())))


def close_report(report: PassengerReport, note: str, actor) -> PassengerReport:
    """Mark a report handled, with what was done."""
    note = (note or "").strip()
    if len(note) < 5:
        raise ValidationFailed({"nota": "diga o que foi feito (pelo menos 5 letras)"})
    if report.status == ReportStatus.DONE:
        raise ValidationFailed({"nota": "esta denúncia já foi concluída"})
    report.status = ReportStatus.DONE
    report.handled_by_id = actor.id
    report.handled_at = clock.now()
    report.handling_note = note[:2000]
    db.session.flush()
    audit.record("passenger_report_closed", "passenger_report", report.id, actor=actor,
                 before={"status": "new"}, after={"status": "done"},
                 municipality_id=report.municipality_id)
    return report
