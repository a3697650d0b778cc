"""Reading vistorias back: by inspection, vehicle, certificate number or QR token."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import select

from inspector import clock, laws, registry
from inspector.credentials import check_signature, public_url, token_hash
from inspector.extensions import db
from inspector.identifiers import format_plate
from inspector.models import Inspection, Municipality, Vistoria
from inspector.rules import fmt_date


def to_fix(v: Vistoria) -> list[dict]:
    """What a rejected vistoria asks to fix: [{item_id, label, law, article, note}]."""
    try:
        return v.to_fix or []
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
                "pdf_sha256": v.pdf_sha256, "status": certificate_state(v, _today(v))[0]}}


def _today(v: Vistoria) -> date:
    """Today on the clock of the vistoria's town."""
    return clock.today(db.session.get(Municipality, v.municipality_id))


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
    row = db.session.scalar(select(Vistoria).where(Vistoria.token_hash == token_hash(token)))
    # the day of the certificate's town; a token that names no certificate has no town, and
    # is refused whatever the day (Mato Grosso's, so that the signature is still checked)
    today = today or (_today(row) if row is not None else clock.default_day())
    claims, reason = check_signature(token, today)
    if row is None or (claims is None and reason != "expired"):
        return None, "unknown"
    if claims is not None and (claims.kind != "vistoria" or claims.subject_id != row.id):
        return None, "unknown"
    return row, certificate_state(row, today)[0]


STATE_TEXT = {
    "active": ("b-regular", "Vistoria válida"),
    "expired": ("b-expired", "Vistoria vencida"),
    "revoked": ("b-revoked", "Certificado cancelado"),
    "suspended": ("b-suspended", "Certificado sem efeito"),
    "unknown": ("b-unknown", "Certificado não reconhecido"),
}


def certificate_state(v: Vistoria, today: date) -> tuple[str, str]:
    """What a certificate is worth today, read live from the registry, and why (pt-BR):
    cancelled (by hand, or superseded), without effect while the vehicle is suspended, no
    longer the vehicle's vistoria (corrected) or shortened since (then cancelled), expired."""
    if v.revoked_at is not None:
        return "revoked", f"Cancelado: {v.revoked_reason}."
    vehicle = v.vehicle
    if vehicle.last_vistoria_on != v.performed_on:
        return "revoked", ("Cancelado: a vistoria registrada do veículo não é mais esta "
                           "(corrigida ou substituída).")
    validity = registry.vistoria_valid_until(vehicle, today)
    if validity is not None and validity.until < v.valid_until:
        return "revoked", (f"Cancelado: a validade desta vistoria foi reduzida para "
                           f"{fmt_date(validity.until)} ({validity.where}).")
    verdict = laws.verdict_of(vehicle, today)
    if verdict.state == "suspended":
        return "suspended", "O veículo está suspenso: não pode levar passageiros."
    if today > v.valid_until:
        return "expired", f"Venceu em {fmt_date(v.valid_until)}."
    return "active", f"Válida até {fmt_date(v.valid_until)}."


@dataclass(frozen=True)
class CertificateView:
    """What the certificate's public pages show: no personal data."""

    state: str
    css: str
    title: str
    reason: str
    number: str = ""
    town: str = ""
    town_slug: str = ""
    kind: str = ""
    plate: str = ""
    prefix: str = ""
    service: str = ""
    model: str = ""
    performed_on: str = ""
    valid_until: str = ""
    badge: str = ""
    article: str = ""
    pdf_sha256: str = ""


def certificate_view(v: Vistoria | None, today: date) -> CertificateView:
    """The public view of a certificate (None: a code or number the town did not issue)."""
    if v is None or v.token is None:
        css, title = STATE_TEXT["unknown"]
        return CertificateView("unknown", css, title, "Este código não foi emitido como "
                               "certificado de vistoria por nenhum município deste sistema.")
    state, reason = certificate_state(v, today)
    css, title = STATE_TEXT[state]
    vehicle, town = v.vehicle, db.session.get(Municipality, v.municipality_id)
    return CertificateView(
        state, css, title, reason, number=v.certificate_number, town=town.name,
        town_slug=town.slug, kind=v.kind.label, plate=format_plate(vehicle.plate),
        prefix=vehicle.prefix or "—",
        service="Moto-táxi" if vehicle.service.value == "mototaxi" else "Táxi",
        model=f"{vehicle.make_model} · {vehicle.colour}", performed_on=fmt_date(v.performed_on),
        valid_until=fmt_date(v.valid_until), badge=(v.agent.badge_number or "—"),
        article=f"{v.law}, {v.article}", pdf_sha256=v.pdf_sha256 or "")


@dataclass(frozen=True)
class Figures:
    """A town's vistorias over a period: per month (YYYY-MM) the done, approved and rejected;
    the vistorias falling due in the period; the vehicles overdue today."""

    months: tuple[tuple[str, int, int, int], ...]   # (month, done, approved, rejected)
    due: int
    overdue: int


def figures(town_id: int, first: date, last: date, today: date) -> Figures:
    """Counts for the dashboard (no personal data: numbers only)."""
    from sqlalchemy import func

    month = func.substr(func.cast(Vistoria.performed_on, db.String), 1, 7)
    rows = db.session.execute(
        select(month, Vistoria.result, func.count(Vistoria.id))
        .where(Vistoria.municipality_id == town_id, Vistoria.performed_on >= first,
               Vistoria.performed_on <= last).group_by(month, Vistoria.result)).all()
    by: dict[str, list[int]] = {}
    for m, result, n in rows:
        counts = by.setdefault(m, [0, 0, 0])
        counts[0] += n
        counts[1 if getattr(result, "value", result) == "approved" else 2] += n
    due = overdue = 0
    from inspector.models import Vehicle

    for v in db.session.scalars(select(Vehicle).where(Vehicle.municipality_id == town_id,
                                                      Vehicle.last_vistoria_on.is_not(None))):
        validity = registry.vistoria_valid_until(v, today)
        if validity is None:
            continue
        due += first <= validity.until <= last
        overdue += validity.until < today
    return Figures(tuple((m, *by[m]) for m in sorted(by)), due, overdue)
