"""Reminders before a vistoria falls due (docs/vistoria.md): 30 and 7 days before its last
valid day (Tapurah Lei 406/2001 Art. 23 X: every 6 months), by Web Push where the holder's
browser subscribed and by e-mail where the registry has the holder's address, through a real
SMTP server on loopback (aiosmtpd); each once, recorded, shown on the vehicle's page."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.header import decode_header, make_header

from sqlalchemy import func, select

from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Notification, PushSubscription, Vehicle, VistoriaReminder
from inspector.registry import vistoria_valid_until
from inspector.rules import add_months
from tests import factories


def _vehicle_due_in_30_days(app):
    with app.app_context():
        today = default_day()
        v = factories.vehicle("tapurah", "mototaxi", plate="QRM1A23",
                              last_vistoria_on=add_months(today + timedelta(days=30), -6))
        v.holder.email = "dono@example.com"
        db.session.add(PushSubscription(holder_id=v.holder_id, endpoint="https://push.example/x",
                                        endpoint_sha256="a" * 64, p256dh="k", auth="a",
                                        created_at=datetime.now(UTC)))
        due = vistoria_valid_until(v, today).until
        db.session.commit()
        return v.id, due


def _remind(app, on=None) -> dict:
    args = ["vistorias", "remind", "--json"] + (["--on", on.isoformat()] if on else [])
    out = app.test_cli_runner().invoke(args=args)
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_30_and_7_days_before_by_push_and_email_each_once(app, smtp, make):
    vid, due = _vehicle_due_in_30_days(app)
    today = default_day()
    left = (due - today).days
    assert 28 <= left <= 30  # 6 months from a clamped day can end a day or two early
    first = _remind(app)
    assert sorted((s["channel"], s["lead_days"]) for s in first["sent"]) == [("email", 30),
                                                                             ("push", 30)]
    assert len(smtp.received) == 1
    mail = smtp.received[0]
    assert mail["To"] == "dono@example.com"
    subject = str(make_header(decode_header(mail["Subject"])))
    assert subject == f"Vistoria do veículo QRM1A23 vence em {due.strftime('%d/%m/%Y')}"
    assert _remind(app)["sent"] == [] and len(smtp.received) == 1  # once
    # a week before: the 7-day reminders, once too
    week = _remind(app, due - timedelta(days=7))
    assert sorted((s["channel"], s["lead_days"]) for s in week["sent"]) == [("email", 7),
                                                                            ("push", 7)]
    assert _remind(app, due - timedelta(days=6))["sent"] == []
    assert len(smtp.received) == 2
    with app.app_context():
        assert db.session.scalar(select(func.count(VistoriaReminder.id))) == 4
        assert db.session.scalar(select(func.count(Notification.id))) == 2
        town = db.session.get(Vehicle, vid).municipality_id
    admin = make(factories.user, "admin", "tapurah")
    staff = app.test_client()
    assert staff.login(admin.username).status_code == 302
    page = staff.get(f"/cadastro/veiculos/{vid}").get_data(as_text=True)
    assert "Lembretes da vistoria" in page and "dono@example.com" in page
    assert town


def test_no_reminder_far_from_due_nor_after_it(app, smtp):
    vid, due = _vehicle_due_in_30_days(app)
    assert _remind(app, due - timedelta(days=45))["sent"] == []
    assert _remind(app, due + timedelta(days=1))["sent"] == []
    assert smtp.received == []
