"""Reminders before a vistoria falls due: N days before its last valid day (the town's setting,
30 and 7 by default), to the vehicle's holder by Web Push where a browser of theirs subscribed
and by e-mail where the registry has their address (SMTP from the configuration: SMTP_HOST,
SMTP_PORT, SMTP_FROM, optional SMTP_USER/SMTP_PASSWORD, SMTP_STARTTLS). Each is sent once per
due day, lead and channel, and recorded (`vistoria_reminders`), so a run missed catches up and
a second run sends nothing."""
from __future__ import annotations

import smtplib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from email.message import EmailMessage

from flask import current_app
from sqlalchemy import select

from inspector import audit, clock, registry
from inspector.extensions import db
from inspector.identifiers import format_plate
from inspector.models import (
    Municipality,
    PushSubscription,
    Vehicle,
    VistoriaReminder,
    VistoriaSettings,
)
from inspector.rules import fmt_date

DEFAULT_LEADS = (30, 7)


def leads(town_id: int) -> tuple[int, ...]:
    """The town's reminder days before due, largest first."""
    s = db.session.get(VistoriaSettings, town_id)
    raw = s.reminder_days if s is not None and s.reminder_days else "30,7"
    out = sorted({int(x) for x in raw.split(",") if x.strip().isdigit() and 0 < int(x) <= 90},
                 reverse=True)
    return tuple(out) or DEFAULT_LEADS


@dataclass
class ReminderReport:
    """What a run sent: (plate, lead, channel) each."""

    sent: list[tuple[str, int, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (plate, why) e-mails not sent

    def as_dict(self) -> dict:
        return {"sent": [{"plate": p, "lead_days": n, "channel": c} for p, n, c in self.sent],
                "failed": [{"plate": p, "error": e} for p, e in self.failed]}


def _sent(vehicle_id: int, due: date, lead: int, channel: str) -> bool:
    return db.session.scalar(select(VistoriaReminder.id).where(
        VistoriaReminder.vehicle_id == vehicle_id, VistoriaReminder.due_on == due,
        VistoriaReminder.lead_days == lead, VistoriaReminder.channel == channel)) is not None


def _text(v: Vehicle, town: Municipality, due: date, left: int) -> tuple[str, str]:
    title = f"Vistoria do veículo {format_plate(v.plate)} vence em {fmt_date(due)}"
    body = (f"A vistoria do veículo {format_plate(v.plate)} vale até {fmt_date(due)} "
            f"({left} dia{'s' if left != 1 else ''}). Depois disso o veículo não pode levar "
            f"passageiros até nova vistoria aprovada. Agende na Prefeitura Municipal de "
            f"{town.name}.")
    return title, body


def _email(to: str, subject: str, body: str) -> None:
    cfg = current_app.config
    msg = EmailMessage()
    msg["From"] = cfg.get("SMTP_FROM") or "fiscalizacao@localhost"
    msg["To"], msg["Subject"] = to, subject
    msg.set_content(body)
    with smtplib.SMTP(cfg["SMTP_HOST"], int(cfg.get("SMTP_PORT") or 25), timeout=20) as smtp:
        if cfg.get("SMTP_STARTTLS"):
            smtp.starttls()
        if cfg.get("SMTP_USER"):
            smtp.login(cfg["SMTP_USER"], cfg.get("SMTP_PASSWORD") or "")
        smtp.send_message(msg)


def _record(v: Vehicle, due: date, lead: int, channel: str, address: str = "") -> None:
    db.session.add(VistoriaReminder(municipality_id=v.municipality_id, vehicle_id=v.id,
                                    holder_id=v.holder_id, due_on=due, lead_days=lead,
                                    channel=channel, address=address,
                                    sent_at=clock.now()))
    db.session.flush()
    audit.record("vistoria_reminder_sent", "vehicle", v.id, actor="system",
                 municipality_id=v.municipality_id,
                 after={"due_on": due.isoformat(), "lead_days": lead, "channel": channel})


def send_reminders(today: date | None = None, town_id: int | None = None, *,
             push: Callable | None = None) -> ReminderReport:
    """Send every reminder due today (or missed since its day, while the vistoria is still
    valid), in the caller's transaction; the caller commits. `push`: the notifications area's
    `notify_push`, given by the caller (that area sits above this one); None sends no push.
    "Today" is each vehicle's town's day unless `today` is given."""
    report = ReminderReport()
    q = select(Vehicle).where(Vehicle.last_vistoria_on.is_not(None))
    if town_id is not None:
        q = q.where(Vehicle.municipality_id == town_id)
    smtp = bool(current_app.config.get("SMTP_HOST"))
    for v in db.session.scalars(q):
        town = db.session.get(Municipality, v.municipality_id)
        day = today or clock.today(town)
        validity = registry.vistoria_valid_until(v, day)
        if validity is None or validity.until < day:
            continue
        left = (validity.until - day).days
        due_leads = [n for n in leads(v.municipality_id) if left <= n]
        if not due_leads:
            continue
        lead = min(due_leads)  # the nearest: a missed 30-day reminder is not sent at 7 days
        title, body = _text(v, town, validity.until, left)
        holder = v.holder
        pushed = db.session.scalar(select(PushSubscription.id).where(
            PushSubscription.holder_id == holder.id).limit(1)) is not None
        if push is not None and pushed and not _sent(v.id, validity.until, lead, "push"):
            push(holder, "vistoria_due", title, body, "/",
                                      dedupe_key=f"vistoria:{v.id}:{validity.until}:{lead}")
            _record(v, validity.until, lead, "push")
            report.sent.append((v.plate, lead, "push"))
        if smtp and holder.email and not _sent(v.id, validity.until, lead, "email"):
            try:
                _email(holder.email, title, body)
            except (OSError, smtplib.SMTPException) as e:
                report.failed.append((v.plate, str(e)[:200]))
                continue
            _record(v, validity.until, lead, "email", holder.email)
            report.sent.append((v.plate, lead, "email"))
    return report


def reminders_for_vehicle(vehicle_id: int) -> list[VistoriaReminder]:
    """The reminders sent about a vehicle, newest first."""
    return list(db.session.scalars(select(VistoriaReminder).where(
        VistoriaReminder.vehicle_id == vehicle_id).order_by(VistoriaReminder.sent_at.desc())))
